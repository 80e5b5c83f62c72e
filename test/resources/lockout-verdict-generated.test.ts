/**
 * The lockout proof against what the emulator does, on generated plans (seeded, so a failure
 * replays from its seed), over real HTTP below the engine. For each plan:
 *
 * 1. the root user makes the organization the plan starts from: a deployer (its own user and
 *    API key), a tag that may hold it, an ALLOW that may name it (by id or by the tag), maybe a
 *    list of its key's own and an organization-level IP allowlist;
 * 2. the proof (`blockedForPlan`, what `check` runs) decides, from the deployer's session, what
 *    the deployer could not do once a random plan of 1-4 resources (new ALLOW/DENY policies, the
 *    adopted ALLOW changed, the adopted tag with or without the deployer, new tags, the
 *    organization-level list and the key's own list) is applied;
 * 3. the root user applies the plan (it is never shut out: the organization-level lists always
 *    let 127.0.0.1 in, and the root key has no list of its own);
 * 4. the deployer tries its next activities: a read, each object's update (apply the plan
 *    again), then each delete in the order the proof plays a destroy in (`destroyOrder`).
 *
 * Every try must come out as the proof said, in both directions (no refusal it missed, no
 * refusal that did not happen), and both outcomes must occur across the run. Every generated
 * policy names its own deployer, so plans do not touch each other.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper, KeyformClient } from "../../sdk/client";
import { ConsensusNeededError, PermissionDeniedError } from "../../sdk/client/errors";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { sessionFor } from "../../sdk/resources/runtime/client";
import { ProviderContext } from "../../sdk/resources/runtime/context";
import { blockedForPlan, destroyOrder, type Blocked } from "../../sdk/resources/runtime/deployer-access";
import type { PlannedObject } from "../../sdk/resources/runtime/org-after-plan";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { seededRandom } from "../support/seeded-random";

/** Another seed replays another run: LOCKOUT_SEED=<n>. */
const SEED = Number(process.env.LOCKOUT_SEED ?? 3606);
const PLANS = 40;

let emu: TestEmulator;

beforeAll(async () => {
  emu = await startTestEmulator();
});

afterAll(async () => {
  await emu?.stop();
});

const CONDITIONS = [
  undefined,
  "activity.resource == 'POLICY'",
  "activity.resource == 'USER'",
  "activity.action == 'DELETE'",
  "activity.resource == 'POLICY' && activity.action == 'DELETE'",
  "activity.action == 'UPDATE'",
  "activity.resource == 'IP_ALLOWLIST'",
];
const HERE = [{ cidr: "127.0.0.0/8" }, { cidr: "::1/128" }];
const ELSEWHERE = [{ cidr: "203.0.113.0/24" }];

interface Deployer {
  readonly userId: string;
  readonly publicKey: string;
  readonly privateKey: string;
  readonly client: KeyformClient;
}

/** Where the generated case stands: the objects the root user made, by program name. */
interface Made {
  tagId: string;
  allowId?: string;
  ids: Map<string, string>;
}

async function newDeployer(name: string): Promise<Deployer> {
  const key = generateApiKeyPair();
  const { userIds } = await emu.client.createUsers({
    users: [{ userName: name, apiKeys: [{ apiKeyName: name, publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
  });
  const client = new KeyformClient({
    baseUrl: emu.emulator.url,
    organizationId: emu.emulator.bootstrap.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }),
    poll: { intervalMs: 50 },
  });
  return { userId: userIds[0]!, publicKey: key.publicKey, privateKey: key.privateKey, client };
}

/** The proof, from the deployer's own session, as a provider `check` runs it. */
async function verdict(d: Deployer, planned: PlannedObject[]): Promise<Blocked[]> {
  const settings: Record<string, string> = {
    "keyform:baseUrl": emu.emulator.url,
    "keyform:organizationId": emu.emulator.bootstrap.organizationId,
    "keyform:apiPublicKey": d.publicKey,
    "keyform:apiPrivateKey": d.privateKey,
  };
  const context = new ProviderContext((key) => settings[key], undefined);
  const session = sessionFor(context, context.settings(), emu.emulator.bootstrap.organizationId, "lockout verdict");
  const blocked = await blockedForPlan(session, planned);
  if (blocked === "user not visible") throw new Error("the deployer cannot see its own user");
  return blocked;
}

/** Whether the deployer's request went through: refused by a policy or an allowlist (403) or held for approvals is "refused"; anything else fails the test. */
async function outcome(request: () => Promise<unknown>): Promise<"allowed" | "refused"> {
  try {
    await request();
    return "allowed";
  } catch (error) {
    if (error instanceof PermissionDeniedError || error instanceof ConsensusNeededError) return "refused";
    throw error;
  }
}

/** One generated case: the organization before, and the plan. */
function generate(random: () => number, i: number, d: Deployer, made: Made, keyListBefore: "none" | "here" | "elsewhere", orgListBefore: boolean): PlannedObject[] {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const consensus = () => pick([`approvers.any(user, user.id == '${d.userId}')`, `approvers.any(user, '${made.tagId}' in user.tags)`]);
  const planned: PlannedObject[] = [];
  const used = new Set<string>();
  const count = 1 + Math.floor(random() * 4);
  for (let j = 0; j < count; j++) {
    const choice = pick(["policy", "policy", "allow", "tag", "new-tag", "org-list", "key-list"]);
    if (used.has(choice) && choice !== "policy" && choice !== "new-tag") continue;
    used.add(choice);
    const name = `${choice}-${j}`;
    if (choice === "policy") {
      const condition = pick(CONDITIONS);
      planned.push({ kind: "Policy", name, olds: {}, inputs: { policyName: `gen-${i}-${name}`, effect: pick(["EFFECT_ALLOW", "EFFECT_DENY"]), ...(condition ? { condition } : {}), consensus: consensus(), notes: "" } });
    } else if (choice === "allow" && made.allowId !== undefined) {
      const condition = pick(CONDITIONS);
      planned.push({
        kind: "Policy",
        name,
        olds: { policyName: `gen-${i}-allow` },
        inputs: { policyName: `gen-${i}-allow`, effect: "EFFECT_ALLOW", ...(condition ? { condition } : {}), consensus: consensus(), notes: "", importId: made.allowId },
      });
    } else if (choice === "tag") {
      planned.push({ kind: "UserTag", name, olds: { userTagName: `gen-${i}-t` }, inputs: { userTagName: `gen-${i}-t`, userIds: random() < 0.5 ? [d.userId] : [], importId: made.tagId } });
    } else if (choice === "new-tag") {
      planned.push({ kind: "UserTag", name, olds: {}, inputs: { userTagName: `gen-${i}-${name}`, userIds: [] } });
    } else if (choice === "org-list") {
      planned.push({ kind: "IpAllowlist", name, olds: {}, inputs: { rules: HERE, enabled: random() < 0.7, onEvaluationError: "DENY", ...(orgListBefore ? { importId: "organization" } : {}) } });
    } else if (choice === "key-list") {
      const rules = random() < 0.5 ? HERE : ELSEWHERE;
      planned.push({ kind: "IpAllowlist", name, olds: {}, inputs: { publicKey: d.publicKey, rules, onEvaluationError: "DENY", ...(keyListBefore !== "none" ? { importId: d.publicKey } : {}) } });
    }
  }
  return planned;
}

/** Applies `planned` as the root user (who bypasses policies and is never shut out here). */
async function applyAsRoot(planned: readonly PlannedObject[], made: Made): Promise<void> {
  for (const o of planned) {
    const { inputs } = o;
    if (o.kind === "Policy" && inputs.importId !== undefined) {
      const id = inputs.importId as string;
      await emu.client.updatePolicy({ policyId: id, policyEffect: "EFFECT_ALLOW", policyCondition: (inputs.condition as string | undefined) ?? "", policyConsensus: inputs.consensus as string });
      made.ids.set(o.name, id);
    } else if (o.kind === "Policy") {
      const { policyId } = await emu.client.createPolicy({
        policyName: inputs.policyName as string,
        effect: inputs.effect as "EFFECT_ALLOW" | "EFFECT_DENY",
        ...(inputs.condition ? { condition: inputs.condition as string } : {}),
        consensus: inputs.consensus as string,
        notes: "",
      });
      made.ids.set(o.name, policyId);
    } else if (o.kind === "UserTag" && inputs.importId !== undefined) {
      const { users } = await emu.client.listUsers({});
      const holders = users.filter((u) => (u.userTags ?? []).includes(made.tagId)).map((u) => u.userId);
      const wanted = inputs.userIds as string[];
      await emu.client.updateUserTag({ userTagId: made.tagId, addUserIds: wanted.filter((u) => !holders.includes(u)), removeUserIds: holders.filter((u) => !wanted.includes(u)) });
      made.ids.set(o.name, made.tagId);
    } else if (o.kind === "UserTag") {
      const { userTagId } = await emu.client.createUserTag({ userTagName: inputs.userTagName as string, userIds: inputs.userIds as string[] });
      made.ids.set(o.name, userTagId);
    } else if (o.kind === "IpAllowlist") {
      const publicKey = inputs.publicKey as string | undefined;
      await emu.client.setIpAllowlist(publicKey === undefined ? { enabled: inputs.enabled as boolean, rules: HERE } : { publicKey, rules: inputs.rules as Array<{ cidr: string }> });
    }
  }
}

/** The deployer's update of `o` (applying the plan again), as keyform sends it. */
function applyAgain(d: Deployer, o: PlannedObject, made: Made): Promise<unknown> {
  const id = made.ids.get(o.name)!;
  if (o.kind === "Policy") return d.client.updatePolicy({ policyId: id, policyName: o.inputs.policyName as string });
  if (o.kind === "UserTag") return d.client.updateUserTag({ userTagId: id, addUserIds: [], removeUserIds: [] });
  const publicKey = o.inputs.publicKey as string | undefined;
  return d.client.setIpAllowlist(
    publicKey === undefined
      ? { enabled: o.inputs.enabled as boolean, rules: o.inputs.rules as Array<{ cidr: string }>, onEvaluationError: "DENY" }
      : { publicKey, rules: o.inputs.rules as Array<{ cidr: string }>, onEvaluationError: "DENY" },
  );
}

/** The deployer's delete of `o` (one step of a destroy), as keyform sends it. */
function destroyOne(d: Deployer, o: PlannedObject, made: Made): Promise<unknown> {
  const id = made.ids.get(o.name)!;
  if (o.kind === "Policy") return d.client.deletePolicy({ policyId: id });
  if (o.kind === "UserTag") return d.client.deleteUserTags({ userTagIds: [id] });
  const publicKey = o.inputs.publicKey as string | undefined;
  return d.client.removeIpAllowlist(publicKey === undefined ? {} : { publicKey });
}

describe("the lockout proof against the emulator, on generated plans", () => {
  it(`matches what the deployer can do afterwards, in both directions (seed ${SEED}, ${PLANS} plans)`, { timeout: 300_000 }, async () => {
    const random = seededRandom(SEED);
    const tally = { agreed: 0, allowed: 0, refused: 0 };
    const disagreements: string[] = [];
    for (let i = 0; i < PLANS; i++) {
      const d = await newDeployer(`gen-deployer-${i}`);
      const { userTagId } = await emu.client.createUserTag({ userTagName: `gen-${i}-t`, userIds: random() < 0.6 ? [d.userId] : [] });
      const made: Made = { tagId: userTagId, ids: new Map() };
      const allowBefore = random();
      if (allowBefore < 0.8) {
        const consensus = allowBefore < 0.4 ? `approvers.any(user, user.id == '${d.userId}')` : `approvers.any(user, '${userTagId}' in user.tags)`;
        made.allowId = (await emu.client.createPolicy({ policyName: `gen-${i}-allow`, effect: "EFFECT_ALLOW", consensus, notes: "" })).policyId;
      }
      const keyListBefore = (["none", "here", "elsewhere"] as const)[Math.floor(random() * 3)]!;
      if (keyListBefore !== "none") await emu.client.setIpAllowlist({ publicKey: d.publicKey, rules: keyListBefore === "here" ? HERE : ELSEWHERE });
      // The deployer must get in before the plan: an organization-level list then only when its key's list lets it in.
      const orgListBefore = keyListBefore !== "elsewhere" && random() < 0.3;
      if (orgListBefore) await emu.client.setIpAllowlist({ rules: HERE, enabled: true });

      const planned = generate(random, i, d, made, keyListBefore, orgListBefore);
      const blocked = await verdict(d, planned);
      await applyAsRoot(planned, made);

      const readBlocked = blocked.some((b) => b.goal === "read");
      const refusedByProof = (goal: Blocked["goal"], o: PlannedObject) => readBlocked || blocked.some((b) => b.goal === goal && b.object === `${o.kind} ${JSON.stringify(o.name)}`);
      const check = (what: string, predicted: boolean, actual: "allowed" | "refused") => {
        tally[actual]++;
        if ((actual === "refused") === predicted) tally.agreed++;
        else disagreements.push(`plan ${i}: ${what}: the proof said ${predicted ? "refused" : "allowed"}, the emulator ${actual}; plan ${JSON.stringify(planned)}; blocked ${JSON.stringify(blocked)}`);
      };
      check("read", readBlocked, await outcome(() => d.client.getOrganization({})));
      for (const o of planned) check(`apply ${o.kind} ${o.name}`, refusedByProof("apply this plan again", o), await outcome(() => applyAgain(d, o, made)));
      for (const o of destroyOrder(planned)) check(`destroy ${o.kind} ${o.name}`, refusedByProof("destroy what this stack manages", o), await outcome(() => destroyOne(d, o, made)));

      // The root user puts the organization back for the next plan (the lists first: they concern every key).
      await emu.client.removeIpAllowlist({}).catch(() => undefined);
      await emu.client.removeIpAllowlist({ publicKey: d.publicKey }).catch(() => undefined);
      const { policies } = await emu.client.listPolicies({});
      for (const p of policies.filter((x) => x.policyName.startsWith(`gen-${i}-`))) await emu.client.deletePolicy({ policyId: p.policyId });
    }
    expect(disagreements).toEqual([]);
    // Both verdicts occurred: the test can fail either way.
    expect(tally.allowed).toBeGreaterThan(20);
    expect(tally.refused).toBeGreaterThan(20);
    expect(tally.agreed).toBe(tally.allowed + tally.refused);
  });
});
