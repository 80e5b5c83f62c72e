/**
 * @module emulator/wallets/hd
 * Hierarchical deterministic key derivation from a seed, one algorithm for the three curves:
 * BIP-32 on secp256k1, the same scheme over NIST P-256, and SLIP-10 on ed25519 (hardened
 * children only). SLIP-10 defines all three; the master-key HMAC keys are "Bitcoin seed",
 * "Nist256p1 seed" and "ed25519 seed".
 */
import { ed25519 } from "@noble/curves/ed25519";
import { p256 } from "@noble/curves/nist";
import { secp256k1 } from "@noble/curves/secp256k1";
import { hmac } from "@noble/hashes/hmac";
import { sha512 } from "@noble/hashes/sha2";
import { bytesToNumberBE, concatBytes, numberToBytesBE } from "@noble/curves/utils";
import type { Curve } from "keyform/wire/enums";
import { WalletDerivationError } from "./errors";
import { HARDENED_OFFSET, isHardened } from "./path";

/** A derived key pair. `publicKey` is compressed SEC1 (33 bytes) or, for ed25519, 32 bytes. */
export interface HdKey {
  privateKey: Uint8Array;
  publicKey: Uint8Array;
  chainCode: Uint8Array;
}

interface WeierstrassParams {
  kind: "weierstrass";
  hmacKey: string;
  order: bigint;
  compressedPublicKey(privateKey: Uint8Array): Uint8Array;
}

interface EdwardsParams {
  kind: "edwards";
  hmacKey: string;
}

const CURVES: Record<Curve, WeierstrassParams | EdwardsParams> = {
  CURVE_SECP256K1: {
    kind: "weierstrass",
    hmacKey: "Bitcoin seed",
    order: secp256k1.CURVE.n,
    compressedPublicKey: (k) => secp256k1.getPublicKey(k, true),
  },
  CURVE_P256: {
    kind: "weierstrass",
    hmacKey: "Nist256p1 seed",
    order: p256.CURVE.n,
    compressedPublicKey: (k) => p256.getPublicKey(k, true),
  },
  CURVE_ED25519: { kind: "edwards", hmacKey: "ed25519 seed" },
};

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

function ser32(index: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, index >>> 0, false);
  return out;
}

function split(digest: Uint8Array): [Uint8Array, Uint8Array] {
  return [digest.slice(0, 32), digest.slice(32)];
}

/** The curve parameters for `curve`. @throws WalletDerivationError (field `curve`) */
function paramsFor(curve: Curve): WeierstrassParams | EdwardsParams {
  const params = (CURVES as Partial<Record<string, WeierstrassParams | EdwardsParams>>)[curve];
  if (!params) {
    throw new WalletDerivationError(
      "curve",
      `curve must be one of ${Object.keys(CURVES).join(", ")}; got ${JSON.stringify(curve)}`,
    );
  }
  return params;
}

function publicKeyOf(params: WeierstrassParams | EdwardsParams, privateKey: Uint8Array): Uint8Array {
  return params.kind === "edwards" ? ed25519.getPublicKey(privateKey) : params.compressedPublicKey(privateKey);
}

/** Master key (SLIP-10 "master key generation"), retrying with I as the new seed on an invalid key. */
function masterKey(params: WeierstrassParams | EdwardsParams, seed: Uint8Array): [Uint8Array, Uint8Array] {
  let digest = hmac(sha512, utf8(params.hmacKey), seed);
  for (;;) {
    const [il, ir] = split(digest);
    if (params.kind === "edwards") return [il, ir];
    const k = bytesToNumberBE(il);
    if (k !== 0n && k < params.order) return [il, ir];
    digest = hmac(sha512, utf8(params.hmacKey), digest);
  }
}

/** CKDpriv with SLIP-10's retry rule (0x01 || I_R || ser32(i)) for an invalid child key. */
function childKey(
  params: WeierstrassParams | EdwardsParams,
  parentKey: Uint8Array,
  chainCode: Uint8Array,
  index: number,
): [Uint8Array, Uint8Array] {
  const data = isHardened(index)
    ? concatBytes(new Uint8Array([0]), parentKey, ser32(index))
    : concatBytes(publicKeyOf(params, parentKey), ser32(index));
  let digest = hmac(sha512, chainCode, data);
  for (;;) {
    const [il, ir] = split(digest);
    if (params.kind === "edwards") return [il, ir];
    const tweak = bytesToNumberBE(il);
    const child = (tweak + bytesToNumberBE(parentKey)) % params.order;
    if (tweak < params.order && child !== 0n) return [numberToBytesBE(child, 32), ir];
    digest = hmac(sha512, chainCode, concatBytes(new Uint8Array([1]), ir, ser32(index)));
  }
}

/**
 * Checks that `indexes` can be derived on `curve`: SLIP-10 ed25519 has hardened children only.
 * @throws WalletDerivationError (field `path`) naming the first non-hardened segment
 */
export function assertDerivable(curve: Curve, indexes: readonly number[]): void {
  if (paramsFor(curve).kind !== "edwards") return;
  const position = indexes.findIndex((index) => !isHardened(index));
  if (position >= 0) {
    throw new WalletDerivationError(
      "path",
      `path segment ${position + 1} (${String(indexes[position])}) is not hardened; ` +
        `CURVE_ED25519 (SLIP-10) derives hardened children only, e.g. m/44'/501'/0'/0'`,
    );
  }
}

/**
 * Derives the key at `indexes` (from `parseDerivationPath`) below the master key of `seed`.
 * @param seed 16 to 64 bytes (a BIP-39 seed is 64)
 * @throws WalletDerivationError field `seed` for a seed of the wrong size, `curve` for an
 *   unknown curve, `path` for a non-hardened index on ed25519
 */
export function deriveHdKey(seed: Uint8Array, curve: Curve, indexes: readonly number[]): HdKey {
  if (!(seed instanceof Uint8Array) || seed.length < 16 || seed.length > 64) {
    throw new WalletDerivationError("seed", "seed must be 16 to 64 bytes long");
  }
  const params = paramsFor(curve);
  assertDerivable(curve, indexes);
  let [key, chainCode] = masterKey(params, seed);
  for (const index of indexes) {
    if (!Number.isInteger(index) || index < 0 || index >= 2 * HARDENED_OFFSET) {
      throw new WalletDerivationError("path", `path index ${String(index)} is out of range`);
    }
    [key, chainCode] = childKey(params, key, chainCode, index);
  }
  return { privateKey: key, publicKey: publicKeyOf(params, key), chainCode };
}
