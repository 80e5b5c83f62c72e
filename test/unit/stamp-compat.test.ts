// Compatibility with the official packages, both ways: official stamps verify here, and
// our stamps verify with the official verifier.
import { ApiKeyStamper as OfficialStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair, verifyStampSignature } from "@turnkey/crypto";
import { p256 } from "@noble/curves/p256";
import { describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/client/api-key-stamper";
import { generateApiKeyPair } from "../../sdk/client/keys";
import { verifyStamp } from "../../sdk/client/verify-stamp";

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

  it("emits the same header as the official purejs stamper for the same key and body", async () => {
    // Both sign deterministically (RFC 6979) with noble; the official purejs path does not
    // normalise S, ours does, so compare after normalising.
    const pair = generateP256KeyPair();
    const ours = decode(new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }).stamp(BODY).value);
    const theirs = decode(
      (await new OfficialStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey, runtimeOverride: "purejs" }).stamp(BODY))
        .stampHeaderValue,
    );
    expect(Object.keys(ours)).toEqual(Object.keys(theirs));
    expect(ours.publicKey).toBe(theirs.publicKey);
    expect(ours.scheme).toBe(theirs.scheme);
    expect(ours.signature).toBe(p256.Signature.fromDER(theirs.signature).normalizeS().toDERHex());
  });
});
