import { ed25519 } from "@noble/curves/ed25519";
import { p256 } from "@noble/curves/p256";
import { secp256k1 } from "@noble/curves/secp256k1";
import { hexToBytes } from "@noble/hashes/utils";
import { getPublicKey as officialP256PublicKey } from "@turnkey/crypto";
import { describe, expect, it } from "vitest";
import {
  credentialTypeForCurve,
  curveForScheme,
  ecdsaPublicKey,
  generateApiKeyPair,
  publicKeyFromPrivateKey,
  schemeForCurve,
} from "../../sdk/protocol/keys";
import { ApiKeyCurve, CredentialType, StampScheme } from "../../sdk/wire/enums";

describe("generateApiKeyPair", () => {
  it("defaults to P-256 with a 32-byte scalar and a compressed SEC1 public key", () => {
    const pair = generateApiKeyPair();
    expect(pair.curve).toBe("API_KEY_CURVE_P256");
    expect(pair.privateKey).toMatch(/^[0-9a-f]{64}$/);
    expect(pair.publicKey).toMatch(/^0[23][0-9a-f]{64}$/);
    // The point is on P-256 and belongs to the scalar (checked with the official helper too).
    expect(() => p256.Point.fromHex(pair.publicKey).assertValidity()).not.toThrow();
    expect(Buffer.from(officialP256PublicKey(pair.privateKey, true)).toString("hex")).toBe(pair.publicKey);
  });

  it("SECP256K1: compressed SEC1 public key on secp256k1", () => {
    const pair = generateApiKeyPair("API_KEY_CURVE_SECP256K1");
    expect(pair.privateKey).toMatch(/^[0-9a-f]{64}$/);
    expect(pair.publicKey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(Buffer.from(secp256k1.getPublicKey(hexToBytes(pair.privateKey), true)).toString("hex")).toBe(pair.publicKey);
  });

  it("ED25519: 32-byte seed and 32-byte public key", () => {
    const pair = generateApiKeyPair("API_KEY_CURVE_ED25519");
    expect(pair.privateKey).toMatch(/^[0-9a-f]{64}$/);
    expect(pair.publicKey).toMatch(/^[0-9a-f]{64}$/);
    expect(Buffer.from(ed25519.getPublicKey(hexToBytes(pair.privateKey))).toString("hex")).toBe(pair.publicKey);
  });

  it("makes a different key each time", () => {
    expect(generateApiKeyPair().privateKey).not.toBe(generateApiKeyPair().privateKey);
  });

  it("rejects an unknown curve", () => {
    expect(() => generateApiKeyPair("CURVE_SECP256K1" as ApiKeyCurve)).toThrow(/curve must be one of/);
  });
});

describe("publicKeyFromPrivateKey", () => {
  it("matches the generated public key on every curve, in either hex case", () => {
    for (const curve of ApiKeyCurve.options) {
      const pair = generateApiKeyPair(curve);
      expect(publicKeyFromPrivateKey(pair.privateKey, curve)).toBe(pair.publicKey);
      expect(publicKeyFromPrivateKey(pair.privateKey.toUpperCase(), curve)).toBe(pair.publicKey);
    }
  });

  it("rejects malformed and out-of-range keys without printing them", () => {
    const n = p256.CURVE.n.toString(16);
    for (const bad of ["", "abc", "g".repeat(64), "00".repeat(32), n, "aa".repeat(33)]) {
      let message = "";
      try {
        publicKeyFromPrivateKey(bad, "API_KEY_CURVE_P256");
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/privateKeyHex/);
      if (bad.length > 3) expect(message).not.toContain(bad);
    }
    // secp256k1's order differs from P-256's: n(secp256k1) itself is out of range there.
    expect(() => publicKeyFromPrivateKey(secp256k1.CURVE.n.toString(16), "API_KEY_CURVE_SECP256K1")).toThrow(/secp256k1/);
  });
});

describe("ecdsaPublicKey", () => {
  const scalarBytes = (value: bigint) => hexToBytes(value.toString(16).padStart(64, "0"));

  it("derives the same points as the pure-JS curves, compressed and not, edge scalars included", () => {
    for (const [curve, impl] of [
      ["API_KEY_CURVE_P256", p256],
      ["API_KEY_CURVE_SECP256K1", secp256k1],
    ] as const) {
      const n = impl.CURVE.n;
      // 1 and n-1, a scalar whose first bytes are zero, and random ones.
      const scalars = [1n, n - 1n, 0x1234n << 100n, ...Array.from({ length: 16 }, () => BigInt(`0x${Buffer.from(impl.utils.randomSecretKey()).toString("hex")}`))];
      for (const scalar of scalars) {
        const bytes = scalarBytes(scalar);
        expect(Buffer.from(ecdsaPublicKey(bytes, curve, true)).toString("hex")).toBe(Buffer.from(impl.getPublicKey(bytes, true)).toString("hex"));
        expect(Buffer.from(ecdsaPublicKey(bytes, curve, false)).toString("hex")).toBe(Buffer.from(impl.getPublicKey(bytes, false)).toString("hex"));
      }
    }
  });
});

describe("curve names", () => {
  it("maps every curve to its credential type and stamp scheme, and back", () => {
    expect(ApiKeyCurve.options.map((c) => [credentialTypeForCurve(c), schemeForCurve(c)])).toEqual([
      ["CREDENTIAL_TYPE_API_KEY_P256", "SIGNATURE_SCHEME_TK_API_P256"],
      ["CREDENTIAL_TYPE_API_KEY_SECP256K1", "SIGNATURE_SCHEME_TK_API_SECP256K1"],
      ["CREDENTIAL_TYPE_API_KEY_ED25519", "SIGNATURE_SCHEME_TK_API_ED25519"],
    ]);
    for (const curve of ApiKeyCurve.options) {
      expect(CredentialType.options).toContain(credentialTypeForCurve(curve));
      expect(curveForScheme(schemeForCurve(curve))).toBe(curve);
    }
    expect(StampScheme.options).toContain("SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191");
    expect(curveForScheme("SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191")).toBeUndefined();
    expect(curveForScheme("nope")).toBeUndefined();
  });
});
