/**
 * @module emulator/signing/sign
 * Raw signatures as sign_raw_payload returns them (`v1SignRawPayloadResult`): ECDSA on
 * secp256k1 or P-256 over a 32-byte digest, with `r`, `s` (64 hex digits each, no `0x`) and the
 * recovery id `v` (`00` or `01`); Ed25519 (RFC 8032) over the message itself, its 64 bytes split
 * into `r` and `s`, `v` `00`.
 *
 * How the payload becomes what is signed (docs `api-reference/activities/sign-raw-payload`):
 * the encoding turns the text into bytes (hex, UTF-8), or for EIP-712 typed data and EIP-7702
 * authorizations into their digest; then the hash function applies (KECCAK256, SHA256; NO_OP
 * signs the bytes as they are and needs 32 of them; NOT_APPLICABLE is for ed25519 and for the
 * structured encodings, whose digest is fixed by their standard).
 */
import { ed25519 } from "@noble/curves/ed25519";
import { p256 } from "@noble/curves/nist";
import { secp256k1 } from "@noble/curves/secp256k1";
import { sha256 } from "@noble/hashes/sha2";
import { keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import { authorizationHash, parseAuthorization, parseTypedData, typedDataHash } from "keyform/policy/transactions/eip712";
import { hexPayload, TransactionDecodeError } from "keyform/policy/transactions/ethereum";
import type { Curve } from "keyform/wire/enums";
import type { HashFunction, PayloadEncoding, RawSignature } from "keyform/wire/operations/signing";
import { invalidArgument } from "../errors";

/** The bytes a payload stands for, or its digest for the structured encodings. */
function encoded(payload: string, encoding: PayloadEncoding, field: string): { bytes: Uint8Array; digest: boolean } {
  try {
    switch (encoding) {
      case "PAYLOAD_ENCODING_HEXADECIMAL":
        return { bytes: hexPayload(payload), digest: false };
      case "PAYLOAD_ENCODING_TEXT_UTF8":
        return { bytes: utf8ToBytes(payload), digest: false };
      case "PAYLOAD_ENCODING_EIP712":
        return { bytes: typedDataHash(parseTypedData(payload)), digest: true };
      case "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION":
        return { bytes: authorizationHash(parseAuthorization(payload)), digest: true };
    }
  } catch (error) {
    if (error instanceof TransactionDecodeError) throw invalidArgument(`${field}: ${error.message} (encoding ${encoding})`);
    throw error;
  }
}

/** What a curve signs for a payload: the 32-byte digest (ECDSA) or the message (ed25519). */
export function signingInput(
  curve: Curve,
  payload: string,
  encoding: PayloadEncoding,
  hashFunction: HashFunction,
  field: string,
): Uint8Array {
  const { bytes, digest } = encoded(payload, encoding, field);
  if (curve === "CURVE_ED25519") {
    if (hashFunction !== "HASH_FUNCTION_NOT_APPLICABLE") {
      throw invalidArgument(`hashFunction: must be HASH_FUNCTION_NOT_APPLICABLE for an ed25519 signer (RFC 8032 hashes the message itself); got ${hashFunction}`);
    }
    if (digest) throw invalidArgument(`encoding: ${encoding} is for secp256k1 signers, not ed25519`);
    return bytes;
  }
  if (digest) {
    if (hashFunction !== "HASH_FUNCTION_NO_OP" && hashFunction !== "HASH_FUNCTION_NOT_APPLICABLE") {
      throw invalidArgument(`hashFunction: ${encoding} fixes its own digest; use HASH_FUNCTION_NO_OP or HASH_FUNCTION_NOT_APPLICABLE, not ${hashFunction}`);
    }
    return bytes;
  }
  switch (hashFunction) {
    case "HASH_FUNCTION_KECCAK256":
      return keccak_256(bytes);
    case "HASH_FUNCTION_SHA256":
      return sha256(bytes);
    case "HASH_FUNCTION_NO_OP":
      if (bytes.length !== 32) throw invalidArgument(`${field}: with HASH_FUNCTION_NO_OP the payload must be a 32-byte digest, got ${bytes.length} bytes`);
      return bytes;
    case "HASH_FUNCTION_NOT_APPLICABLE":
      throw invalidArgument(`hashFunction: HASH_FUNCTION_NOT_APPLICABLE is for ed25519 signers and the EIP-712 / EIP-7702 encodings; an ECDSA signer needs KECCAK256, SHA256 or NO_OP`);
  }
}

const hex32 = (n: bigint) => n.toString(16).padStart(64, "0");

/** Signs `input` (a digest for ECDSA, the message for ed25519) with `secret`. */
export function signWithCurve(curve: Curve, secret: Uint8Array, input: Uint8Array): RawSignature & { yParity: 0 | 1 } {
  if (curve === "CURVE_ED25519") {
    const signature = ed25519.sign(input, secret);
    return { r: bytesToHex(signature.subarray(0, 32)), s: bytesToHex(signature.subarray(32)), v: "00", yParity: 0 };
  }
  const lib = curve === "CURVE_P256" ? p256 : secp256k1;
  // Low-S (as Ethereum requires, EIP-2); noble v1 signs the 32 bytes as given (no prehash).
  const signature = lib.sign(input, secret, { lowS: true });
  const yParity = signature.recovery === 1 ? 1 : 0;
  return { r: hex32(signature.r), s: hex32(signature.s), v: yParity === 1 ? "01" : "00", yParity };
}
