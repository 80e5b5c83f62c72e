/**
 * Real engine, real emulator: what `preview` and `up` say before anything is created. Bad
 * inputs fail with the property named and create nothing; values unknown during preview
 * (outputs of resources still to be created) pass; missing credentials name the setting.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyformClient } from "../../sdk/client/client";
import { createInlineStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { changes, emulatorEnv, loadKeyform, since } from "../resources/harness/engine-harness";

const keyform = loadKeyform();
let emu: TestEmulator;
let client: KeyformClient;
const figures: Record<string, number> = {};

beforeAll(async () => {
  emu = await startTestEmulator();
  client = emu.client;
});
afterAll(async () => {
  await emu?.stop();
  console.log(`resources-preview-checks figures (ms): ${JSON.stringify(figures)}`);
});

async function organizationIsEmpty() {
  expect((await client.listPolicies()).policies).toEqual([]);
  expect((await client.listSmartContractInterfaces()).smartContractInterfaces).toEqual([]);
  expect((await client.getOrganization()).organizationData.invitations ?? []).toEqual([]);
  expect((await client.listUserTags()).userTags).toEqual([]);
}

describe("preview", () => {
  it("bad inputs fail with the property named, and nothing is created", { timeout: 300_000 }, async () => {
    const t0 = performance.now();
    const bad: Record<string, () => void> = {
      "wrong enum": () => new keyform.Policy("wrong-enum", { policyName: "p", effect: "EFFECT_MAYBE" }),
      "missing required field": () =>
        new keyform.Invitation("missing-field", { receiverUserName: "A", receiverUserEmail: "a@example.com", accessType: "ACCESS_TYPE_WEB" } as never),
      "broken policy condition": () =>
        new keyform.Policy("broken-condition", { policyName: "p", effect: "EFFECT_ALLOW", condition: "activity.resource == 'USER' &&& (" }),
      "mistyped policy consensus": () =>
        new keyform.Policy("mistyped-consensus", { policyName: "p", effect: "EFFECT_ALLOW", consensus: "approvers.any(user,\n  user.tags.count == 2)" }),
      // Last: `up` below runs this one.
      "malformed address": () =>
        new keyform.SmartContractInterface("bad-address", { smartContractAddress: "0x1234", smartContractInterface: [], type: "ETHEREUM", label: "l" }),
    };
    let declare = bad["wrong enum"]!;
    const { stack, cleanup } = await createInlineStack({
      projectName: "kf-bad-inputs",
      envVars: emulatorEnv(emu.emulator),
      program: async () => {
        declare();
      },
    });
    const expected: Record<string, RegExp> = {
      "wrong enum": /Policy resource 'wrong-enum': property effect value \{EFFECT_MAYBE\} has a problem: Invalid option: expected one of "EFFECT_ALLOW"\|"EFFECT_DENY"/,
      "missing required field": /Invitation resource 'missing-field': property senderUserId value .* has a problem: senderUserId is required/,
      "malformed address": /SmartContractInterface resource 'bad-address': property smartContractAddress value \{0x1234\} has a problem: is not an Ethereum address/,
      "broken policy condition": /Policy resource 'broken-condition': property condition value .* has a problem: condition line 1, column 31: unexpected character '&' \(use '&&'\)/,
      "mistyped policy consensus": /Policy resource 'mistyped-consensus': property consensus value [\s\S]*? has a problem: consensus line 2, column 13: 'count' is a method: write count\(\)/,
    };
    try {
      for (const [what, program] of Object.entries(bad)) {
        declare = program;
        const preview = await stack.preview().then(() => undefined, (e: Error) => e);
        expect(preview, what).toBeInstanceOf(Error);
        expect(String(preview), what).toMatch(expected[what]!);
      }
      // up stops at the same check, before any create
      const up = await stack.up().then(() => undefined, (e: Error) => e);
      expect(String(up)).toMatch(expected["malformed address"]!);
      await organizationIsEmpty();
    } finally {
      await cleanup();
      figures.badInputs = since(t0);
    }
  });

  it("values unknown at preview pass check; up then fills them in", { timeout: 300_000 }, async () => {
    const t0 = performance.now();
    const { stack, cleanup } = await createInlineStack({
      projectName: "kf-unknowns",
      envVars: emulatorEnv(emu.emulator),
      program: async () => {
        const tag = new keyform.UserTag("approvers", { userTagName: "approvers" });
        const policy = new keyform.Policy("needs-approvers", {
          policyName: tag.userTagId.apply((id) => `approvers ${id.slice(0, 8)}`),
          effect: "EFFECT_ALLOW",
          consensus: tag.userTagId.apply((id) => `approvers.any(user, user.tags.contains('${id}'))`),
        });
        const invite = new keyform.Invitation("invite", {
          receiverUserName: "Dana",
          receiverUserEmail: "dana@example.com",
          receiverUserTags: [tag.userTagId],
          accessType: "ACCESS_TYPE_API",
          senderUserId: emu.emulator.bootstrap.userId,
        });
        return { policyId: policy.policyId, invitationId: invite.invitationId };
      },
    });
    try {
      expect(changes((await stack.preview()).changeSummary, { stack: true })).toEqual({ create: 3 });
      const up = await stack.up();
      expect(changes(up.summary.resourceChanges, { stack: true })).toEqual({ create: 3 });
      // The lint warning of an ALLOW with no condition, logged from the program.
      expect(up.stdout).toMatch(/Policy "needs-approvers": condition line 1, column 1: this ALLOW covers signing/);
      const [tag] = (await client.listUserTags()).userTags;
      const { policy } = await client.getPolicy({ policyId: up.outputs.policyId!.value as string });
      expect(policy.consensus).toBe(`approvers.any(user, user.tags.contains('${tag!.tagId}'))`);
      const [invitation] = (await client.getOrganization()).organizationData.invitations ?? [];
      expect(invitation?.receiverUserTags).toEqual([tag!.tagId]);
      // No destroy: the next test checks for its own tag by name, not for an empty organization.
    } finally {
      await cleanup();
      figures.unknowns = since(t0);
    }
  });

  it("a missing credential fails up with the setting to set, and creates nothing", { timeout: 300_000 }, async () => {
    const t0 = performance.now();
    const { KEYFORM_API_PRIVATE_KEY: _omitted, ...partial } = emulatorEnv(emu.emulator);
    const { stack, cleanup } = await createInlineStack({
      projectName: "kf-no-key",
      envVars: partial,
      program: async () => {
        new keyform.UserTag("t", { userTagName: "t" });
      },
    });
    try {
      const failure = await stack.up().then(() => undefined, (e: Error) => e);
      expect(String(failure)).toMatch(/keyform:apiPrivateKey.*KEYFORM_API_PRIVATE_KEY/);
      // The organization may hold the previous test's objects; the program's tag "t" is not there.
      expect((await client.listUserTags()).userTags.map((t) => t.tagName)).not.toContain("t");
    } finally {
      await cleanup();
      figures.missingCredential = since(t0);
    }
  });
});
