/**
 * Benchmark of `keyform policy diff` at the service's limits: two sets of 100 policies (the second changes a handful:
 * a wider signing ALLOW, a lowered approval threshold, a removed DENY, a narrowed ALLOW) over
 * an organization of 100 users in 10 tags, proved with Z3. Prints the time of the diff from a
 * cold start (Z3's start-up included), the process's wall and CPU time, and the changes found. Run with `npm run bench:policy-diff`
 * (`-- --policies N --users M` for other sizes).
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import type { PolicyRecord } from "../sdk/policy";
import { diffPolicies, type DiffUser } from "../sdk/policy/smt/diff";

const RESOURCES = ["USER", "POLICY", "WALLET", "PRIVATE_KEY", "CREDENTIAL", "INVITATION", "ORGANIZATION", "SMART_CONTRACT_INTERFACE", "WEBHOOK_ENDPOINT", "CONFIG"];
const ACTIONS = ["CREATE", "UPDATE", "DELETE"];

/** A set of `count` policies in the shapes organizations write. */
function policySet(count: number): PolicyRecord[] {
  const policies: PolicyRecord[] = [];
  for (let i = 0; policies.length < count; i++) {
    const tag = `tag-${i % 10}`;
    const resource = RESOURCES[i % RESOURCES.length]!;
    const action = ACTIONS[i % ACTIONS.length]!;
    const id = `p-${i}`;
    switch (i % 5) {
      case 0:
        policies.push({ policyId: id, policyName: id, effect: "EFFECT_ALLOW", condition: `activity.resource == '${resource}' && activity.action == '${action}'`, consensus: `approvers.any(u, u.tags.contains('${tag}'))` });
        break;
      case 1:
        policies.push({ policyId: id, policyName: id, effect: "EFFECT_ALLOW", condition: `activity.resource == '${resource}'`, consensus: `approvers.filter(u, u.tags.contains('${tag}')).count() >= 2` });
        break;
      case 2:
        policies.push({ policyId: id, policyName: id, effect: "EFFECT_ALLOW", condition: `activity.kind == 'SIGN_TRANSACTION' && wallet.id == 'w-${i}'`, consensus: `approvers.any(u, u.tags.contains('${tag}'))` });
        break;
      case 3:
        policies.push({ policyId: id, policyName: id, effect: "EFFECT_DENY", condition: `activity.resource == '${resource}' && activity.action == 'DELETE'`, consensus: `approvers.any(u, u.id == 'user-${i}')` });
        break;
      default:
        policies.push({ policyId: id, policyName: id, effect: "EFFECT_ALLOW", condition: `activity.kind in ['CREATE_USER_TAG', 'UPDATE_USER_TAG'] && activity.params.user_ids.count() <= ${i % 4}`, consensus: `approvers.any(u, u.id == 'user-${i}')` });
    }
  }
  return policies;
}

/** The same set with four edits a pull request might make. */
function edited(policies: readonly PolicyRecord[]): PolicyRecord[] {
  const next = policies.map((p) => ({ ...p }));
  if (next.length < 12) throw new Error("--policies: at least 12");
  next[2] = { ...next[2]!, condition: "activity.kind == 'SIGN_TRANSACTION' && wallet.id in ['w-2', 'w-cold']" };
  next[1] = { ...next[1]!, consensus: "approvers.filter(u, u.tags.contains('tag-1')).count() >= 1" };
  next.splice(3, 1);
  next[10] = { ...next[10]!, condition: "activity.resource == 'USER' && activity.action == 'UPDATE'" };
  return next;
}

function users(count: number): DiffUser[] {
  return Array.from({ length: count }, (_, i) => ({ id: `user-${i}`, tags: [`tag-${i % 10}`, ...(i % 7 === 0 ? [`tag-${(i + 3) % 10}`] : [])], alias: `user ${i}` }));
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { policies: { type: "string", default: "100" }, users: { type: "string", default: "100" } } });
  const size = Number(values.policies);
  const before = policySet(size);
  const after = edited(before);
  // From a cold start, as `keyform policy diff` runs: the diff starts Z3 itself and works out
  // what needs no solver while it starts.
  const t0 = performance.now();
  const diff = await diffPolicies(before, after, { users: users(Number(values.users)) });
  const t1 = performance.now();
  const gains = diff.changes.filter((c) => c.direction === "gains").length;
  process.stdout.write(
    `diff of ${before.length} vs ${after.length} policies over ${diff.userCount} users, ${diff.typeCount} activity types, Z3's start included: ${(t1 - t0).toFixed(0)} ms (${diff.changes.length} changes, ${gains} gaining access, ${diff.changes.filter((c) => c.confirmed).length} replayed by the evaluator)\n`,
  );
  const cpu = process.cpuUsage();
  process.stdout.write(
    `wall since process start: ${performance.now().toFixed(0)} ms; CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms (every thread); peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB\n`,
  );
  process.stdout.write(`verdict: ${diff.proved ? "proved" : `not proved (${diff.notProved.map((n) => `${n.clause}: ${n.reason}`).join("; ")})`}\n`);
  process.exit(0);
}

void main();
