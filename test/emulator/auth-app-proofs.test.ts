/**
 * App Proofs of activities (`generateAppProofs: true`) over real HTTP, checked with keyform's
 * verifier (re-exported by the client) and the official @turnkey/crypto one.
 */
import { verifyAppProofSignature } from "@turnkey/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyAppProof, type AppProof } from "../../sdk/client";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { post, rootStamper } from "./raw";

let t: TestEmulator;

beforeAll(async () => {
  t = await startTestEmulator();
});
afterAll(async () => {
  await t.stop();
});

function officialAccepts(proof: AppProof): boolean {
  try {
    verifyAppProofSignature(proof);
    return true;
  } catch {
    return false;
  }
}

describe("App Proofs", () => {
  it("an activity submitted with generateAppProofs returns one verifiable proof naming it", async () => {
    const activity = await t.client.submitActivity("createUserTag", { userTagName: "proved", userIds: [] }, { generateAppProofs: true });
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(activity.appProofs).toHaveLength(1);
    const proof = activity.appProofs![0]!;
    expect(proof.scheme).toBe("SIGNATURE_SCHEME_EPHEMERAL_KEY_P256");
    expect(verifyAppProof(proof)).toBe(true);
    expect(officialAccepts(proof)).toBe(true);
    const payload = JSON.parse(proof.proofPayload);
    expect(payload).toMatchObject({
      type: "APP_PROOF_TYPE_POLICY_OUTCOME",
      policyOutcomeProof: {
        organizationId: t.emulator.bootstrap.organizationId,
        decisionContextDigest: activity.fingerprint,
        activityId: activity.id,
        outcome: "OUTCOME_ALLOW",
      },
    });
    expect(payload.timestampMs).toBe(activity.createdAt);

    // Tampering with the payload, the signature or the key breaks it for both verifiers.
    const forged = JSON.stringify({ ...payload, policyOutcomeProof: { ...payload.policyOutcomeProof, organizationId: "someone-else" } });
    const flipped = (hex: string) => hex.slice(0, -1) + (hex.endsWith("0") ? "1" : "0");
    for (const tampered of [
      { ...proof, proofPayload: forged },
      { ...proof, signature: flipped(proof.signature) },
      { ...proof, publicKey: proof.publicKey.slice(0, 130) + activity.appProofs![0]!.publicKey.slice(130).split("").reverse().join("") },
    ]) {
      expect(verifyAppProof(tampered)).toBe(false);
      expect(officialAccepts(tampered)).toBe(false);
    }
  });

  it("gives no proofs unless asked, and the same proofs to a byte-identical resubmission", async () => {
    const plain = await t.client.submitActivity("createUserTag", { userTagName: "unproved", userIds: [] });
    expect(plain.appProofs).toBeUndefined();
    const asked = await t.client.submitActivity("createUserTag", { userTagName: "asked-false", userIds: [] }, { generateAppProofs: false });
    expect(asked.appProofs).toBeUndefined();

    const body = JSON.stringify({
      type: "ACTIVITY_TYPE_CREATE_USER_TAG",
      timestampMs: String(Date.now()),
      organizationId: t.emulator.bootstrap.organizationId,
      parameters: { userTagName: "retried", userIds: [] },
      generateAppProofs: true,
    });
    const first = await post(t.emulator.url, "/public/v1/submit/create_user_tag", body, rootStamper(t.emulator.bootstrap));
    const second = await post(t.emulator.url, "/public/v1/submit/create_user_tag", body, rootStamper(t.emulator.bootstrap));
    expect(first.status).toBe(200);
    expect(second.body.activity.id).toBe(first.body.activity.id);
    expect(second.body.activity.appProofs).toEqual(first.body.activity.appProofs);
    expect(verifyAppProof(first.body.activity.appProofs[0])).toBe(true);
  });

  it("a refused activity records no proof and answers the usual error", async () => {
    const error = await t.client.submitActivity("createUserTag", { userTagName: "proved", userIds: [] }, { generateAppProofs: true }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 409 });
  });
});
