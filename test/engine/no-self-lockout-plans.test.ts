/**
 * Lockout-freedom over the organization after the plan, for a deployer outside the root quorum,
 * on the real engine against the emulator: the TypeScript path (dynamic providers, an inline
 * program: `inline-declared-stack.ts`) and the YAML path (the provider plugin). Each path has one
 * deployer, a user with its own API key whose only access is an ALLOW made by the root user for
 * the members of a tag it is in, and one stack that deploys as that user. The stack adopts the
 * ALLOW and the tag, then each scenario is a new program for it, one after the other: a refused
 * preview leaves the stack and the organization as they were, so the refusals follow one `up`.
 * A refused scenario's program declares only what it is about: the engine plans the deletes of
 * the rest without asking the provider, so the proof sees the plan it would on a stack of its own.
 *
 * - A DENY on what the plan does not submit (WALLET) passes the proof: the adopting `up` creates it.
 * - A UserTag and a DENY on every USER activity: the preview fails with one refusal naming
 *   CREATE_USER_TAG, the UserTag that needs it, the user and the DENY, and writes nothing
 *   (read with the official client). The same plan deployed with the root user's key (alone the
 *   root quorum, which bypasses policies) passes, in the passing preview of
 *   `no-self-lockout.test.ts`.
 * - (d) The deployer removed from the tag its ALLOW names (UserTag `userIds`): the preview fails
 *   naming the update the deployer could no longer submit alone.
 * - (c) A DENY on POLICY/DELETE for the deployer: the preview fails naming DELETE_POLICY (the
 *   destroy of the stack's own policy) and the DENY. On the TypeScript path: the refusal is the
 *   proof's, and the plugin's part (a DENY policy to create, refused) is the first test's.
 * - (b) The deployer's ALLOW dropped from the program. The engine plans that delete without asking
 *   the provider, so a plain `pulumi preview` passes; the proof over its planned steps
 *   (`accessLosingDeletes`, what `keyform gitops preview` runs) refuses it, and lets it through
 *   with KEYFORM_ALLOW_LOCKOUT; `up` refuses the delete before it is sent; the policy is still
 *   there. `keyform gitops preview` itself (a project folder: the YAML path's) fails naming the
 *   policy and the activity the deployer would lose.
 * - (a) The deploying key has its own IP allowlist (without 127.0.0.1), set earlier; the plan adds
 *   an organization-level list (with 127.0.0.1), which switches per-key lists on: the preview
 *   fails with one refusal naming the key's list and the organization-level list that switches it
 *   on. Forced with `keyform:allowLockout`, `up` locks the key out (which proves the switch on
 *   both paths), and `destroy` then fails with an error that says so (403 code 7, the address,
 *   the list), not a garbled one. Last: the key is locked out until the lists are removed.
 *
 * `keyform gitops preview` runs on the YAML path only: the proof it runs over the planned steps
 * is run on both paths' steps in this process, and its own part (the preview from the project
 * folder, the report, the exit code) is the same for both.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TurnkeyClient } from "@turnkey/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper, KeyformClient } from "../../sdk/client";
import { accessLosingDeletes, PlannedSteps } from "../../sdk/gitops/access-delete-check";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { accessThrough, settingsEnv, stackEnv, yamlStack, type Declared, type DeclaredStack, type MakeDeclaredStack } from "../support/declared-stacks";
import { pulumiBinDir } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { officialClient, type OrganizationAccess } from "../support/organization-snapshot";
import { builtScriptOutcome, commandOutcome, lockoutRefusals } from "./fail-closed-support";
import { typescriptInlineStack } from "./inline-declared-stack";

const TIMEOUT = 600_000;

let emu: TestEmulator;
let work: string;
let official: TurnkeyClient;

beforeAll(async () => {
  pulumiBinDir();
  emu = await startTestEmulator();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-lockout-plans-"));
  official = officialClient(accessThrough(emu.emulator.url, emu.emulator.bootstrap));
});

afterAll(async () => {
  await emu?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

interface Deployer {
  readonly userId: string;
  readonly userName: string;
  readonly publicKey: string;
  readonly access: OrganizationAccess;
}

/** A user outside the root quorum with its own API key, made by the root user. */
async function newDeployer(userName: string): Promise<Deployer> {
  const key = generateApiKeyPair();
  const { userIds } = await emu.client.createUsers({
    users: [{ userName, apiKeys: [{ apiKeyName: userName, publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
  });
  const b = emu.emulator.bootstrap;
  return { userId: userIds[0]!, userName, publicKey: key.publicKey, access: { baseUrl: emu.emulator.url, organizationId: b.organizationId, apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey } };
}

/** A client that signs with the deployer's key. */
const deployerClient = (d: Deployer) => new KeyformClient({ baseUrl: d.access.baseUrl, organizationId: d.access.organizationId, stamper: new ApiKeyStamper({ apiPublicKey: d.access.apiPublicKey, apiPrivateKey: d.access.apiPrivateKey }) });

/** `keyform <args>` (the built CLI) with `env`: its exit code and output. */
const keyformCli = (args: string[], env: NodeJS.ProcessEnv) => builtScriptOutcome("dist/sdk/cli/main.js", args, env);

const byUser = (userId: string) => `approvers.any(user, user.id == '${userId}')`;
const policiesNamed = async (policyName: string) => (await official.getPolicies({ organizationId: emu.emulator.bootstrap.organizationId })).policies.filter((p) => p.policyName === policyName);
const tagsNamed = async (tagName: string) => (await official.listUserTags({ organizationId: emu.emulator.bootstrap.organizationId })).userTags.filter((t) => t.tagName === tagName);

describe.each<{ door: string; make: MakeDeclaredStack }>([
  { door: "TypeScript", make: typescriptInlineStack },
  // A project folder of its own: `keyform gitops preview` runs its program.
  { door: "YAML", make: yamlStack },
])("lockout-freedom over the organization after the plan ($door)", ({ door, make }) => {
  let d: Deployer;
  let declared: DeclaredStack;
  let allowId: string;
  let tagId: string;
  const allowName = `deployers do anything ${door}`;
  const tagName = `deployers-${door}`;
  /** The deployer's ALLOW, adopted: the members of the tag may do anything. */
  const allow = (): Declared => ({
    kind: "Policy",
    name: "deployers-allow",
    args: { policyName: allowName, effect: "EFFECT_ALLOW", consensus: `approvers.any(user, '${tagId}' in user.tags)`, notes: "", importId: allowId },
  });
  /** The tag the ALLOW names, adopted, with `userIds` as its members. */
  const tag = (userIds: string[]): Declared => ({ kind: "UserTag", name: "deployers", args: { userTagName: tagName, userIds, importId: tagId } });
  /** A DENY on what no plan here submits. */
  const denyWallets: Declared = {
    kind: "Policy",
    name: "no-wallet-changes",
    args: { policyName: `no wallet changes ${door}`, effect: "EFFECT_DENY", condition: "activity.resource == 'WALLET'" },
  };
  /** The program the stack was brought up with. */
  const adopted = () => [allow(), tag([d.userId]), denyWallets];

  beforeAll(async () => {
    d = await newDeployer(`deployer-${door}`);
    ({ userTagId: tagId } = await emu.client.createUserTag({ userTagName: tagName, userIds: [d.userId] }));
    ({ policyId: allowId } = await emu.client.createPolicy({ policyName: allowName, effect: "EFFECT_ALLOW", consensus: `approvers.any(user, '${tagId}' in user.tags)`, notes: "" }));
    // The key's own list, for (a): per-key lists are off while the organization has no list.
    await emu.client.setIpAllowlist({ publicKey: d.publicKey, rules: [{ cidr: "203.0.113.0/24", label: "elsewhere" }] });
    declared = await make(work, d.access, adopted());
  });

  afterAll(async () => {
    // Lets the deployer in again (the organization-level list (a) left).
    await emu.client.removeIpAllowlist({}).catch(() => undefined);
    if (d) await emu.client.removeIpAllowlist({ publicKey: d.publicKey }).catch(() => undefined);
    await declared?.handle.cleanup();
  });

  it("a DENY on what the plan does not need passes; a DENY on what it needs fails the preview naming policy, kind, resource and user", { timeout: TIMEOUT }, async () => {
    const { stack } = declared.handle;
    // The deployer gets in today, its key's own list notwithstanding.
    await expect(deployerClient(d).listUserTags({})).resolves.toBeDefined();
    // The adopting `up` checks every resource: the DENY on WALLET refuses nothing the plan needs.
    await stack.up();
    expect(await policiesNamed(denyWallets.args.policyName as string)).toHaveLength(1);

    const opsName = `lockout-ops-${door}`;
    const denyName = `no user changes ${door}`;
    const ops: Declared = { kind: "UserTag", name: "ops", args: { userTagName: opsName } };
    const denyUsers: Declared = { kind: "Policy", name: "no-user-changes", args: { policyName: denyName, effect: "EFFECT_DENY", condition: "activity.resource == 'USER'" } };
    declared.redeclare([ops, denyUsers]);
    const refused = await commandOutcome(stack.preview());
    expect(refused.exitCode).not.toBe(0);
    expect(refused.output).toMatch(/could not carry out this plan in organization [^:]+: ACTIVITY_TYPE_CREATE_USER_TAG for UserTag "ops" would be refused/);
    expect(refused.output).toMatch(new RegExp(`submitted by user "${d.userName}" \\(${d.userId}\\) alone: OUTCOME_DENY_EXPLICIT: 403 code 7 \\(DENY policy "${denyName}" applies\\)`));
    expect(lockoutRefusals(refused.output)).toBe(1);
    expect(refused.output).toMatch(/keyform:allowLockout/);
    expect(await policiesNamed(denyName)).toHaveLength(0);
    expect(await tagsNamed(opsName)).toHaveLength(0);
  });

  it("(d) the deployer removed from the tag its ALLOW names fails the preview", { timeout: TIMEOUT }, async () => {
    declared.redeclare([tag([])]);
    const refused = await commandOutcome(declared.handle.stack.preview());
    expect(refused.exitCode).not.toBe(0);
    expect(refused.output).toMatch(/could not apply this plan again in organization [^:]+: ACTIVITY_TYPE_UPDATE_USER_TAG for UserTag "deployers" would be refused/);
    expect(refused.output).toMatch(/Also refused: destroy what this stack manages: ACTIVITY_TYPE_DELETE_USER_TAGS for UserTag "deployers"/);
    expect(lockoutRefusals(refused.output)).toBe(1);
    // Still in the tag: nothing was written.
    const { users } = await emu.client.listUsers({});
    expect(users.find((u) => u.userId === d.userId)?.userTags).toContain(tagId);
  });

  it("(c) a DENY on POLICY/DELETE for the deployer fails the preview naming DELETE_POLICY", { timeout: TIMEOUT }, async () => {
    const policyName = `deployer deletes no policy ${door}`;
    const deny: Declared = {
      kind: "Policy",
      name: "no-policy-deletes",
      args: { policyName, effect: "EFFECT_DENY", condition: "activity.resource == 'POLICY' && activity.action == 'DELETE'", consensus: byUser(d.userId), notes: "" },
    };
    declared.redeclare([deny]);
    const refused = await commandOutcome(declared.handle.stack.preview());
    expect(refused.exitCode).not.toBe(0);
    expect(refused.output).toMatch(/could not destroy what this stack manages in organization [^:]+: ACTIVITY_TYPE_DELETE_POLICY for Policy "no-policy-deletes" would be refused/);
    expect(refused.output).toMatch(new RegExp(`OUTCOME_DENY_EXPLICIT: 403 code 7 \\(DENY policy "${policyName}" applies\\)`));
    expect(lockoutRefusals(refused.output)).toBe(1);
    expect(await policiesNamed(policyName)).toHaveLength(0);
  });

  it("(b) the deployer's ALLOW dropped from the program: the proof over the planned steps refuses it, up refuses the delete before it is sent", { timeout: TIMEOUT }, async () => {
    const { handle, redeclare, workDir } = declared;
    redeclare([tag([d.userId]), denyWallets]);
    // Without the ALLOW each update of what the stack keeps would be refused: the witness is the
    // first in the order the objects are met, the other is named after it.
    const FIRST_REFUSED = /could not apply this plan again in organization [^:]+: ACTIVITY_TYPE_UPDATE_[A-Z_0-9]+ for (UserTag "deployers"|Policy "no-wallet-changes") would be refused/;
    // The engine's own limit: a plain preview plans the delete without asking the provider and
    // passes. Its steps, read through the Automation API, are what the GitOps preview proves over;
    // the deliberate hand-over (KEYFORM_ALLOW_LOCKOUT) lets them through.
    const steps = new PlannedSteps();
    expect((await commandOutcome(handle.stack.preview({ onEvent: steps.onEvent }))).exitCode).toBe(0);
    const env = { ...stackEnv(handle.stack), ...settingsEnv(d.access) };
    const lost = await accessLosingDeletes(handle.stack, steps, env);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatch(new RegExp(`Policy ${allowId}: this plan deletes it \\(no longer in the program\\), and after this plan the deploying API key could not apply this plan again`));
    expect(lost[0]).toMatch(FIRST_REFUSED);
    expect(lost[0]).toMatch(/ACTIVITY_TYPE_UPDATE_USER_TAG for UserTag "deployers"/);
    expect(await accessLosingDeletes(handle.stack, steps, { ...env, KEYFORM_ALLOW_LOCKOUT: "true" })).toEqual([]);

    if (door === "YAML") {
      // `keyform gitops preview` runs the program from its folder, reads the planned steps and
      // runs the same proof over them (the steps of either path are read alike: above).
      const out = fs.mkdtempSync(path.join(work, "reports-"));
      const preview = await keyformCli(["gitops", "preview", "--stack", handle.stack.name, "--out", out, "--work-dir", workDir, "--pulumi", pulumiBinDir()], env);
      expect(preview.code, preview.output).toBe(1);
      const errors = (JSON.parse(fs.readFileSync(path.join(out, "preview.json"), "utf8")) as { errors: string[] }).errors.join("\n");
      expect(errors).toMatch(new RegExp(`Policy ${allowId}: this plan deletes it \\(no longer in the program\\), and after this plan the deploying API key could not apply this plan again`));
      expect(errors).toMatch(FIRST_REFUSED);
      expect(errors).toMatch(/ACTIVITY_TYPE_UPDATE_USER_TAG for UserTag "deployers"/);
      expect(errors).toMatch(new RegExp(`submitted by user "${d.userName}" \\([^)]+\\) alone: OUTCOME_(DENY_IMPLICIT|REQUIRES_CONSENSUS)`));
      expect(errors.match(/after this plan the deploying API key could not/g)).toHaveLength(1);
    }

    const up = await commandOutcome(handle.stack.up());
    expect(up.exitCode).not.toBe(0);
    expect(up.output).toMatch(new RegExp(`Policy ${allowId}: this plan deletes it \\(it is no longer in the program\\)`));
    expect(up.output).toMatch(FIRST_REFUSED);
    expect(up.output).toMatch(/ACTIVITY_TYPE_UPDATE_USER_TAG for UserTag "deployers"/);
    expect(up.output).toMatch(new RegExp(`submitted by user "${d.userName}" \\([^)]+\\) alone: OUTCOME_(DENY_IMPLICIT|REQUIRES_CONSENSUS)`));
    expect(await policiesNamed(allowName)).toHaveLength(1);
  });

  it("(a) an organization-level list switches the deploying key's own list on: preview fails; forced, destroy says why it cannot", { timeout: TIMEOUT }, async () => {
    const { stack } = declared.handle;
    const orgList: Declared = { kind: "IpAllowlist", name: "org-ips", args: { rules: [{ cidr: "127.0.0.0/8" }, { cidr: "::1/128" }] } };
    declared.redeclare([orgList]);
    const refused = await commandOutcome(stack.preview());
    expect(refused.exitCode).not.toBe(0);
    expect(refused.output).toMatch(/after this plan the deploying API key could not read in organization [^:]+: get_organization would be refused/);
    expect(refused.output).toMatch(/the IP allowlist of the API key keyform signs with leaves out (::ffff:)?127\.0\.0\.1, the address the service sees keyform's requests from/);
    expect(refused.output).toMatch(/it is in force because IpAllowlist "org-ips", the enabled organization-level list, switches per-key lists on/);
    expect(lockoutRefusals(refused.output)).toBe(1);
    await expect(emu.client.getIpAllowlist({})).rejects.toThrow(/no organization-level IP allowlist/);

    // Forced: the key is locked out, and the destroy's error says what happened.
    await stack.setConfig("keyform:allowLockout", { value: "true" });
    // The list is set, then its read-back is refused: the object is recorded all the same. (The
    // program keeps what the stack holds: nothing but the list changes.)
    declared.redeclare([...adopted(), orgList]);
    const up = await commandOutcome(stack.up());
    expect(up.exitCode).not.toBe(0);
    expect(up.output).toMatch(/IpAllowlist \(organization\): create: refused by an IP allowlist \(HTTP 403, code 7\): IP address (::ffff:)?127\.0\.0\.1 is not allowed by the IP allowlist of API key/);
    expect((await emu.client.getIpAllowlist({})).allowlist.rules.map((r) => r.cidr).sort()).toEqual(["127.0.0.0/8", "::1/128"]);
    // The destroy of the list (the rest of the stack's deletes would fail alike, each with its own error).
    const exported = await stack.exportStack();
    const listUrn = ((exported.deployment as { resources?: Array<{ urn: string }> }).resources ?? []).map((r) => r.urn).find((urn) => urn.endsWith("::org-ips"));
    expect(listUrn).toBeDefined();
    const destroy = await commandOutcome(stack.destroy({ target: [listUrn!] }));
    expect(destroy.exitCode).not.toBe(0);
    expect(destroy.output).not.toMatch(/must be a string/);
    expect(destroy.output).toMatch(
      /an IP allowlist shuts the API key [0-9a-f]+ out of organization [^ ]+ from the address this runs at \(getOrganization failed \(HTTP 403, code 7\): IP address (::ffff:)?127\.0\.0\.1 is not allowed by the IP allowlist of API key [^)]+\)/,
    );
    expect(destroy.output).toMatch(/remove it \(remove_ip_allowlist\)/);
  });
});
