import { p256 } from "@noble/curves/p256";
import { sha256 } from "@noble/hashes/sha2";
import { hexToBytes } from "@noble/hashes/utils";
import { describe, expect, it } from "vitest";
import { signClientMessage, verifyClientSignature } from "../../sdk/protocol/client-signature";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { ClientSignature as ClientSignatureSchema } from "../../sdk/wire/shared";

const MESSAGE = JSON.stringify({ login: "otp", publicKey: "02" + "ab".repeat(32), nonce: "n-1 ✓" });

describe("clientSignature (CLIENT_SIGNATURE_SCHEME_API_P256)", () => {
  const pair = generateApiKeyPair("API_KEY_CURVE_P256");

  it("produces a spec-shaped object: compressed key, DER hex over SHA-256(message)", () => {
    const sig = signClientMessage(MESSAGE, pair.privateKey);
    expect(ClientSignatureSchema.parse(sig)).toEqual(sig);
    expect(sig).toMatchObject({ publicKey: pair.publicKey, scheme: "CLIENT_SIGNATURE_SCHEME_API_P256", message: MESSAGE });
    expect(sig.signature).toMatch(/^30[0-9a-f]+$/);
    const digest = sha256(new TextEncoder().encode(MESSAGE));
    expect(p256.verify(hexToBytes(sig.signature), digest, hexToBytes(pair.publicKey), { prehash: false, format: "der" })).toBe(true);
    expect(verifyClientSignature(sig)).toBe(true);
  });

  it("rejects a changed message, another key, another scheme and garbage", () => {
    const sig = signClientMessage(MESSAGE, pair.privateKey);
    expect(verifyClientSignature({ ...sig, message: MESSAGE + " " })).toBe(false);
    expect(verifyClientSignature({ ...sig, publicKey: generateApiKeyPair().publicKey })).toBe(false);
    expect(verifyClientSignature({ ...sig, scheme: "SIGNATURE_SCHEME_TK_API_P256" as never })).toBe(false);
    expect(verifyClientSignature({ ...sig, signature: "zz" })).toBe(false);
    expect(verifyClientSignature({ ...sig, publicKey: "02" + "ff".repeat(32) })).toBe(false);
    expect(verifyClientSignature(null as never)).toBe(false);
  });

  it("accepts a high-S signature", () => {
    const sig = signClientMessage(MESSAGE, pair.privateKey);
    const low = p256.Signature.fromDER(sig.signature);
    const high = new p256.Signature(low.r, p256.CURVE.n - low.s);
    expect(verifyClientSignature({ ...sig, signature: high.toDERHex() })).toBe(true);
  });

  it("names privateKeyHex for a bad key without printing it", () => {
    expect(() => signClientMessage(MESSAGE, "00".repeat(32))).toThrow(/privateKeyHex/);
    expect(() => signClientMessage(MESSAGE, "nothex")).toThrow(/privateKeyHex/);
  });
});
