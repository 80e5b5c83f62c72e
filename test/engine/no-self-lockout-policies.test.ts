/**
 * No self-lockout by policy, on the real engine against the emulator, TypeScript (dynamic
 * providers, an inline program: `inline-declared-stack.ts`) and YAML (the provider plugin) paths. keyform deploys as "deployer", a user outside
 * the root quorum whom an ALLOW policy lets do anything (the emulator runs the policies on each
 * of its activities):
 *
 * - a plan with a UserTag and a DENY on every USER activity fails its preview with one refusal
 *   of the lockout proof naming CREATE_USER_TAG, the UserTag that needs it, the user and the
 *   DENY, and writes nothing (read with the official client); `up` (Automation API, no preview
 *   first) fails naming the same;
 * - a DENY on activities the plan does not submit (WALLET) previews.
 *
 * The same plan deployed with the root user's key (alone the root quorum, which bypasses
 * policies) previews in the passing preview of no-self-lockout.test.ts, one program with that
 * file's scenarios; the hand-over with `keyform:allowLockout` previews there too, on both paths
 * (the switch is one, whatever the plan refuses).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TurnkeyClient } from "@turnkey/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { accessThrough, yamlStack, type Declared, type MakeDeclaredStack } from "../support/declared-stacks";
import { pulumiBinDir } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import type { OrganizationAccess } from "../support/organization-snapshot";
import { officialClient } from "../support/organization-snapshot";
import { commandOutcome, lockoutRefusals } from "./fail-closed-support";
import { typescriptInlineStack } from "./inline-declared-stack";

const TIMEOUT = 600_000;

let emu: TestEmulator;
let work: string;
let official: TurnkeyClient;
let deployerId: string;
let deployerAccess: OrganizationAccess;

beforeAll(async () => {
  pulumiBinDir();
  emu = await startTestEmulator();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-policy-lockout-"));
  official = officialClient(accessThrough(emu.emulator.url, emu.emulator.bootstrap));
  const key = generateApiKeyPair();
  const { userIds } = await emu.client.createUsers({
    users: [{ userName: "deployer", apiKeys: [{ apiKeyName: "deployer", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
  });
  deployerId = userIds[0]!;
  await emu.client.createPolicy({ policyName: "deployer does anything", effect: "EFFECT_ALLOW", consensus: `approvers.any(user, user.id == '${deployerId}')`, notes: "" });
  const b = emu.emulator.bootstrap;
  deployerAccess = { baseUrl: emu.emulator.url, organizationId: b.organizationId, apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey };
});

afterAll(async () => {
  await emu?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const named = async (policyName: string, tagName: string) => {
  const organizationId = emu.emulator.bootstrap.organizationId;
  const policies = (await official.getPolicies({ organizationId })).policies.filter((p) => p.policyName === policyName);
  const tags = (await official.listUserTags({ organizationId })).userTags.filter((t) => t.tagName === tagName);
  return { policies: policies.length, tags: tags.length };
};

/** The root user deletes what an `up` of a failing plan may have written (the policy binds the deployer, not root). */
async function removeByRoot(policyName: string): Promise<void> {
  for (const p of (await emu.client.listPolicies({})).policies.filter((x) => x.policyName === policyName)) await emu.client.deletePolicy({ policyId: p.policyId });
}

describe.each<{ door: string; make: MakeDeclaredStack }>([
  { door: "TypeScript", make: typescriptInlineStack },
  { door: "YAML", make: yamlStack },
])("no self-lockout by policy: $door", ({ door, make }) => {
  it("a DENY on what the plan needs fails the preview naming policy, kind, resource and user; a DENY on what it does not need previews", { timeout: TIMEOUT }, async () => {
    const tagName = `lockout-ops-${door}`;
    const policyName = `no user changes ${door}`;
    const tag: Declared = { kind: "UserTag", name: "ops", args: { userTagName: tagName } };
    const deny: Declared = { kind: "Policy", name: "no-user-changes", args: { policyName, effect: "EFFECT_DENY", condition: "activity.resource == 'USER'" } };
    const { handle, redeclare } = await make(work, deployerAccess, [tag, deny]);
    try {
      const refused = await commandOutcome(handle.stack.preview());
      expect(refused.exitCode).not.toBe(0);
      expect(refused.output).toMatch(/could not carry out this plan in organization [^:]+: ACTIVITY_TYPE_CREATE_USER_TAG for UserTag "ops" would be refused/);
      expect(refused.output).toMatch(
        new RegExp(`submitted by user "deployer" \\(${deployerId}\\) alone: OUTCOME_DENY_EXPLICIT: 403 code 7 \\(DENY policy "${policyName}" applies\\)`),
      );
      expect(lockoutRefusals(refused.output)).toBe(1);
      expect(refused.output).toMatch(/keyform:allowLockout/);
      expect(await named(policyName, tagName)).toEqual({ policies: 0, tags: 0 });

      // `up` through the Automation API skips the preview, and the engine runs each create as
      // soon as its own check passes: whichever of the two is checked last fails, naming the same.
      const up = await commandOutcome(handle.stack.up());
      expect(up.exitCode).not.toBe(0);
      expect(up.output).toMatch(/could not carry out this plan in organization [^:]+: ACTIVITY_TYPE_CREATE_USER_TAG for UserTag "ops" would be refused/);
      await removeByRoot(policyName);

      // A DENY on what the plan does not submit leaves its activities allowed.
      redeclare([tag, { ...deny, args: { ...deny.args, condition: "activity.resource == 'WALLET'" } }]);
      const unrelated = await commandOutcome(handle.stack.preview());
      expect(unrelated.output).toBe("");
      expect(unrelated.exitCode).toBe(0);
    } finally {
      await handle.cleanup();
    }
  });
});
