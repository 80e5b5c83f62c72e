import { p256 } from "@noble/curves/p256";
import { secp256k1 } from "@noble/curves/secp256k1";
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils";
import { describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { generateApiKeyPair, schemeForCurve } from "../../sdk/protocol/keys";
import {
  nobleVerifier,
  opensslVerifier,
  parsePublicKey,
  StampVerificationError,
  verifyStamp,
  type StampFailureReason,
} from "../../sdk/protocol/verify-stamp";
import type { ApiKeyCurve } from "../../sdk/wire/enums";

const CURVES: ApiKeyCurve[] = ["API_KEY_CURVE_P256", "API_KEY_CURVE_SECP256K1", "API_KEY_CURVE_ED25519"];

const BODY = JSON.stringify({
  type: "ACTIVITY_TYPE_CREATE_USER_TAG",
  timestampMs: "1718000000000",
  organizationId: "4b8c3f2e-1f0e-4a53-9a59-0f4f7c6f2d11",
  parameters: { userTagName: "ops-é✓", userIds: [] },
});

function decode(value: string): Record<string, string> {
  return JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as Record<string, string>;
}

function encode(payload: unknown, padded = false): string {
  const b64 = Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
  return padded ? b64 + "=".repeat((4 - (b64.length % 4)) % 4) : b64;
}

function expectRejected(
  fn: () => unknown,
  reason: StampFailureReason | StampFailureReason[],
): StampVerificationError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(StampVerificationError);
    expect(Array.isArray(reason) ? reason : [reason]).toContain((err as StampVerificationError).reason);
    return err as StampVerificationError;
  }
  throw new Error(`expected a ${reason} rejection`);
}

describe("ApiKeyStamper + verifyStamp round trip", () => {
  for (const curve of CURVES) {
    describe(curve, () => {
      const pair = generateApiKeyPair(curve);
      const stamper = new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey, curve });

      it("emits X-Stamp with the documented JSON, key order and unpadded base64url", () => {
        const header = stamper.stamp(BODY);
        expect(header.name).toBe("X-Stamp");
        expect(header.value).toMatch(/^[A-Za-z0-9_-]+$/);
        const json = Buffer.from(header.value, "base64url").toString("utf8");
        const stamp = decode(header.value);
        expect(json).toBe(
          `{"publicKey":"${pair.publicKey}","scheme":"${schemeForCurve(curve)}","signature":"${stamp.signature}"}`,
        );
        expect(stamp.signature).toMatch(/^[0-9a-f]+$/);
        if (curve === "API_KEY_CURVE_ED25519") {
          expect(stamp.signature).toHaveLength(128);
        } else {
          expect(stamp.signature).toMatch(/^30[0-9a-f]{2}02/); // DER SEQUENCE of INTEGERs
        }
      });

      it("verifies over the string and over its UTF-8 bytes", () => {
        const { value } = stamper.stamp(BODY);
        const expected = { publicKey: pair.publicKey, scheme: schemeForCurve(curve), curve };
        expect(verifyStamp(value, BODY)).toEqual(expected);
        expect(verifyStamp(value, new TextEncoder().encode(BODY))).toEqual(expected);
      });

      it("rejects a tampered body", () => {
        const { value } = stamper.stamp(BODY);
        const err = expectRejected(() => verifyStamp(value, BODY.replace("ops", "opz")), "signature_mismatch");
        expect(err.publicKey).toBe(pair.publicKey);
        expect(err.message).not.toContain(value);
        expectRejected(() => verifyStamp(value, BODY + " "), "signature_mismatch");
      });

      it("rejects a signature checked against another key", () => {
        const other = generateApiKeyPair(curve);
        const stamp = decode(stamper.stamp(BODY).value);
        expectRejected(() => verifyStamp(encode({ ...stamp, publicKey: other.publicKey }), BODY), "signature_mismatch");
      });

      it("accepts padded base64url", () => {
        const padded = encode(decode(stamper.stamp(BODY).value), true);
        expect(verifyStamp(padded, BODY).publicKey).toBe(pair.publicKey);
      });
    });
  }

  it("signs SHA-256(body) exactly once (P-256 and secp256k1)", () => {
    for (const [curve, impl] of [
      ["API_KEY_CURVE_P256", p256],
      ["API_KEY_CURVE_SECP256K1", secp256k1],
    ] as const) {
      const pair = generateApiKeyPair(curve);
      const stamp = decode(new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey, curve }).stamp(BODY).value);
      const digest = sha256(new TextEncoder().encode(BODY));
      const pub = hexToBytes(pair.publicKey);
      expect(impl.verify(hexToBytes(stamp.signature!), digest, pub, { prehash: false, format: "der" })).toBe(true);
      expect(impl.verify(hexToBytes(stamp.signature!), sha256(digest), pub, { prehash: false, format: "der" })).toBe(false);
    }
  });
});

describe("verifyStamp rejections", () => {
  const pair = generateApiKeyPair("API_KEY_CURVE_P256");
  const stamper = new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey });
  const good = stamper.stamp(BODY).value;
  const stamp = decode(good);

  it("rejects a scheme that does not match the key's curve", () => {
    // A P-256 x coordinate is a secp256k1 point about half the time: either way it fails.
    const err = expectRejected(
      () => verifyStamp(encode({ ...stamp, scheme: "SIGNATURE_SCHEME_TK_API_SECP256K1" }), BODY),
      ["signature_mismatch", "bad_public_key"],
    );
    expect(err.message).toContain("secp256k1");
    expectRejected(() => verifyStamp(encode({ ...stamp, scheme: "SIGNATURE_SCHEME_TK_API_ED25519" }), BODY), "bad_public_key");
  });

  it("rejects unknown and wallet-only schemes", () => {
    const err = expectRejected(() => verifyStamp(encode({ ...stamp, scheme: "SIGNATURE_SCHEME_NOPE" }), BODY), "unknown_scheme");
    expect(err.message).toContain("SIGNATURE_SCHEME_NOPE");
    expectRejected(
      () => verifyStamp(encode({ ...stamp, scheme: "SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191" }), BODY),
      "unsupported_scheme",
    );
  });

  it("rejects truncated and garbled headers as malformed", () => {
    expectRejected(() => verifyStamp(good.slice(0, good.length - 10), BODY), "malformed");
    expectRejected(() => verifyStamp(good.slice(0, 1), BODY), "malformed");
    expectRejected(() => verifyStamp("", BODY), "malformed");
    expectRejected(() => verifyStamp(good.replace(/[A-Z]/, "+"), BODY), "malformed");
    expectRejected(() => verifyStamp(JSON.stringify(stamp), BODY), "malformed"); // plain JSON, not base64url
    expectRejected(() => verifyStamp(encode([stamp]), BODY), "malformed");
    expectRejected(() => verifyStamp(encode({ scheme: stamp.scheme, signature: stamp.signature }), BODY), "malformed");
    expectRejected(() => verifyStamp(encode({ ...stamp, signature: 42 }), BODY), "malformed");
    expectRejected(() => verifyStamp("A".repeat(5000), BODY), "malformed");
  });

  it("rejects bad public keys and bad signature encodings", () => {
    expectRejected(() => verifyStamp(encode({ ...stamp, publicKey: "zz" + pair.publicKey.slice(2) }), BODY), "bad_public_key");
    expectRejected(() => verifyStamp(encode({ ...stamp, publicKey: pair.publicKey.slice(0, 64) }), BODY), "bad_public_key");
    // x = 2^256 - 1 is larger than the field prime: not a point.
    expectRejected(() => verifyStamp(encode({ ...stamp, publicKey: "02" + "ff".repeat(32) }), BODY), "bad_public_key");
    expectRejected(() => verifyStamp(encode({ ...stamp, signature: stamp.signature!.slice(0, -2) }), BODY), "bad_signature");
    expectRejected(() => verifyStamp(encode({ ...stamp, signature: stamp.signature + "00" }), BODY), "bad_signature");
    expectRejected(() => verifyStamp(encode({ ...stamp, signature: "xyz" }), BODY), "bad_signature");
  });

  it("accepts a high-S signature on P-256 and secp256k1", () => {
    for (const [curve, impl] of [
      ["API_KEY_CURVE_P256", p256],
      ["API_KEY_CURVE_SECP256K1", secp256k1],
    ] as const) {
      const kp = generateApiKeyPair(curve);
      const low = impl.sign(sha256(new TextEncoder().encode(BODY)), hexToBytes(kp.privateKey), { prehash: false, lowS: true });
      const high = new impl.Signature(low.r, impl.CURVE.n - low.s);
      expect(high.hasHighS()).toBe(true);
      const header = encode({ publicKey: kp.publicKey, scheme: schemeForCurve(curve), signature: high.toDERHex() });
      expect(verifyStamp(header, BODY)).toEqual({ publicKey: kp.publicKey, scheme: schemeForCurve(curve), curve });
      expectRejected(() => verifyStamp(header, BODY + "x"), "signature_mismatch");
    }
  });

  it("accepts upper-case hex and an uncompressed public key, reporting lowercase", () => {
    const upper = encode({ ...stamp, publicKey: stamp.publicKey!.toUpperCase(), signature: stamp.signature!.toUpperCase() });
    expect(verifyStamp(upper, BODY).publicKey).toBe(pair.publicKey);
    const uncompressed = bytesToHex(p256.getPublicKey(hexToBytes(pair.privateKey), false));
    expect(verifyStamp(encode({ ...stamp, publicKey: uncompressed }), BODY).publicKey).toBe(uncompressed);
  });
});

describe("OpenSSL and noble verifiers agree", () => {
  for (const curve of CURVES) {
    it(curve, () => {
      const kp = generateApiKeyPair(curve);
      const pub = parsePublicKey(curve, kp.publicKey);
      const openssl = opensslVerifier(curve, pub);
      expect(openssl).toBeDefined(); // Node's OpenSSL has all three curves
      const noble = nobleVerifier(curve, pub);
      const stamp = decode(new ApiKeyStamper({ apiPublicKey: kp.publicKey, apiPrivateKey: kp.privateKey, curve }).stamp(BODY).value);
      const sig = hexToBytes(stamp.signature!);
      const body = new TextEncoder().encode(BODY);
      const tampered = new TextEncoder().encode(BODY + " ");
      expect([openssl!(sig, body), noble(sig, body)]).toEqual([true, true]);
      expect([openssl!(sig, tampered), noble(sig, tampered)]).toEqual([false, false]);
      if (curve !== "API_KEY_CURVE_ED25519") {
        const impl = curve === "API_KEY_CURVE_P256" ? p256 : secp256k1;
        const parsed = impl.Signature.fromDER(sig);
        const flipped = new impl.Signature(parsed.r, impl.CURVE.n - parsed.s).toDERRawBytes();
        expect([openssl!(flipped, body), noble(flipped, body)]).toEqual([true, true]);
      }
    });
  }
});

describe("ApiKeyStamper construction", () => {
  const pair = generateApiKeyPair();

  it("rejects a malformed or out-of-range private key, naming apiPrivateKey but never printing it", () => {
    for (const apiPrivateKey of [pair.privateKey.slice(2), "zz" + pair.privateKey.slice(2), "00".repeat(32), "ff".repeat(32)]) {
      let caught: unknown;
      try {
        new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey });
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(TypeError);
      expect((caught as Error).message).toContain("apiPrivateKey");
      expect((caught as Error).message).not.toContain(apiPrivateKey);
    }
  });

  it("rejects a public key that does not belong to the private key", () => {
    const other = generateApiKeyPair();
    expect(() => new ApiKeyStamper({ apiPublicKey: other.publicKey, apiPrivateKey: pair.privateKey })).toThrow(
      /apiPublicKey does not match apiPrivateKey/,
    );
    // Same key on another curve does not match either.
    expect(
      () => new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey, curve: "API_KEY_CURVE_SECP256K1" }),
    ).toThrow(/apiPublicKey/);
  });

  it("rejects an unknown curve", () => {
    expect(
      () => new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey, curve: "CURVE_P256" as ApiKeyCurve }),
    ).toThrow(/curve must be one of/);
  });

  it("keeps the private key out of JSON and inspection", async () => {
    const stamper = new ApiKeyStamper({ apiPublicKey: pair.publicKey.toUpperCase(), apiPrivateKey: pair.privateKey });
    expect(stamper.publicKey).toBe(pair.publicKey);
    const { inspect } = await import("node:util");
    expect(JSON.stringify(stamper)).not.toContain(pair.privateKey);
    expect(inspect(stamper, { showHidden: true, depth: 5 })).not.toMatch(/privateKey/i);
  });
});
