/**
 * @module protocol/api-key-stamper
 * Signs request bodies with an API key and emits the `X-Stamp` header (docs/service-facts.md#11-api-key-stamp-x-stamp, #12-other-api-key-curves-and-schemes).
 *
 * Header value: base64url without padding of the JSON text
 * `{"publicKey":<hex>,"scheme":<scheme>,"signature":<hex>}` (that key order, no whitespace).
 * What is signed is the exact body string as UTF-8; URL, method and headers are not signed.
 *
 * - P-256 / SECP256K1: ECDSA over SHA-256(body). Signature = ASN.1 DER, lowercase hex, low-S:
 *   servers accept either half, and low S also satisfies strict verifiers.
 * - ED25519: raw 64-byte signature over the body bytes themselves (ed25519 hashes
 *   internally), lowercase hex.
 *
 * Signing runs in `node:crypto` (`node-signer.ts`; ECDSA signatures are then randomized, as
 * the official Node stamper's are). Where Node.js cannot load the curve, the pure-JS curves
 * sign instead: the digest is computed here and handed to noble with `prehash: false`, so the
 * body is hashed exactly once whatever noble's default (1.x does not prehash, 2.x does), and
 * those signatures are deterministic (RFC 6979).
 */
import { ed25519 } from "@noble/curves/ed25519";
import { p256 } from "@noble/curves/p256";
import { secp256k1 } from "@noble/curves/secp256k1";
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import { base64urlnopad } from "@scure/base";
import type { ApiKeyCurve, StampScheme } from "../wire/enums";
import { InvalidApiKeyError } from "./errors";
import { DEFAULT_API_KEY_CURVE, parsePrivateKey, publicKeyBytes, schemeForCurve } from "./keys";
import { nodeSigner, type MessageSigner } from "./node-signer";
import type { StampHeader, Stamper } from "./stamper";

/** Name of the API key stamp header. */
export const STAMP_HEADER_NAME = "X-Stamp";

/** Constructor options of {@link ApiKeyStamper}. */
export interface ApiKeyStamperOptions {
  /** Public key hex as registered on the server (compressed SEC1, or 32 bytes for ed25519). */
  apiPublicKey: string;
  /** Private key hex, 64 characters. Secret: never appears in errors. */
  apiPrivateKey: string;
  /** Defaults to `API_KEY_CURVE_P256`. */
  curve?: ApiKeyCurve | undefined;
}

/** The JSON object carried (base64url-encoded) in the `X-Stamp` header. */
export interface StampPayload {
  publicKey: string;
  scheme: StampScheme;
  signature: string;
}

/**
 * A {@link Stamper} for API keys on P-256 (default), SECP256K1 or ED25519.
 *
 * @example
 * const stamper = new ApiKeyStamper({ apiPublicKey, apiPrivateKey });
 * const { name, value } = stamper.stamp(body); // name === "X-Stamp"
 */
export class ApiKeyStamper implements Stamper {
  /** The key's public half, lowercase hex, exactly as it is sent in each stamp. */
  readonly publicKey: string;
  readonly curve: ApiKeyCurve;
  readonly scheme: StampScheme;
  // An ES private field: not enumerable, not shown by util.inspect or JSON.stringify.
  readonly #privateKey: Uint8Array;
  /** The `node:crypto` signer of the key, when Node.js supports its curve. */
  readonly #nodeSign: MessageSigner | undefined;

  /**
   * @throws {TypeError} naming `curve` for an unknown curve; {@link InvalidApiKeyError} naming `apiPrivateKey` for a malformed
   *   or out-of-range key (the key is never printed), or `apiPublicKey` when the public key is
   *   malformed or does not belong to the private key
   */
  constructor(options: ApiKeyStamperOptions) {
    const curve = options.curve ?? DEFAULT_API_KEY_CURVE;
    this.scheme = schemeForCurve(curve);
    this.curve = curve;
    this.#privateKey = privateKeyOf(options.apiPrivateKey, curve);

    const expected = bytesToHex(publicKeyBytes(this.#privateKey, curve));
    const given = options.apiPublicKey;
    if (typeof given !== "string" || !/^[0-9a-fA-F]+$/.test(given)) {
      throw new InvalidApiKeyError("apiPublicKey must be a hex string", "apiPublicKey");
    }
    // Hex case is not significant; the stamp carries the canonical lowercase form.
    if (given.toLowerCase() !== expected) {
      throw new InvalidApiKeyError(
        `apiPublicKey does not match apiPrivateKey on ${curve}: the private key's public key is ${expected}` +
          (curve === "API_KEY_CURVE_ED25519" ? "" : " (compressed SEC1)"),
        "apiPublicKey",
      );
    }
    this.publicKey = expected;
    this.#nodeSign = nodeSigner(this.#privateKey, curve);
  }

  /** Signs `body` (the exact string that will be sent) and returns the `X-Stamp` header. */
  stamp(body: string): StampHeader {
    if (typeof body !== "string") throw new TypeError("body must be a string");
    const payload: StampPayload = {
      publicKey: this.publicKey,
      scheme: this.scheme,
      signature: this.sign(utf8ToBytes(body)),
    };
    // Object literal order fixes the JSON key order: publicKey, scheme, signature.
    const json = JSON.stringify(payload);
    return { name: STAMP_HEADER_NAME, value: base64urlnopad.encode(utf8ToBytes(json)) };
  }

  /** Signature hex over the body bytes, in the scheme's encoding. */
  private sign(message: Uint8Array): string {
    if (this.#nodeSign) return this.#nodeSign(message);
    return this.signPureJs(message);
  }

  /** The pure-JS signature (deterministic for ECDSA), for curves Node.js cannot load. */
  private signPureJs(message: Uint8Array): string {
    switch (this.curve) {
      case "API_KEY_CURVE_P256":
        return p256.sign(sha256(message), this.#privateKey, { prehash: false, lowS: true }).toDERHex();
      case "API_KEY_CURVE_SECP256K1":
        return secp256k1.sign(sha256(message), this.#privateKey, { prehash: false, lowS: true }).toDERHex();
      case "API_KEY_CURVE_ED25519":
        return bytesToHex(ed25519.sign(message, this.#privateKey));
    }
  }
}

/** The private key's bytes; a key `parsePrivateKey` refuses is an {@link InvalidApiKeyError} (same message: it never holds the key). */
function privateKeyOf(apiPrivateKey: string, curve: ApiKeyCurve): Uint8Array {
  try {
    return parsePrivateKey(apiPrivateKey, curve, "apiPrivateKey");
  } catch (error) {
    if (error instanceof TypeError) throw new InvalidApiKeyError(error.message, "apiPrivateKey", { cause: error });
    throw error;
  }
}
