/**
 * `keyform policy diff`, run as the compiled CLI in a child process as a CI job runs it: two
 * policy files, a stack export, and the live organization of a running emulator (its policies
 * and users) against the program's declared policies; `--no-new-access` fails the job when
 * anyone gains access.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyform, writeFixture } from "./run-cli";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

let dir: string;
const write = (name: string, value: unknown) => writeFixture(dir, name, value);

const opsSigning = (wallets: string) => ({
  policyName: "ops sign",
  effect: "EFFECT_ALLOW",
  condition: `activity.kind == 'SIGN_TRANSACTION' && wallet.id in [${wallets}]`,
  consensus: "approvers.any(u, u.tags.contains('tag-ops'))",
});

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-policy-diff-"));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("keyform policy diff", () => {
  it("two files: the table names who gains what with a witness; --no-new-access exits 1", async () => {
    const before = write("before.json", [opsSigning("'w-hot'")]);
    const after = write("after.json", { policies: [opsSigning("'w-hot', 'w-cold'")] });
    const users = write("users.json", { users: [{ userId: "u-ops", userTags: ["tag-ops"], userName: "ops" }, { id: "u-dev", tags: [] }] });
    const shown = await keyform("policy", "diff", before, after, "--users", users);
    expect(shown.code).toBe(0);
    // The organization's users are the principals, shown by name (ids in the JSON).
    expect(shown.stdout).toMatch(/GAINS ops · SIGN_TRANSACTION · alone · wallet w-cold · OUTCOME_DENY_IMPLICIT → OUTCOME_ALLOW/);
    expect(shown.stdout).toMatch(/GAINS ops, u-dev · SIGN_TRANSACTION · with approvers · wallet w-cold/);
    expect(shown.stdout).toMatch(/witness: SIGN_TRANSACTION_V2; approved by .*params \{"signWith":"0x[0-9a-f]{40}","unsignedTransaction":"02[0-9a-f]+","type":"TRANSACTION_TYPE_ETHEREUM"\}; wallet.id = 'w-cold'.*eth.tx.type = 'TYPE_2'/);
    expect(shown.stdout).toMatch(/no other change: proved/);
    const gate = await keyform("policy", "diff", before, after, "--users", users, "--no-new-access");
    expect(gate.code).toBe(1);
    expect(gate.stderr).toMatch(/--no-new-access: \d+ changes give access \(ops, u-dev\)/);
    const narrowing = await keyform("policy", "diff", after, before, "--users", users, "--no-new-access", "--json");
    expect(narrowing.code).toBe(0);
    const diff = JSON.parse(narrowing.stdout) as { changes: { direction: string; confirmed: boolean; users: { id: string; name: string }[] }[] };
    expect(diff.changes.flatMap((c) => c.users)).toContainEqual({ id: "u-ops", name: "ops" });
    expect(diff.changes.length).toBeGreaterThan(0);
    expect(diff.changes.every((c) => c.direction === "loses")).toBe(true);
    expect(diff.changes.every((c) => c.confirmed)).toBe(true);
  });

  it("identical sets (a stack export against the same policies in a file): no change, proved", async () => {
    const policies = [opsSigning("'w-hot'")];
    const exported = write("stack.json", { deployment: { resources: [{ type: "pulumi-nodejs:dynamic/keyform:Policy", outputs: { policyId: "p-1", ...policies[0] } }] } });
    const result = await keyform("policy", "diff", exported, write("same.json", policies), "--no-new-access");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^no access changes: proved for any user with any tags \(symbolic principals\), every activity type and version of the service's catalog/);
    expect(result.stdout).toMatch(/principals: symbolic: any user with any tags/);
  });

  it("one truth: --break-glass agrees with the table, and `can` with simulate, over the organization's users", async () => {
    const oncall = (consensus: string) => [{ policyName: "oncall policies", effect: "EFFECT_ALLOW", condition: "activity.resource == 'POLICY'", consensus }];
    const before = write("bg-before.json", oncall("approvers.any(u, u.tags.contains('tag-oncall'))"));
    const after = write("bg-after.json", oncall("approvers.filter(u, u.tags.contains('tag-oncall')).count() >= 2"));
    const users = write("bg-users.json", { users: [{ id: "u-alice", tags: ["tag-oncall"], alias: "alice" }, { id: "u-bob", tags: [], alias: "bob" }] });
    const run = await keyform("policy", "diff", before, after, "--users", users, "--break-glass", "tag-oncall");
    expect(run.stdout).toMatch(/LOSES alice · CREATE_POLICIES, CREATE_POLICY/);
    expect(run.stdout).toMatch(/break-glass tag tag-oncall: LOSES CREATE_POLICIES, CREATE_POLICY/);
    expect(run.stdout).not.toMatch(/keeps its recovery access/);
    expect(run.code).toBe(1);
    // `can` names no version the service does not have: its answer is simulate's on the real request.
    const policies = write("export.json", [
      { policyName: "wallets", effect: "EFFECT_ALLOW", condition: "activity.resource == 'WALLET'" },
      { policyName: "no cold", effect: "EFFECT_DENY", condition: "activity.kind == 'EXPORT_WALLET' && wallet.id == 'w-cold'" },
    ]);
    const cold = await keyform("policy", "can", "alice", "EXPORT_WALLET", "w-cold", "--policies", policies, "--users", users);
    expect(cold.stdout).toMatch(/alone: no \(proved\)/);
    expect(cold.code).toBe(1);
    const request = { type: "ACTIVITY_TYPE_EXPORT_WALLET", parameters: { walletId: "w-cold", targetPublicKey: "04" }, approvers: [{ id: "u-alice", tags: ["tag-oncall"] }], keywords: { wallet: { id: "w-cold", imported: false, exported: false, label: "" } } };
    const simulated = await keyform("policy", "simulate", "--policies", policies, "--activity", write("cold.json", request), "--json");
    expect(simulated.code).toBe(0);
    expect((JSON.parse(simulated.stdout) as { outcome: string }).outcome).toBe("OUTCOME_DENY_EXPLICIT");
    const hot = await keyform("policy", "can", "alice", "EXPORT_WALLET", "w-hot", "--policies", policies, "--users", users, "--json");
    expect(hot.code).toBe(0);
    const witness = (JSON.parse(hot.stdout) as { answers: { how: string; witness: { type: string; approvers: { id: string; tags: string[] }[] } }[] }).answers.find((a) => a.how === "alone")!.witness;
    expect(witness.type).toBe("ACTIVITY_TYPE_EXPORT_WALLET");
    expect(witness.approvers).toEqual([{ id: "u-alice", tags: ["tag-oncall"], email: "", alias: "alice" }]);
    const replayed = await keyform("policy", "simulate", "--policies", policies, "--activity", write("hot-witness.json", witness), "--expect", "allow");
    expect(replayed.code).toBe(0);
    const unknown = await keyform("policy", "can", "alice", "EXPORT_WALLET_V2", "--policies", policies, "--users", users);
    expect(unknown.code).toBe(0);
    const madeUp = await keyform("policy", "can", "alice", "DELETE_POLICIES_NEXT", "--policies", policies, "--users", users);
    expect(madeUp.code).not.toBe(0);
    expect(madeUp.stderr).toMatch(/<kind>: "DELETE_POLICIES_NEXT" is not an activity kind of the service's catalog/);
  });

  it("prove over --users: witnesses name the organization's users with their own tags; without users the report says the principals are symbolic", async () => {
    const policies = write("prove.json", [
      { policyName: "ops sign", effect: "EFFECT_ALLOW", condition: "activity.kind == 'SIGN_TRANSACTION' && eth.tx.value < 100", consensus: "approvers.any(u, u.tags.contains('tag-ops'))" },
      { policyName: "raw hex", effect: "EFFECT_ALLOW", condition: "activity.params.encoding == 'PAYLOAD_ENCODING_HEXADECIMAL'", consensus: "approvers.any(u, u.tags.contains('tag-ops'))" },
      { policyName: "ops sign again", effect: "EFFECT_ALLOW", condition: "activity.kind == 'SIGN_TRANSACTION' && eth.tx.value < 100", consensus: "approvers.any(u, u.tags.contains('tag-ops'))" },
    ]);
    const users = write("prove-users.json", { users: [{ userId: "u-ops", userTags: ["tag-ops"], userName: "ops" }, { id: "u-dev", tags: [], alias: "dev" }] });
    const shown = await keyform("policy", "prove", policies, "--users", users);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/"raw hex": may-error on \d+ kinds/);
    expect(shown.stdout).toMatch(/"ops sign again": redundant/);
    expect(shown.stdout).toMatch(/principals: the organization's 2 users, with their own tags/);
    const json = await keyform("policy", "prove", policies, "--users", users, "--json");
    expect(json.code).toBe(0);
    const result = JSON.parse(json.stdout) as { symbolic: boolean; findings: { witness?: { approvers: { id: string; tags: string[] }[] } }[] };
    expect(result.symbolic).toBe(false);
    const approvers = result.findings.flatMap((f) => f.witness?.approvers ?? []);
    expect(approvers.length).toBeGreaterThan(0);
    const tags: Record<string, string[]> = { "u-ops": ["tag-ops"], "u-dev": [] };
    for (const a of approvers) expect(a.tags).toEqual(tags[a.id]);
    const symbolic = await keyform("policy", "prove", policies);
    expect(symbolic.code).toBe(0);
    expect(symbolic.stdout).toMatch(/principals: symbolic/);
  });

  it("a bad file is a clear error naming the entry", async () => {
    const result = await keyform("policy", "diff", write("bad.json", [{ policyName: "x", effect: "ALLOW" }]), write("ok.json", []));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/bad\.json\[0\]\.effect: expected EFFECT_ALLOW or EFFECT_DENY/);
  });

  describe("against the live organization", () => {
    let t: TestEmulator;
    let botId = "";
    beforeAll(async () => {
      t = await startTestEmulator();
      const { userIds } = await t.client.createUsers({ users: [{ userName: "diff-bot", apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }] });
      botId = userIds[0]!;
      await t.client.createPolicy({ policyName: "bot tags", effect: "EFFECT_ALLOW", condition: "activity.kind == 'CREATE_USER_TAG'", consensus: `approvers.any(u, u.id == '${botId}')`, notes: "" });
    }, 60_000);
    afterAll(async () => {
      await t?.stop();
    });

    it("live vs the declared policies: the organization's real users are the principals", async () => {
      const declared = write("declared.json", [
        { policyName: "bot tags", effect: "EFFECT_ALLOW", condition: "activity.kind == 'CREATE_USER_TAG'", consensus: `approvers.any(u, u.id == '${botId}')` },
        { policyName: "bot deletes tags", effect: "EFFECT_ALLOW", condition: "activity.kind == 'DELETE_USER_TAGS'", consensus: `approvers.any(u, u.id == '${botId}')` },
      ]);
      const result = await keyform("policy", "diff", "live", declared, "--data", t.dataDir, "--no-new-access");
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/GAINS diff-bot · DELETE_USER_TAGS[^\n]* · alone/);
      // The root user is never listed: the root quorum bypasses policies.
      expect(result.stdout).toMatch(/principals: the organization's 1 users \(root quorum members left out\)/);
      const same = await keyform("policy", "diff", "live", "live", "--data", t.dataDir, "--no-new-access");
      expect(same.code).toBe(0);
      expect(same.stdout).toMatch(/^no access changes/);
    });

    it("prove live: the organization's policies, over its real users", async () => {
      const result = await keyform("policy", "prove", "live", "--data", t.dataDir, "--json");
      expect(result.code).toBe(0);
      const proved = JSON.parse(result.stdout) as { symbolic: boolean; findings: { policyName: string; property: string }[] };
      expect(proved.symbolic).toBe(false);
      expect(proved.findings).toContainEqual(expect.objectContaining({ policyName: "bot tags", property: "never-errors" }));
      const text = await keyform("policy", "prove", "live", "--data", t.dataDir);
      expect(text.stdout).toMatch(/principals: the organization's 1 users, with their own tags/);
    });

    it("names the organization's wallets and tags in the table, not their ids", async () => {
      const { walletId } = await t.client.createWallet({ walletName: "Treasury", accounts: [] });
      const { userTagId } = await t.client.createUserTag({ userTagName: "signers", userIds: [botId] });
      const declared = write("signing.json", [{ policyName: "signers sign", effect: "EFFECT_ALLOW", condition: `activity.kind == 'SIGN_TRANSACTION' && wallet.id == '${walletId}'`, consensus: `approvers.any(u, u.tags.contains('${userTagId}'))` }]);
      const result = await keyform("policy", "diff", write("none.json", []), declared, "--data", t.dataDir);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`wallet Treasury (${walletId})`);
      expect(result.stdout).not.toMatch(new RegExp(`· wallet ${walletId}`));
    });
  });
});
