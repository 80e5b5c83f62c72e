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
    expect(shown.stdout).toMatch(/witness: SIGN_TRANSACTION_V2; approved by .*params \{"signWith":"[^"]+","unsignedTransaction":"0x00","type":"TRANSACTION_TYPE_ETHEREUM"\}; wallet.id = 'w-cold'/);
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
