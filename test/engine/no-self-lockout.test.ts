/**
 * No self-lockout, on the real engine against the emulator, TypeScript (dynamic providers) and
 * YAML (the provider plugin) paths. Each path runs its scenarios one after the other on one stack
 * (the root user's key deploys), each scenario a new program for it; on the TypeScript path an
 * inline program (`inline-declared-stack.ts`):
 *
 * - An enabled organization-level IP allowlist that leaves out the address the emulator echoes
 *   for this client (`x-rate-limit-request-remote-addr`) fails the preview naming that address.
 * - A root quorum that leaves out the deploying user, or raises the threshold above 1 while that
 *   user alone is the quorum, fails the preview with one refusal of the lockout proof
 *   (`deployer-access.ts`): the update of the root quorum the deploying user could no longer
 *   submit alone, with its witness naming the user and the RootQuorum. (The raised threshold on
 *   the TypeScript path only: its witness is the proof's, which both paths share; the YAML path's
 *   RootQuorum reaches the proof in the removed user's preview.)
 * - `up` of the list and the quorum (the Automation API's, no preview first) fails with one
 *   refusal before anything is sent: no list, the quorum unchanged.
 * - One program with a rule for the address in the list, the user alone in the quorum, and a
 *   UserTag with a DENY on every USER activity previews: neither the list nor the quorum is
 *   refused wrongly, and the DENY that refuses a deployer outside the root quorum
 *   (no-self-lockout-plans.test.ts) does not bind the root user, alone the root quorum, which
 *   bypasses policies. (The deliberate hand-over with `keyform:allowLockout` is the forced `up`
 *   of no-self-lockout-plans.test.ts (a), on both paths: the switch is one, whatever the plan
 *   refuses.)
 * - Removing from the program the API key keyform signs with, and the user it belongs to (both
 *   adopted with importId): a plain preview cannot see those deletes (the engine plans them
 *   without the provider) and passes; the preview's steps read through the Automation API
 *   (`PlannedCredentialDeletes`, what the GitOps runner and scripts/org-up use) name the key and
 *   the user. On the YAML path (a project folder, which the runner runs the program from) the
 *   runner's `up` previews first and stops there with both in its report, the key and the user
 *   still there. On the TypeScript path, `up` with only the key removed refuses its delete before
 *   it is sent: the key is still there, read with the official client.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TurnkeyClient } from "@turnkey/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessThrough, settingsEnv, stackEnv, yamlStack, type Declared, type DeclaredStack, type MakeDeclaredStack } from "../support/declared-stacks";
import { pulumiBinDir } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { builtScriptOutcome, commandOutcome, lockoutRefusals } from "./fail-closed-support";
import { typescriptInlineStack } from "./inline-declared-stack";
import { credentialLockouts, PlannedCredentialDeletes } from "../../sdk/gitops/credential-check";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { officialClient } from "../support/organization-snapshot";

const TIMEOUT = 600_000;

let emu: TestEmulator;
let work: string;
let official: TurnkeyClient;
let otherUserId: string;

beforeAll(async () => {
  pulumiBinDir();
  emu = await startTestEmulator();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-lockout-"));
  official = officialClient(accessThrough(emu.emulator.url, emu.emulator.bootstrap));
  const key = generateApiKeyPair();
  const { userIds } = await emu.client.createUsers({
    users: [{ userName: "other-root", apiKeys: [{ apiKeyName: "other-root", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
  });
  otherUserId = userIds[0]!;
});

afterAll(async () => {
  await emu?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const access = () => accessThrough(emu.emulator.url, emu.emulator.bootstrap);

const organizationAllowlist = async () =>
  official.getIpAllowlist({ organizationId: emu.emulator.bootstrap.organizationId }).then(
    (a) => a.allowlist,
    () => undefined,
  );
const quorumNow = async () => (await official.getOrganization({ organizationId: emu.emulator.bootstrap.organizationId })).organizationData.rootQuorum;

const excludingList: Declared = { kind: "IpAllowlist", name: "org-ips", args: { rules: [{ cidr: "203.0.113.0/24", label: "elsewhere" }] } };
const listWithThisRunner: Declared = { ...excludingList, args: { rules: [{ cidr: "203.0.113.0/24" }, { cidr: "127.0.0.0/8", label: "this runner" }] } };
const quorum = (threshold: number, userIds: string[]): Declared => ({ kind: "RootQuorum", name: "root", args: { threshold, userIds } });

/** `node dist/examples/gitops/runner.js <args>` with `env`: its exit code and output. */
const runnerOutcome = (args: string[], env: Record<string, string>) => builtScriptOutcome("dist/examples/gitops/runner.js", args, env);

describe.each<{ door: string; make: MakeDeclaredStack }>([
  { door: "TypeScript", make: typescriptInlineStack },
  { door: "YAML", make: yamlStack },
])("no self-lockout: $door", ({ door, make }) => {
  // One stack for the path: every scenario below is a new program for it.
  let declared: DeclaredStack;
  beforeAll(async () => {
    declared = await make(work, access(), [excludingList]);
  });
  afterAll(async () => {
    await declared?.handle.cleanup();
  });

  it("an IP allowlist without the echoed address, a root quorum without the deploying user or above threshold 1: each preview fails with one refusal; up sends nothing", { timeout: TIMEOUT }, async () => {
    const { stack } = declared.handle;
    const b = emu.emulator.bootstrap;
    const before = await quorumNow();
    expect(before?.userIds).toContain(b.userId);

    declared.redeclare([excludingList]);
    const list = await commandOutcome(stack.preview());
    expect(list.exitCode).not.toBe(0);
    expect(list.output).toMatch(/the organization-level IP allowlist leaves out (::ffff:)?127\.0\.0\.1, the address the service sees keyform's requests from/);
    expect(list.output).toMatch(/keyform:allowLockout/);
    expect(lockoutRefusals(list.output)).toBe(1);

    declared.redeclare([quorum(1, [otherUserId])]);
    const removed = await commandOutcome(stack.preview());
    expect(removed.exitCode).not.toBe(0);
    expect(removed.output).toMatch(/could not apply this plan again in organization [^:]+: ACTIVITY_TYPE_UPDATE_ROOT_QUORUM for RootQuorum "root" would be refused/);
    expect(removed.output).toMatch(new RegExp(`submitted by user "[^"]+" \\(${b.userId}\\) alone: OUTCOME_DENY_IMPLICIT: .*; the root quorum of RootQuorum "root" leaves the user out`));
    expect(lockoutRefusals(removed.output)).toBe(1);

    if (door === "TypeScript") {
      declared.redeclare([quorum(2, [b.userId, otherUserId])]);
      const raised = await commandOutcome(stack.preview());
      expect(raised.exitCode).not.toBe(0);
      expect(raised.output).toMatch(new RegExp(`submitted by user "[^"]+" \\(${b.userId}\\) alone: OUTCOME_[A-Z_]+: it would wait for the root quorum of RootQuorum "root" \\(threshold 2\\)`));
      expect(lockoutRefusals(raised.output)).toBe(1);
    }

    // `up` checks each resource again before sending it: the first refused stops the run.
    declared.redeclare([excludingList, quorum(1, [otherUserId])]);
    const up = await commandOutcome(stack.up());
    expect(up.exitCode).not.toBe(0);
    expect(up.output).toMatch(/the organization-level IP allowlist leaves out|the root quorum of RootQuorum "root" leaves the user out/);
    expect(lockoutRefusals(up.output)).toBe(1);
    expect(await organizationAllowlist()).toBeUndefined();
    expect(await quorumNow()).toEqual(before);
  });

  it("with a rule for the address, the user alone in the quorum and a DENY that binds only others it previews", { timeout: TIMEOUT }, async () => {
    const { stack } = declared.handle;
    const b = emu.emulator.bootstrap;
    const before = await quorumNow();
    // One program: each resource's check runs, and none may refuse.
    const tag: Declared = { kind: "UserTag", name: "ops", args: { userTagName: `lockout-ops-root-${door}` } };
    const denyUserChanges: Declared = { kind: "Policy", name: "no-user-changes", args: { policyName: `no user changes ${door}`, effect: "EFFECT_DENY", condition: "activity.resource == 'USER'" } };
    declared.redeclare([listWithThisRunner, quorum(1, [b.userId, otherUserId]), tag, denyUserChanges]);
    const kept = await commandOutcome(stack.preview());
    expect(kept.output).toBe("");
    expect(kept.exitCode).toBe(0);
    expect(await organizationAllowlist()).toBeUndefined();
    expect(await quorumNow()).toEqual(before);
  });

  it("a planned delete of the deploying key and user: a plain preview passes, its steps name both; the runner's up stops at its preview", { timeout: TIMEOUT }, async () => {
    const { handle, redeclare, workDir } = declared;
    const b = emu.emulator.bootstrap;
    const { apiKeys } = await official.getApiKeys({ organizationId: b.organizationId, userId: b.userId });
    const own = apiKeys.find((k) => k.credential.publicKey.toLowerCase() === b.apiPublicKey.toLowerCase())!;
    const { user } = await official.getUser({ organizationId: b.organizationId, userId: b.userId });
    const adoptedKey: Declared = {
      kind: "ApiKey",
      name: "deployer-key",
      args: { userId: b.userId, apiKeyName: own.apiKeyName, publicKey: own.credential.publicKey, curveType: "API_KEY_CURVE_P256", importId: own.apiKeyId },
    };
    const adoptedUser: Declared = { kind: "User", name: "deployer", args: { userName: user.userName, importId: b.userId, ...(user.userEmail ? { userEmail: user.userEmail } : {}) } };
    const tag: Declared = { kind: "UserTag", name: "keep", args: { userTagName: `lockout-keep-${door}` } };
    const stillThere = async () => {
      const after = await official.getApiKeys({ organizationId: b.organizationId, userId: b.userId });
      expect(after.apiKeys.map((k) => k.apiKeyId)).toContain(own.apiKeyId);
      expect((await official.getUser({ organizationId: b.organizationId, userId: b.userId })).user.userId).toBe(b.userId);
    };
    redeclare([adoptedKey, adoptedUser, tag]);
    try {
      await handle.stack.up();
      redeclare([tag]);
      const deletes = new PlannedCredentialDeletes();
      // The engine's own limit: the preview plans both deletes and passes.
      expect((await commandOutcome(handle.stack.preview({ onEvent: deletes.onEvent }))).exitCode).toBe(0);
      expect(deletes.planned.map((d) => `${d.kind} ${d.id} ${d.op}`).sort()).toEqual([`ApiKey ${own.apiKeyId} delete`, `User ${b.userId} delete`]);
      const env = { ...process.env, ...settingsEnv(access()) };
      const lockouts = await credentialLockouts(handle.stack, deletes, env);
      expect(lockouts).toHaveLength(2);
      expect(lockouts.join("\n")).toMatch(new RegExp(`ApiKey ${own.apiKeyId} \\[urn:pulumi:[^\\]]+::deployer-key\\]: this plan deletes the API key keyform signs with`));
      expect(lockouts.join("\n")).toMatch(new RegExp(`User ${b.userId} \\("[^"]+"\\) \\[urn:pulumi:[^\\]]+::deployer\\]: this plan deletes the user the API key keyform signs with belongs to`));
      expect(await credentialLockouts(handle.stack, deletes, { ...env, KEYFORM_ALLOW_LOCKOUT: "true" })).toEqual([]);

      if (door === "YAML") {
        // The GitOps runner's `up` runs the program from its folder, previews first, reads the
        // same steps (either path's alike: above), and stops there: its report names both, and
        // nothing is deleted. (Its `preview` adds the same lockouts to its report:
        // no-self-lockout-plans.test.ts runs `keyform gitops preview` on such a plan.)
        const out = fs.mkdtempSync(path.join(work, "reports-"));
        const up = await runnerOutcome(["up", "--stack", handle.stack.name, "--out", out, "--work-dir", workDir], { ...stackEnv(handle.stack), ...settingsEnv(access()) });
        expect(up.code, up.output).toBe(1);
        const errors = (JSON.parse(fs.readFileSync(path.join(out, "up.json"), "utf8")) as { errors: string[] }).errors.join("\n");
        expect(errors).toMatch(new RegExp(`ApiKey ${own.apiKeyId} \\[[^\\]]+\\]: this plan deletes the API key keyform signs with`));
        expect(errors).toMatch(new RegExp(`User ${b.userId} \\("[^"]+"\\) \\[[^\\]]+\\]: this plan deletes the user`));
        expect(fs.readFileSync(path.join(out, "up.md"), "utf8")).toMatch(/this plan deletes the API key keyform signs with/);
        // It stopped at its preview: no delete reached the provider, whose refusal at `up` would say so.
        expect(`${errors}\n${up.output}`).not.toMatch(/deleting (it|the user) would lock this stack out/);
        await stillThere();
      } else {
        // A plain `up` of the plan without the key refuses its delete before the request is sent.
        redeclare([adoptedUser, tag]);
        const refused = await commandOutcome(handle.stack.up());
        expect(refused.exitCode).not.toBe(0);
        expect(refused.output).toMatch(new RegExp(`ApiKey ${own.apiKeyId}: it is the API key keyform signs with \\(keyform:apiPublicKey\\); deleting it would lock this stack out`));
        await stillThere();
      }
    } finally {
      // Leave the key and the user in the organization: drop them from state instead of destroying them.
      const exported = await handle.stack.exportStack();
      const deployment = exported.deployment as { resources?: Array<{ urn: string }> };
      deployment.resources = (deployment.resources ?? []).filter((r) => !r.urn.endsWith("::deployer-key") && !r.urn.endsWith("::deployer"));
      await handle.stack.importStack(exported);
    }
  });
});
