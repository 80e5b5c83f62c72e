import { describe, expect, it } from "vitest";
import { verifyAppProofSignature } from "@turnkey/crypto";
import {
  APP_PROOF_SCHEME,
  addressDerivationPayload,
  createAppProof,
  policyOutcomePayload,
  verifyAppProof,
  type AppProof,
} from "../../sdk/crypto/app-proofs";
import { generateP256KeyPair } from "../../sdk/crypto/p256";

const ORG = "7a1a1a1a-0000-4000-8000-000000000001";

function flipHexChar(hex: string, index: number): string {
  const c = hex[index] === "0" ? "1" : "0";
  return hex.slice(0, index) + c + hex.slice(index + 1);
}

describe("app proofs", () => {
  const payload = policyOutcomePayload({
    organizationId: ORG,
    decisionContextDigest: "sha256:" + "ab".repeat(32),
    activityId: "act-1",
    timestampMs: 1_700_000_000_000,
  });

  it("have the documented shape and verify with ours and the official verifier", () => {
    const proof = createAppProof(payload);
    expect(proof.scheme).toBe(APP_PROOF_SCHEME);
    expect(proof.publicKey).toMatch(/^04[0-9a-f]{128}04[0-9a-f]{128}$/);
    expect(proof.signature).toMatch(/^[0-9a-f]{128}$/);
    expect(JSON.parse(proof.proofPayload)).toEqual({
      type: "APP_PROOF_TYPE_POLICY_OUTCOME",
      timestampMs: "1700000000000",
      policyOutcomeProof: {
        organizationId: ORG,
        outcome: "OUTCOME_ALLOW",
        decisionContextDigest: "sha256:" + "ab".repeat(32),
        activityId: "act-1",
      },
    });
    expect(verifyAppProof(proof)).toBe(true);
    expect(() => verifyAppProofSignature(proof)).not.toThrow();
  });

  it("use a fresh key per proof unless one is given", () => {
    expect(createAppProof(payload).publicKey).not.toBe(createAppProof(payload).publicKey);
    const key = generateP256KeyPair();
    const proof = createAppProof(
      addressDerivationPayload({ organizationId: ORG, walletId: "w", derivationPath: "m/44'/60'/0'/0/0", address: "0xabc" }),
      { signingPrivateKeyHex: key.privateKey },
    );
    expect(proof.publicKey.slice(130)).toBe(key.publicKeyUncompressed);
    expect(verifyAppProof(proof)).toBe(true);
    expect(() => verifyAppProofSignature(proof)).not.toThrow();
  });

  it("fail when a byte of the payload is tampered (sampled across the payload)", () => {
    const proof = createAppProof(payload);
    // About 40 positions spread over the payload (each check is a full ECDSA verify), plus both ends.
    const stride = Math.max(1, Math.floor(proof.proofPayload.length / 40));
    const positions = new Set([0, proof.proofPayload.length - 1]);
    for (let i = 0; i < proof.proofPayload.length; i += stride) positions.add(i);
    for (const i of positions) {
      const code = proof.proofPayload.charCodeAt(i) ^ 1;
      const tampered = { ...proof, proofPayload: proof.proofPayload.slice(0, i) + String.fromCharCode(code) + proof.proofPayload.slice(i + 1) };
      expect(verifyAppProof(tampered), `payload byte ${i}`).toBe(false);
    }
    expect(() => verifyAppProofSignature({ ...proof, proofPayload: proof.proofPayload + " " })).toThrow();
  });

  it("fail when any byte of the signature or signing key is tampered", () => {
    const proof = createAppProof(payload);
    for (let i = 0; i < proof.signature.length; i += 2) {
      expect(verifyAppProof({ ...proof, signature: flipHexChar(proof.signature, i + 1) }), `signature byte ${i / 2}`).toBe(false);
    }
    // Tampering the signing half of the key (bytes 65..129) must fail; x and y both covered.
    for (const i of [132, 200, 259]) {
      expect(verifyAppProof({ ...proof, publicKey: flipHexChar(proof.publicKey, i) })).toBe(false);
    }
  });

  it("return false for malformed fields and throw only on wrong types", () => {
    const proof = createAppProof(payload);
    expect(verifyAppProof({ ...proof, scheme: "SIGNATURE_SCHEME_OTHER" } as unknown as AppProof)).toBe(false);
    expect(verifyAppProof({ ...proof, signature: "zz" })).toBe(false);
    expect(verifyAppProof({ ...proof, signature: proof.signature.slice(2) })).toBe(false);
    expect(verifyAppProof({ ...proof, publicKey: proof.publicKey.slice(130) })).toBe(false);
    expect(() => verifyAppProof(null as unknown as AppProof)).toThrow(TypeError);
    expect(() => verifyAppProof({ ...proof, signature: 5 } as unknown as AppProof)).toThrow(/proof.signature/);
    expect(() => createAppProof('{"type":"x"}')).toThrow(TypeError);
  });
});
