/**
 * @module protocol/node-signer
 * Signs stamp messages with `node:crypto` (OpenSSL), which is several times faster than the
 * pure-JS curves: at hundreds of requests per second, signing was a fifth of the provider's
 * CPU. The stamp format does not change (DER hex for ECDSA, raw hex for ed25519); only where
 * the signature is computed.
 *
 * OpenSSL's ECDSA signatures are randomized (a fresh nonce per signature) and may be high-S;
 * S is normalized to the low half here, as the pure-JS path did, so strict verifiers accept
 * every stamp. Returns `undefined` when this Node.js build cannot load a curve, so the caller
 * falls back to the pure-JS implementation.
 */
import { createPrivateKey, sign, type KeyObject } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519";
import { p256 } from "@noble/curves/p256";
import { secp256k1 } from "@noble/curves/secp256k1";
import type { ApiKeyCurve } from "../wire/enums";
import { ecdsaPublicKey } from "./keys";

/** Signs a message (the exact body bytes) and returns the signature hex. */
export type MessageSigner = (message: Uint8Array) => string;

/** JWK names and group orders of the ECDSA curves. */
const ECDSA = {
  API_KEY_CURVE_P256: { crv: "P-256", curve: p256 },
  API_KEY_CURVE_SECP256K1: { crv: "secp256k1", curve: secp256k1 },
} as const;

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

/** A `node:crypto` signer for `privateKey` on `curve`, or `undefined` when Node cannot do it. */
export function nodeSigner(privateKey: Uint8Array, curve: ApiKeyCurve): MessageSigner | undefined {
  try {
    if (curve === "API_KEY_CURVE_ED25519") {
      const key = createPrivateKey({ key: { kty: "OKP", crv: "Ed25519", d: b64url(privateKey), x: b64url(ed25519.getPublicKey(privateKey)) }, format: "jwk" });
      return (message) => sign(null, message, key).toString("hex");
    }
    const { crv, curve: impl } = ECDSA[curve];
    const point = ecdsaPublicKey(privateKey, curve, false);
    const key: KeyObject = createPrivateKey({
      key: { kty: "EC", crv, d: b64url(privateKey), x: b64url(point.subarray(1, 33)), y: b64url(point.subarray(33, 65)) },
      format: "jwk",
    });
    const order = impl.CURVE.n;
    return (message) => lowSDer(sign("sha256", message, { key, dsaEncoding: "der" }), order);
  } catch {
    return undefined;
  }
}

/**
 * The DER signature `der` (SEQUENCE of INTEGER r, INTEGER s) as lowercase hex, with S replaced
 * by `n - S` when it is in the high half. Only the short-form lengths of a 256-bit curve occur.
 */
export function lowSDer(der: Uint8Array, n: bigint): string {
  const rLength = der[3]!;
  const r = der.subarray(4, 4 + rLength);
  const sLength = der[5 + rLength]!;
  const sBytes = der.subarray(6 + rLength, 6 + rLength + sLength);
  const s = BigInt(`0x${Buffer.from(sBytes).toString("hex")}`);
  if (s <= n >> 1n) return Buffer.from(der).toString("hex");
  return derHex(r, integerBytes(n - s));
}

/** The minimal DER INTEGER contents of a positive `value`. */
function integerBytes(value: bigint): Uint8Array {
  let hex = value.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  // A set top bit would read as negative: DER prefixes a zero byte.
  if (parseInt(hex.slice(0, 2), 16) >= 0x80) hex = `00${hex}`;
  return Buffer.from(hex, "hex");
}

function derHex(r: Uint8Array, s: Uint8Array): string {
  const body = Buffer.concat([Buffer.from([0x02, r.length]), r, Buffer.from([0x02, s.length]), s]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]).toString("hex");
}
