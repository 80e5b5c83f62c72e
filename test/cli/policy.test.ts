/**
 * `keyform policy check` and `keyform policy simulate`, run as the compiled CLI in a child
 * process, the way a project's CI runs them: against files of declared policies, a stack
 * export, and a running emulator (its data directory).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyform, writeFixture } from "./run-cli";
import { declaredPolicies } from "../../sdk/policy";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { DOCUMENTED_EXAMPLES } from "../policy/examples";

let dir: string;
const write = (name: string, value: unknown) => writeFixture(dir, name, value);

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-policy-cli-"));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("keyform policy check", () => {
  it("reports each error and warning with file, policy, property, line and column; exit 1 on an error", async () => {
    const file = write("policies.json", {
      policies: [
        { policyName: "fine", effect: "EFFECT_ALLOW", condition: "activity.resource == 'USER'", notes: "" },
        { policyName: "broken", effect: "EFFECT_ALLOW", condition: "activity.resource == 'USER' &&& (" },
        { policyName: "mixed", effect: "EFFECT_DENY", condition: "activity.action == 'DELETE' && activity.resource == 'USER' || activity.resource == 'POLICY'" },
        { policyName: "typo", effect: "EFFECT_ALLOW", consensus: "approvers.any(u,\n u.tagz.contains('t'))" },
      ],
    });
    const { code, stdout } = await keyform("policy", "check", file);
    expect(code).toBe(1);
    expect(stdout).toContain(`${file}: policy "broken": condition line 1, column 31: unexpected character '&' (use '&&') (error: syntax)`);
    expect(stdout).toContain(`${file}: policy "mixed": condition line 1, column 29:`);
    expect(stdout).toContain("(warning: mixed-and-or)");
    expect(stdout).toContain(`${file}: policy "typo": consensus line 2, column 4: User has no field 'tagz'`);
    expect(stdout).not.toContain('policy "fine"');
    // "typo" is also an ALLOW with no condition: it covers signing unscoped.
    expect(stdout).toContain(`${file}: policy "typo": condition line 1, column 1: this ALLOW covers signing`);
    expect(stdout).toContain("2 errors, 2 warnings");
  });

  it("checks a bare expression of a kind, an expression file, and fails on warnings with --strict", async () => {
    expect(await keyform("policy", "check", "--kind", "consensus", "approvers.count() >= 2")).toMatchObject({ code: 0, stdout: "0 errors, 0 warnings\n" });
    const time = write("office-hours.txt", "CronSpan('0 9 * * 1-5', '9d', 'UTC')");
    const timeCheck = await keyform("policy", "check", "--kind", "time", time);
    expect(timeCheck.code).toBe(1);
    expect(timeCheck.stdout).toContain("longer than the maximum of 7d");
    const lint = "wallet.id == 'w' || private_key.id == 'k'";
    expect((await keyform("policy", "check", lint)).code).toBe(0);
    const strict = await keyform("policy", "check", "--strict", "--json", lint);
    expect(strict.code).toBe(1);
    expect(JSON.parse(strict.stdout)).toEqual([expect.objectContaining({ source: "expression", property: "condition", rule: "wallet-and-private-key", severity: "warning" })]);
  });
});

describe("keyform policy simulate", () => {
  it("decides the documented examples from a policies file, and --expect fails a test whose outcome differs", async () => {
    for (const example of DOCUMENTED_EXAMPLES.filter((e) => ["4 ", "14 ", "20 "].some((p) => e.name.startsWith(p)))) {
      const policies = write("example-policies.json", example.policies);
      const allowed = await keyform("policy", "simulate", "--policies", policies, "--activity", write("allowed.json", example.allowed), "--expect", "allow");
      expect(allowed, example.name).toMatchObject({ code: 0 });
      expect(allowed.stdout).toMatch(/^outcome: OUTCOME_ALLOW/);
      const refusedFile = write("refused.json", example.refused);
      expect(await keyform("policy", "simulate", "--policies", policies, "--activity", refusedFile, "--expect", "deny")).toMatchObject({ code: 0 });
      const wrong = await keyform("policy", "simulate", "--policies", policies, "--activity", refusedFile, "--expect", "allow");
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toBe(`expected allow, got ${example.refusedOutcome}\n`);
      // Each policy's evaluation is printed on its own line.
      for (const policy of example.policies) expect(wrong.stdout).toContain(`"${policy.policyName}" ${policy.policyId}:`);
    }
  });

  it("decides the docs' Tempo and secrets examples from activity files with tempo and secret keywords", async () => {
    const policies = write("docs-policies.json", [
      { policyName: "tempo to one contract", effect: "EFFECT_ALLOW", condition: "tempo.tx.calls.count() == 1 && tempo.tx.calls[0].function_signature == '0xa9059cbb' && wallet.id == 'w-1'" },
      { policyName: "no secret passwords", effect: "EFFECT_DENY", condition: "secret.static_properties['kind'] == 'password'" },
      { policyName: "export secrets", effect: "EFFECT_ALLOW", condition: "activity.kind == 'EXPORT_SECRETS'" },
    ]);
    const tempo = (signature: string) => ({
      type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
      parameters: { signWith: "0x1", unsignedTransaction: "76", type: "TRANSACTION_TYPE_TEMPO" },
      approvers: [{ id: "u-1" }],
      keywords: { wallet: { id: "w-1" }, tempo: { tx: { calls: [{ to: "0x2", input: `${signature}00`, function_signature: signature }] } } },
    });
    expect(await keyform("policy", "simulate", "--policies", policies, "--activity", write("tempo-ok.json", tempo("0xa9059cbb")), "--expect", "allow")).toMatchObject({ code: 0 });
    expect(await keyform("policy", "simulate", "--policies", policies, "--activity", write("tempo-no.json", tempo("0x095ea7b3")), "--expect", "deny-implicit")).toMatchObject({ code: 0 });
    const secret = (kind: string) => ({ type: "ACTIVITY_TYPE_EXPORT_SECRETS", approvers: [{ id: "u-1" }], keywords: { secret: { static_properties: { kind } } } });
    expect(await keyform("policy", "simulate", "--policies", policies, "--activity", write("card.json", secret("creditCard")), "--expect", "allow")).toMatchObject({ code: 0 });
    const password = await keyform("policy", "simulate", "--policies", policies, "--activity", write("password.json", secret("password")), "--expect", "deny-explicit");
    expect(password).toMatchObject({ code: 0 });
    expect(password.stdout).toMatch(/^outcome: OUTCOME_DENY_EXPLICIT/);
    // A camelCase field in a hand-written activity is refused, naming it, rather than read as missing.
    const camel = await keyform("policy", "simulate", "--policies", policies, "--activity", write("camel.json", { ...tempo("0xa9059cbb"), keywords: { tempo: { tx: { calls: [{ functionSignature: "0xa9059cbb" }] } } } }));
    expect(camel.code).toBe(1);
    expect(camel.stderr).toContain("activity.keywords.tempo.tx.calls[0].functionSignature: TempoCall has no field 'functionSignature'");
  });

  it("refuses a malformed activity naming the field", async () => {
    const policies = write("none.json", []);
    const bad = await keyform("policy", "simulate", "--policies", policies, "--type", "CREATE_USER_TAG");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("activity.type: expected an ACTIVITY_TYPE_");
  });

  it("reads the policies of a pulumi stack export", () => {
    const exported = {
      version: 3,
      deployment: {
        resources: [
          { type: "pulumi:pulumi:Stack", urn: "urn:stack" },
          {
            type: "pulumi-nodejs:dynamic/keyform:Policy",
            outputs: { policyId: "p-1", policyName: "ops", effect: "EFFECT_ALLOW", condition: "activity.kind == 'CREATE_USER_TAG'", consensus: "" },
          },
        ],
      },
    };
    expect(declaredPolicies(exported, "stack.json")).toEqual([
      { policyId: "p-1", policyName: "ops", effect: "EFFECT_ALLOW", condition: "activity.kind == 'CREATE_USER_TAG'", consensus: "", time: null },
    ]);
    expect(() => declaredPolicies([{ policyName: "x", effect: "ALLOW" }], "f.json")).toThrow(/f\.json\[0\]\.effect: expected EFFECT_ALLOW or EFFECT_DENY/);
  });

  describe("against a running emulator", () => {
    let t: TestEmulator;
    let botId: string;
    beforeAll(async () => {
      t = await startTestEmulator();
      const { userIds } = await t.client.createUsers({ users: [{ userName: "ci-bot", apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }] });
      botId = userIds[0]!;
      const { userTagId } = await t.client.createUserTag({ userTagName: "ci", userIds: [botId] });
      await t.client.createPolicy({
        policyName: "ci creates tags",
        effect: "EFFECT_ALLOW",
        condition: "activity.kind == 'CREATE_USER_TAG'",
        consensus: `approvers.any(user, user.tags.contains('${userTagId}'))`,
        notes: "",
      });
      await t.client.createPolicy({ policyName: "no policy deletes", effect: "EFFECT_DENY", condition: "activity.resource == 'POLICY' && activity.action == 'DELETE'", notes: "" });
    });
    afterAll(async () => {
      await t?.stop();
    });

    it("reads the organization's policies and the approvers' tags from the server", async () => {
      const data = ["--data", t.dataDir, "--approver", botId];
      const tags = await keyform("policy", "simulate", ...data, "--type", "ACTIVITY_TYPE_CREATE_USER_TAG", "--parameters", '{"userTagName":"x","userIds":[]}', "--expect", "allow");
      expect(tags.stdout).toMatch(/^outcome: OUTCOME_ALLOW \(ALLOW policy "ci creates tags" applies\)/);
      expect(tags.code).toBe(0);
      const deletes = await keyform("policy", "simulate", ...data, "--type", "ACTIVITY_TYPE_DELETE_POLICY", "--parameters", '{"policyId":"p"}', "--json");
      expect(JSON.parse(deletes.stdout)).toMatchObject({
        outcome: "OUTCOME_DENY_EXPLICIT",
        evaluations: [
          { policyName: "ci creates tags", outcome: "OUTCOME_DENY_IMPLICIT" },
          { policyName: "no policy deletes", outcome: "OUTCOME_DENY_EXPLICIT" },
        ],
      });
    });
  });
});
