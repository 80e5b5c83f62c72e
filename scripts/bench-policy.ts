/**
 * Benchmark of the policy engine: checking expressions (parse, type check, lint), deciding an
 * activity under 50 policies, and what policy evaluation adds to an activity in the emulator
 * (create_user_tag by the root quorum, which bypasses policies, against the same by a non-root
 * key under 20 policies; sequential, over loopback, each one fsync'd transaction). Prints
 * figures; run with `npm run bench:policy`.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { ApiKeyStamper } from "../sdk/protocol/api-key-stamper";
import { KeyformClient } from "../sdk/client/client";
import { generateApiKeyPair } from "../sdk/protocol/keys";
import { startEmulator } from "../sdk/emulator";
import { checkPolicyExpression, simulate, type PolicyRecord } from "../sdk/policy";

const EXPRESSIONS: [kind: "condition" | "consensus" | "time", text: string][] = [
  ["consensus", "approvers.filter(user, user.tags.contains('tag-sec')).count() >= 2"],
  ["condition", "activity.resource in ['AUTH','OTP'] && activity.action in ['CREATE','VERIFY']"],
  ["condition", "eth.tx.contract_call_args['wad'] < 1000000000000000000 && eth.tx.contract_call_args['dst'] == '0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7'"],
  ["condition", "activity.type == 'ACTIVITY_TYPE_DELETE_USERS' && activity.params.user_ids.count() == 1 && 'u-temp' in activity.params.user_ids"],
  ["condition", "solana.tx.transfers.any(t, t.to == 'ADDRESS_TABLE_LOOKUP') || solana.tx.spl_transfers.any(t, t.to == 'ADDRESS_TABLE_LOOKUP')"],
  ["condition", "tempo.tx.calls.all(call, call.to == '0x40f008f4c17075efca092ae650655f6693aeced0' && call.input[34..74] == '1111111111111111111111111111111111111111')"],
  ["condition", "activity.params.signatures.all(s, s.derivation.type == 'static_deposit' && s.derivation.static_deposit.index < 10)"],
  ["time", "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')"],
];

function perOp(label: string, count: number, fn: (i: number) => void): void {
  for (let i = 0; i < Math.min(200, count); i++) fn(i); // warm up
  const t0 = performance.now();
  for (let i = 0; i < count; i++) fn(i);
  const us = ((performance.now() - t0) * 1000) / count;
  process.stdout.write(`${label}: ${us.toFixed(1)} µs/op (${count} ops)\n`);
}

async function timed(count: number, fn: () => Promise<unknown>): Promise<{ p50: number; p90: number }> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await fn();
    latencies.push(performance.now() - t0);
  }
  latencies.sort((a, b) => a - b);
  return { p50: latencies[Math.floor(count * 0.5)]!, p90: latencies[Math.floor(count * 0.9)]! };
}

async function main(): Promise<void> {
  perOp("check (parse + type check + lint), one documented expression", 6000, (i) => {
    const [kind, text] = EXPRESSIONS[i % EXPRESSIONS.length]!;
    checkPolicyExpression(kind, text);
  });

  const policies: PolicyRecord[] = Array.from({ length: 50 }, (_, i) => ({
    policyId: `p-${i}`,
    policyName: `policy ${i}`,
    effect: i % 10 === 0 ? "EFFECT_DENY" : "EFFECT_ALLOW",
    condition: `activity.resource == 'USER' && 'u-${i}' in activity.params.user_ids`,
    consensus: `approvers.any(user, user.tags.contains('tag-${i}'))`,
  }));
  // DELETE_USERS: `user_ids` is one of the documented activity.params fields.
  const activity = { type: "ACTIVITY_TYPE_DELETE_USERS", parameters: { userIds: ["u-7"] }, approvers: [{ id: "u", tags: ["tag-7"] }] };
  if (simulate(policies, activity).outcome !== "OUTCOME_ALLOW") throw new Error("benchmark policies do not allow the activity");
  perOp("decide one activity under 50 policies (compiled once)", 5000, () => simulate(policies, activity));

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-bench-policy-"));
  const emulator = await startEmulator({ port: 0, dataDir, logLevel: "silent" });
  try {
    const b = emulator.bootstrap;
    const client = (pair: { publicKey: string; privateKey: string }) =>
      new KeyformClient({ baseUrl: emulator.url, organizationId: b.organizationId, stamper: new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }) });
    const root = client({ publicKey: b.apiPublicKey, privateKey: b.apiPrivateKey });
    const botKey = generateApiKeyPair();
    const { userIds } = await root.createUsers({
      users: [{ userName: "bot", apiKeys: [{ apiKeyName: "bot", publicKey: botKey.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
    });
    for (let i = 0; i < 19; i++) {
      await root.createPolicy({ policyName: `other ${i}`, effect: "EFFECT_ALLOW", condition: `activity.kind == 'CREATE_WALLET' && activity.params.wallet_name == 'w-${i}'`, notes: "" });
    }
    await root.createPolicy({ policyName: "bot tags", effect: "EFFECT_ALLOW", condition: "activity.kind == 'CREATE_USER_TAG'", consensus: `approvers.any(u, u.id == '${userIds[0]}')`, notes: "" });
    const bot = client(botKey);
    let n = 0;
    const count = 200;
    const bypass = await timed(count, () => root.createUserTag({ userTagName: `root-${n++}`, userIds: [] }));
    const evaluated = await timed(count, () => bot.createUserTag({ userTagName: `bot-${n++}`, userIds: [] }));
    process.stdout.write(`emulator create_user_tag, root quorum (policies bypassed): p50 ${bypass.p50.toFixed(2)} ms, p90 ${bypass.p90.toFixed(2)} ms (${count} sequential)\n`);
    process.stdout.write(`emulator create_user_tag, non-root under 20 policies: p50 ${evaluated.p50.toFixed(2)} ms, p90 ${evaluated.p90.toFixed(2)} ms (${count} sequential)\n`);
  } finally {
    await emulator.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
