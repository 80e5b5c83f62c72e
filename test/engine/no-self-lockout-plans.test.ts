/**
 * Lockout-freedom over the organization after the plan, on the real engine against the emulator,
 * each of the four plans on the TypeScript path (dynamic providers; an inline program,
 * `inline-declared-stack.ts`, except for (b), which `keyform gitops` runs from its project folder)
 * and on the YAML path (the provider plugin), each run as its deployer would: a user outside the root quorum, with its own
 * API key, whom an ALLOW made by the root user lets do anything. Each deployer is its own user,
 * so the plans do not touch each other.
 *
 * - (a) The deploying key has its own IP allowlist (without 127.0.0.1), set earlier; the plan
 *   adds an organization-level list (with 127.0.0.1), which switches per-key lists on: the
 *   preview fails with one refusal naming the key's list and the organization-level list that
 *   switches it on. Forced with `keyform:allowLockout`, `up` locks the key out, and `destroy` then
 *   fails with an error that says so (403 code 7, the address, the list), not a garbled one.
 * - (b) The deployer's own ALLOW (adopted by the stack) is dropped from the program. The engine
 *   plans that delete without asking the provider, so a plain `pulumi preview` passes; the proof
 *   over its planned steps (`accessLosingDeletes`) refuses it, and lets it through with
 *   KEYFORM_ALLOW_LOCKOUT; the preview of `keyform gitops preview` (which reads the planned steps)
 *   fails naming the policy and the activity the deployer would lose, and `up` refuses the delete
 *   before it is sent; the policy is still there.
 * - (c) A DENY on POLICY/DELETE for the deployer is declared: the preview fails naming
 *   DELETE_POLICY (the destroy of the stack's own policy) and the DENY.
 * - (d) The deployer is removed from the tag its ALLOW names (UserTag `userIds`): the preview
 *   fails naming the update the deployer could no longer submit alone.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper, KeyformClient } from "../../sdk/client";
import { accessLosingDeletes, PlannedSteps } from "../../sdk/gitops/access-delete-check";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { settingsEnv, stackEnv, typescriptStack, yamlStack, type Declared, type MakeDeclaredStack } from "../support/declared-stacks";
import { pulumiBinDir } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import type { OrganizationAccess } from "../support/organization-snapshot";
import { builtScriptOutcome, commandOutcome, lockoutRefusals } from "./fail-closed-support";
import { typescriptInlineStack } from "./inline-declared-stack";

const TIMEOUT = 600_000;

let emu: TestEmulator;
let work: string;

beforeAll(async () => {
  pulumiBinDir();
  emu = await startTestEmulator();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-lockout-plans-"));
});

afterAll(async () => {
  await emu?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

interface Deployer {
  readonly userId: string;
  readonly publicKey: string;
  readonly access: OrganizationAccess;
}

/** A user outside the root quorum with its own API key, made by the root user. */
async function newDeployer(name: string): Promise<Deployer> {
  const key = generateApiKeyPair();
  const { userIds } = await emu.client.createUsers({
    users: [{ userName: name, apiKeys: [{ apiKeyName: name, publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
  });
  const b = emu.emulator.bootstrap;
  return { userId: userIds[0]!, publicKey: key.publicKey, access: { baseUrl: emu.emulator.url, organizationId: b.organizationId, apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey } };
}

/** A client that signs with the deployer's key. */
const deployerClient = (d: Deployer) => new KeyformClient({ baseUrl: d.access.baseUrl, organizationId: d.access.organizationId, stamper: new ApiKeyStamper({ apiPublicKey: d.access.apiPublicKey, apiPrivateKey: d.access.apiPrivateKey }) });

/** `keyform <args>` (the built CLI) with `env`: its exit code and output. */
const keyformCli = (args: string[], env: NodeJS.ProcessEnv) => builtScriptOutcome("dist/sdk/cli/main.js", args, env);

const byUser = (userId: string) => `approvers.any(user, user.id == '${userId}')`;
const policyNamed = async (policyName: string) => (await emu.client.listPolicies({})).policies.filter((p) => p.policyName === policyName);

describe.each<{ door: string; make: MakeDeclaredStack; runnable: MakeDeclaredStack }>([
  // TypeScript: an inline program where only the engine runs it; `keyform gitops` needs a project folder.
  { door: "TypeScript", make: typescriptInlineStack, runnable: typescriptStack },
  { door: "YAML", make: yamlStack, runnable: yamlStack },
])("lockout-freedom over the organization after the plan ($door)", ({ door, make, runnable }) => {
  it("(a) an organization-level list switches the deploying key's own list on: preview fails; forced, destroy says why it cannot", { timeout: TIMEOUT }, async () => {
    const d = await newDeployer(`deployer-a-${door}`);
    await emu.client.createPolicy({ policyName: `deployer-a does anything ${door}`, effect: "EFFECT_ALLOW", consensus: byUser(d.userId), notes: "" });
    await emu.client.setIpAllowlist({ publicKey: d.publicKey, rules: [{ cidr: "203.0.113.0/24", label: "elsewhere" }] });
    // Per-key lists are off while the organization has no list: the deployer gets in today.
    await expect(deployerClient(d).createUserTag({ userTagName: `a-probe-${door}`, userIds: [] })).resolves.toBeDefined();
    const orgList: Declared = { kind: "IpAllowlist", name: "org-ips", args: { rules: [{ cidr: "127.0.0.0/8" }, { cidr: "::1/128" }] } };
    const { handle } = await make(work, d.access, [orgList]);
    try {
      const refused = await commandOutcome(handle.stack.preview());
      expect(refused.exitCode).not.toBe(0);
      expect(refused.output).toMatch(/after this plan the deploying API key could not read in organization [^:]+: get_organization would be refused/);
      expect(refused.output).toMatch(/the IP allowlist of the API key keyform signs with leaves out (::ffff:)?127\.0\.0\.1, the address the service sees keyform's requests from/);
      expect(refused.output).toMatch(/it is in force because IpAllowlist "org-ips", the enabled organization-level list, switches per-key lists on/);
      expect(lockoutRefusals(refused.output)).toBe(1);
      await expect(emu.client.getIpAllowlist({})).rejects.toThrow(/no organization-level IP allowlist/);

      // Forced: the key is locked out, and the destroy's error says what happened.
      await handle.stack.setConfig("keyform:allowLockout", { value: "true" });
      // The list is set, then its read-back is refused: the object is recorded all the same.
      const up = await commandOutcome(handle.stack.up());
      expect(up.exitCode).not.toBe(0);
      expect(up.output).toMatch(/IpAllowlist \(organization\): create: refused by an IP allowlist \(HTTP 403, code 7\): IP address (::ffff:)?127\.0\.0\.1 is not allowed by the IP allowlist of API key/);
      expect((await emu.client.getIpAllowlist({})).allowlist.rules.map((r) => r.cidr).sort()).toEqual(["127.0.0.0/8", "::1/128"]);
      const destroy = await commandOutcome(handle.stack.destroy());
      expect(destroy.exitCode).not.toBe(0);
      expect(destroy.output).not.toMatch(/must be a string/);
      expect(destroy.output).toMatch(
        /an IP allowlist shuts the API key [0-9a-f]+ out of organization [^ ]+ from the address this runs at \(getOrganization failed \(HTTP 403, code 7\): IP address (::ffff:)?127\.0\.0\.1 is not allowed by the IP allowlist of API key [^)]+\)/,
      );
      expect(destroy.output).toMatch(/remove it \(remove_ip_allowlist\)/);
    } finally {
      await emu.client.removeIpAllowlist({}).catch(() => undefined);
      await emu.client.removeIpAllowlist({ publicKey: d.publicKey }).catch(() => undefined);
      await handle.cleanup();
    }
  });

  it("(b) the deployer's own ALLOW dropped from the program: the GitOps preview refuses it, up refuses the delete before it is sent", { timeout: TIMEOUT }, async () => {
    const d = await newDeployer(`deployer-b-${door}`);
    const policyName = `deployer-b does anything ${door}`;
    const { policyId } = await emu.client.createPolicy({ policyName, effect: "EFFECT_ALLOW", consensus: byUser(d.userId), notes: "" });
    const own: Declared = { kind: "Policy", name: "own-allow", args: { policyName, effect: "EFFECT_ALLOW", consensus: byUser(d.userId), notes: "", importId: policyId } };
    const tag: Declared = { kind: "UserTag", name: "b-tag", args: { userTagName: `lockout-b-${door}` } };
    const { handle, redeclare, workDir } = await runnable(work, d.access, [own, tag]);
    try {
      await handle.stack.up();
      redeclare([tag]);
      // The engine's own limit: a plain preview plans the delete without asking the provider and
      // passes. Its steps, read through the Automation API, are what the GitOps preview proves over;
      // the deliberate hand-over (KEYFORM_ALLOW_LOCKOUT) lets them through.
      const steps = new PlannedSteps();
      expect((await commandOutcome(handle.stack.preview({ onEvent: steps.onEvent }))).exitCode).toBe(0);
      const env = { ...stackEnv(handle.stack), ...settingsEnv(d.access) };
      expect(await accessLosingDeletes(handle.stack, steps, env)).toHaveLength(1);
      expect(await accessLosingDeletes(handle.stack, steps, { ...env, KEYFORM_ALLOW_LOCKOUT: "true" })).toEqual([]);

      // `keyform gitops preview` reads the planned steps and runs the proof over them.
      const out = fs.mkdtempSync(path.join(work, "reports-"));
      const preview = await keyformCli(["gitops", "preview", "--stack", handle.stack.name, "--out", out, "--work-dir", workDir, "--pulumi", pulumiBinDir()], env);
      expect(preview.code, preview.output).toBe(1);
      const errors = (JSON.parse(fs.readFileSync(path.join(out, "preview.json"), "utf8")) as { errors: string[] }).errors.join("\n");
      expect(errors).toMatch(new RegExp(`Policy ${policyId}: this plan deletes it \\(no longer in the program\\), and after this plan the deploying API key could not apply this plan again`));
      expect(errors).toMatch(/ACTIVITY_TYPE_UPDATE_USER_TAG for UserTag "b-tag" would be refused/);
      expect(errors).toMatch(/submitted by user "deployer-b-[^"]+" \([^)]+\) alone: OUTCOME_(DENY_IMPLICIT|REQUIRES_CONSENSUS)/);
      expect(errors.match(/after this plan the deploying API key could not/g)).toHaveLength(1);

      const up = await commandOutcome(handle.stack.up());
      expect(up.exitCode).not.toBe(0);
      expect(up.output).toMatch(new RegExp(`Policy ${policyId}: this plan deletes it \\(it is no longer in the program\\)`));
      expect(up.output).toMatch(/could not apply this plan again in organization [^:]+: ACTIVITY_TYPE_UPDATE_USER_TAG for UserTag "b-tag" would be refused/);
      expect(up.output).toMatch(/submitted by user "deployer-b-[^"]+" \([^)]+\) alone: OUTCOME_(DENY_IMPLICIT|REQUIRES_CONSENSUS)/);
      expect(await policyNamed(policyName)).toHaveLength(1);
    } finally {
      for (const p of await policyNamed(policyName)) await emu.client.deletePolicy({ policyId: p.policyId });
      await handle.cleanup();
    }
  });

  it("(c) a DENY on POLICY/DELETE for the deployer fails the preview naming DELETE_POLICY", { timeout: TIMEOUT }, async () => {
    const d = await newDeployer(`deployer-c-${door}`);
    await emu.client.createPolicy({ policyName: `deployer-c does anything ${door}`, effect: "EFFECT_ALLOW", consensus: byUser(d.userId), notes: "" });
    const policyName = `deployer-c deletes no policy ${door}`;
    const deny: Declared = {
      kind: "Policy",
      name: "no-policy-deletes",
      args: { policyName, effect: "EFFECT_DENY", condition: "activity.resource == 'POLICY' && activity.action == 'DELETE'", consensus: byUser(d.userId), notes: "" },
    };
    const { handle } = await make(work, d.access, [deny]);
    try {
      const refused = await commandOutcome(handle.stack.preview());
      expect(refused.exitCode).not.toBe(0);
      expect(refused.output).toMatch(/could not destroy what this stack manages in organization [^:]+: ACTIVITY_TYPE_DELETE_POLICY for Policy "no-policy-deletes" would be refused/);
      expect(refused.output).toMatch(new RegExp(`OUTCOME_DENY_EXPLICIT: 403 code 7 \\(DENY policy "deployer-c deletes no policy ${door}" applies\\)`));
      expect(lockoutRefusals(refused.output)).toBe(1);
      expect(await policyNamed(policyName)).toHaveLength(0);
    } finally {
      for (const p of await policyNamed(policyName)) await emu.client.deletePolicy({ policyId: p.policyId });
      await handle.cleanup();
    }
  });

  it("(d) the deployer removed from the tag its ALLOW names fails the preview", { timeout: TIMEOUT }, async () => {
    const d = await newDeployer(`deployer-d-${door}`);
    const { userTagId } = await emu.client.createUserTag({ userTagName: `deployers-d-${door}`, userIds: [d.userId] });
    await emu.client.createPolicy({ policyName: `deployers-d do anything ${door}`, effect: "EFFECT_ALLOW", consensus: `approvers.any(user, '${userTagId}' in user.tags)`, notes: "" });
    const tag = (userIds: string[]): Declared => ({ kind: "UserTag", name: "deployers", args: { userTagName: `deployers-d-${door}`, userIds, importId: userTagId } });
    const { handle, redeclare } = await make(work, d.access, [tag([d.userId])]);
    try {
      await handle.stack.up();
      redeclare([tag([])]);
      const refused = await commandOutcome(handle.stack.preview());
      expect(refused.exitCode).not.toBe(0);
      expect(refused.output).toMatch(/could not apply this plan again in organization [^:]+: ACTIVITY_TYPE_UPDATE_USER_TAG for UserTag "deployers" would be refused/);
      expect(refused.output).toMatch(/Also refused: destroy what this stack manages: ACTIVITY_TYPE_DELETE_USER_TAGS for UserTag "deployers"/);
      expect(lockoutRefusals(refused.output)).toBe(1);
      const { userTags } = await emu.client.listUserTags({});
      expect(userTags.find((t) => t.tagId === userTagId)).toBeDefined();
      // Still in the tag: nothing was written.
      const { users } = await emu.client.listUsers({});
      expect(users.find((u) => u.userId === d.userId)?.userTags).toContain(userTagId);
    } finally {
      await handle.cleanup();
    }
  });
});
