// Compatibility with the official packages, both ways: official stamps verify here, and
// our stamps verify with the official verifier.
import { ApiKeyStamper as OfficialStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair, verifyStampSignature } from "@turnkey/crypto";
import { ed25519 } from "@noble/curves/ed25519";
import { p256 } from "@noble/curves/p256";
import { secp256k1 } from "@noble/curves/secp256k1";
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils";
import { describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { lowSDer } from "../../sdk/protocol/node-signer";
import { verifyStamp } from "../../sdk/protocol/verify-stamp";

const BODY = JSON.stringify({
  type: "ACTIVITY_TYPE_CREATE_POLICY_V3",
  timestampMs: "1718000000000",
  organizationId: "4b8c3f2e-1f0e-4a53-9a59-0f4f7c6f2d11",
  parameters: { policyName: "allow ops ✓", effect: "EFFECT_ALLOW", condition: "activity.type == 'X'" },
});

function decode(value: string): { publicKey: string; scheme: string; signature: string } {
  return JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as {
    publicKey: string;
    scheme: string;
    signature: string;
  };
}

describe("official @turnkey/api-key-stamper → verifyStamp", () => {
  const pair = generateP256KeyPair();

  // Under Node the official stamper picks its "node" runtime (crypto.createSign); the other
  // two variants are forced with runtimeOverride.
  for (const runtime of [undefined, "node", "browser", "purejs"] as const) {
    it(`runtime ${runtime ?? "auto-detected"}`, async () => {
      const official = new OfficialStamper({
        apiPublicKey: pair.publicKey,
        apiPrivateKey: pair.privateKey,
        ...(runtime ? { runtimeOverride: runtime } : {}),
      });
      for (let i = 0; i < 4; i++) {
        const body = BODY.replace("1718000000000", String(1718000000000 + i));
        const { stampHeaderName, stampHeaderValue } = await official.stamp(body);
        expect(stampHeaderName).toBe("X-Stamp");
        expect(verifyStamp(stampHeaderValue, body)).toEqual({
          publicKey: pair.publicKey,
          scheme: "SIGNATURE_SCHEME_TK_API_P256",
          curve: "API_KEY_CURVE_P256",
        });
        expect(() => verifyStamp(stampHeaderValue, body + " ")).toThrow(/does not match/);
      }
    });
  }

  it("accepts the official Node stamper's high-S signatures", async () => {
    // Node's createSign does not normalise S: about half its signatures are high-S. Stamp
    // until one is (64 tries: the chance of never seeing one is 2^-64).
    const official = new OfficialStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey, runtimeOverride: "node" });
    let found: { body: string; value: string } | undefined;
    for (let i = 0; i < 64 && !found; i++) {
      const body = BODY.replace("1718000000000", String(1718000000100 + i));
      const { stampHeaderValue } = await official.stamp(body);
      if (p256.Signature.fromDER(decode(stampHeaderValue).signature).hasHighS()) found = { body, value: stampHeaderValue };
    }
    expect(found).toBeDefined();
    expect(verifyStamp(found!.value, found!.body).publicKey).toBe(pair.publicKey);
  });
});

describe("ApiKeyStamper → official verifier and header format", () => {
  it("@turnkey/crypto verifyStampSignature accepts our signature", async () => {
    const pair = generateApiKeyPair("API_KEY_CURVE_P256");
    const { value } = new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }).stamp(BODY);
    const stamp = decode(value);
    expect(stamp.publicKey).toBe(pair.publicKey);
    expect(await verifyStampSignature(stamp.publicKey, stamp.signature, BODY)).toBe(true);
    expect(await verifyStampSignature(stamp.publicKey, stamp.signature, BODY + " ")).toBe(false);
  });

  it("emits the official stamper's header format for the same key and body: key order, public key, scheme, DER low-S signature", async () => {
    // Our signatures come from node:crypto (randomized, like the official Node stamper's), so
    // the signature bytes differ from stamp to stamp; everything else is the same, and both
    // signatures verify with the official verifier.
    const pair = generateP256KeyPair();
    const stamper = new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey });
    for (const runtime of ["purejs", "node"] as const) {
      const theirs = decode(
        (await new OfficialStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey, runtimeOverride: runtime }).stamp(BODY)).stampHeaderValue,
      );
      for (let i = 0; i < 16; i++) {
        const ours = decode(stamper.stamp(BODY).value);
        expect(Object.keys(ours)).toEqual(Object.keys(theirs));
        expect(ours.publicKey).toBe(theirs.publicKey);
        expect(ours.scheme).toBe(theirs.scheme);
        expect(ours.signature).toMatch(/^30[0-9a-f]+$/);
        const signature = p256.Signature.fromDER(ours.signature);
        expect(signature.hasHighS()).toBe(false);
        expect(signature.toDERHex()).toBe(ours.signature);
        expect(await verifyStampSignature(ours.publicKey, ours.signature, BODY)).toBe(true);
        expect(await verifyStampSignature(theirs.publicKey, theirs.signature, BODY)).toBe(true);
      }
    }
  });
});

describe("node:crypto signing", () => {
  it("lowSDer normalizes exactly as noble's normalizeS, and leaves low-S signatures untouched", () => {
    for (const [curve, impl] of [["API_KEY_CURVE_P256", p256], ["API_KEY_CURVE_SECP256K1", secp256k1]] as const) {
      const pair = generateApiKeyPair(curve);
      let high = 0;
      for (let i = 0; i < 64; i++) {
        // noble without lowS: about half of these are high-S.
        const raw = impl.sign(sha256(new TextEncoder().encode(`m${i}`)), hexToBytes(pair.privateKey), { lowS: false, prehash: false });
        if (raw.hasHighS()) high++;
        expect(lowSDer(raw.toDERRawBytes(), impl.CURVE.n)).toBe(raw.normalizeS().toDERHex());
      }
      expect(high).toBeGreaterThan(0);
    }
  });

  it("P-256 and secp256k1 stamps verify with noble (strict low-S) and verifyStamp; ed25519 stamps are byte-identical to noble's", () => {
    for (const curve of ["API_KEY_CURVE_P256", "API_KEY_CURVE_SECP256K1", "API_KEY_CURVE_ED25519"] as const) {
      const pair = generateApiKeyPair(curve);
      const stamper = new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey, curve });
      for (let i = 0; i < 8; i++) {
        const body = BODY.replace("1718000000000", String(1718000000000 + i));
        const stamp = decode(stamper.stamp(body).value);
        expect(verifyStamp(stamper.stamp(body).value, body)).toEqual({ publicKey: pair.publicKey, scheme: stamper.scheme, curve });
        const message = new TextEncoder().encode(body);
        if (curve === "API_KEY_CURVE_ED25519") {
          expect(stamp.signature).toBe(bytesToHex(ed25519.sign(message, hexToBytes(pair.privateKey))));
        } else {
          const impl = curve === "API_KEY_CURVE_P256" ? p256 : secp256k1;
          expect(impl.verify(stamp.signature, sha256(message), pair.publicKey, { prehash: false, lowS: true, format: "der" })).toBe(true);
        }
      }
    }
  });
});
