/**
 * Batching (`sdk/resources/runtime/batch.ts`) against the real emulator, through a proxy that
 * counts (and, where asked, injects faults into) every request: creates and deletes of one kind
 * waiting at the same time go out as one plural activity; a refused item fails on its own
 * resource with its own message while the others complete, and nothing of a refused batch is
 * applied; lost answers, 429s, 503s and resets leave every object exactly once. Afterwards the
 * organization is counted with the official client (`@turnkey/http`), not keyform's.
 */
import { ApiKeyStamper as TurnkeyApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeyClient } from "@turnkey/http";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { ConnectionError } from "../../sdk/client/errors";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { handlers } from "../../sdk/resources/runtime";
import { directContext } from "../../sdk/resources/runtime/context";
import { batchesOf } from "../../sdk/resources/runtime/batch";
import { forgetBatchReplays, forgetSettledIndex } from "../../sdk/resources/runtime/batch-journal";
import * as ownership from "../../sdk/resources/runtime/ownership";
import { readEntry } from "../../sdk/resources/runtime/ownership";
import { URN_INPUT } from "../../sdk/resources/runtime/plan-census";
import { forgetEarlierWork } from "../../sdk/resources/runtime/earlier-work";
import { forgetSharedReads } from "../../sdk/resources/runtime/shared-reads";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { FAULTS, startFaultProxy, type Fault, type FaultProxy } from "../support/fault-proxy";
import { useRuntimeSettings } from "./harness/runtime-settings";

let emu: TestEmulator;
let proxy: FaultProxy;
let restoreSettings: (() => void) | undefined;
let official: TurnkeyClient;

beforeAll(async () => {
  emu = await startTestEmulator();
  proxy = await startFaultProxy({ upstream: emu.emulator.url, rate: 0, seed: 1 });
  restoreSettings = useRuntimeSettings(proxy.url, emu.emulator.bootstrap);
  const { apiPublicKey, apiPrivateKey } = emu.emulator.bootstrap;
  official = new TurnkeyClient({ baseUrl: emu.emulator.url }, new TurnkeyApiKeyStamper({ apiPublicKey, apiPrivateKey }));
});

afterAll(async () => {
  restoreSettings?.();
  await proxy?.close();
  await emu?.stop();
});

beforeEach(() => {
  proxy.setRate(0);
  proxy.resetCounts();
  forgetSharedReads();
  forgetEarlierWork();
});

/** Submits by endpoint (e.g. `create_policies`) since the last reset. */
function submits(): Record<string, number> {
  return Object.fromEntries(
    Object.entries(proxy.counts.byPath)
      .filter(([path]) => path.startsWith("/public/v1/submit/"))
      .map(([path, count]) => [path.replace("/public/v1/submit/", ""), count]),
  );
}

interface Made {
  kind: string;
  key: string;
  id?: string;
  outs?: Record<string, unknown>;
  error?: string;
}

/** The URN of a declared resource in `stack`, as the engine names a dynamic resource. */
const urnIn = (stack: string, kind: string, key: string) => `urn:pulumi:${stack}::proj::pulumi-nodejs:dynamic/keyform:${kind}::${key}`;

/**
 * Runs every create at once, as the engine does for ready resources; failures are kept per
 * resource. With `stack`, each create carries its resource's URN, as in an engine run: it is
 * journaled for that stack (`ownership.ts`, `batch-journal.ts`).
 */
async function createAll(declared: Array<{ kind: string; key: string; args: Record<string, unknown> }>, stack?: string): Promise<Made[]> {
  return Promise.all(
    declared.map(async ({ kind, key, args: declaredArgs }) => {
      const handler = handlers[kind]!;
      const args = stack === undefined ? declaredArgs : { ...declaredArgs, [URN_INPUT]: urnIn(stack, kind, key) };
      try {
        const { inputs } = await handler.check({}, args);
        const { id, outs } = await handler.create(inputs);
        return { kind, key, id, outs: outs as Record<string, unknown> };
      } catch (error) {
        return { kind, key, error: (error as Error).message };
      }
    }),
  );
}

/** Every object of the organization by kind and key, read with the official client. */
async function officialCensus(): Promise<Record<string, Map<string, string[]>>> {
  const organizationId = emu.emulator.bootstrap.organizationId;
  const [{ policies }, { users }, { organizationData }] = await Promise.all([
    official.getPolicies({ organizationId }),
    official.getUsers({ organizationId }),
    official.getOrganization({ organizationId }),
  ]);
  const group = (pairs: Array<[string, string]>) => {
    const map = new Map<string, string[]>();
    for (const [key, id] of pairs) map.set(key, [...(map.get(key) ?? []), id]);
    return map;
  };
  return {
    Policy: group(policies.map((p) => [p.policyName, p.policyId])),
    User: group(users.map((u) => [u.userName, u.userId])),
    ApiKey: group(users.flatMap((u) => u.apiKeys.map((k): [string, string] => [k.apiKeyName, k.apiKeyId]))),
    Invitation: group(
      ((organizationData as { invitations?: Array<{ receiverEmail: string; invitationId: string; status?: string }> }).invitations ?? [])
        .filter((i) => i.status !== "INVITATION_STATUS_REVOKED")
        .map((i): [string, string] => [i.receiverEmail, i.invitationId]),
    ),
  };
}

function mixed(prefix: string, userIds: readonly string[]) {
  const sender = emu.emulator.bootstrap.userId;
  return [
    ...Array.from({ length: 30 }, (_, i) => ({ kind: "Policy", key: `${prefix}-p${i}`, args: { policyName: `${prefix}-p${i}`, effect: "EFFECT_DENY", condition: `activity.type == '${prefix}${i}'` } })),
    ...Array.from({ length: 20 }, (_, i) => ({ kind: "User", key: `${prefix}-u${i}`, args: { userName: `${prefix}-u${i}` } })),
    ...Array.from({ length: 12 }, (_, i) => ({
      kind: "Invitation",
      key: `${prefix}-i${i}@example.com`,
      args: { receiverUserName: `${prefix}-i${i}`, receiverUserEmail: `${prefix}-i${i}@example.com`, accessType: "ACCESS_TYPE_API", senderUserId: sender },
    })),
    // Four keys on each user, every other one generated by keyform.
    ...userIds.flatMap((userId, u) =>
      Array.from({ length: 4 }, (_, i) => ({
        kind: "ApiKey",
        key: `${prefix}-k${u}-${i}`,
        args: { userId, apiKeyName: `${prefix}-k${u}-${i}`, ...(i % 2 === 0 ? { publicKey: generateApiKeyPair().publicKey } : {}) },
      })),
    ),
  ];
}

/** Two users the API keys of a test belong to, made directly. */
async function keyOwners(prefix: string): Promise<string[]> {
  const { userIds } = await emu.client.createUsers({
    users: [0, 1].map((i) => ({ userName: `${prefix}-owner${i}`, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] })),
  });
  return userIds;
}

/** Each declared key exactly once; each resource that succeeded names the one object of its key. */
function expectExactlyOnce(made: readonly Made[], census: Record<string, Map<string, string[]>>): void {
  const duplicates = made.filter((m) => (census[m.kind]!.get(m.key) ?? []).length > 1).map((m) => `${m.kind} ${m.key}`);
  const missing = made.filter((m) => (census[m.kind]!.get(m.key) ?? []).length === 0).map((m) => `${m.kind} ${m.key}`);
  expect(duplicates, "duplicates").toEqual([]);
  expect(missing, "missing").toEqual([]);
  for (const m of made) expect(census[m.kind]!.get(m.key), `${m.kind} ${m.key}`).toEqual([m.id]);
}

describe("batching", () => {
  it("creates of one kind waiting together go out as one plural activity; deletes too; each resource gets its own object", async () => {
    const owners = await keyOwners("b1");
    proxy.resetCounts();
    const declared = mixed("b1", owners);
    const made = await createAll(declared);
    expect(made.filter((m) => m.error !== undefined)).toEqual([]);
    expect(submits()).toEqual({ create_policies: 1, create_users: 1, create_invitations: 1, create_api_keys: 2 });
    expectExactlyOnce(made, await officialCensus());
    // The outputs are what a read of the object returns.
    forgetSharedReads();
    for (const m of made) {
      const read = await handlers[m.kind]!.read(m.id!, m.outs!);
      expect(read.props, `${m.kind} ${m.key}`).toEqual(m.outs);
    }

    proxy.resetCounts();
    await Promise.all(made.map((m) => handlers[m.kind]!.delete(m.id!, m.outs!)));
    // Invitations have no plural delete: one each.
    expect(submits()).toEqual({ delete_policies: 1, delete_users: 1, delete_invitation: 12, delete_api_keys: 2 });
    const after = await officialCensus();
    expect(made.filter((m) => (after[m.kind]!.get(m.key) ?? []).length > 0)).toEqual([]);
  });

  it("a refused item fails on its own resource with its own message; the others complete; nothing of the refused batch is applied", async () => {
    // An existing policy under one of the names, with other inputs: that create must fail.
    await emu.client.createPolicy({ policyName: "b2-p3", effect: "EFFECT_ALLOW", notes: "someone else's" });
    // An invitation from a sender that does not exist: refused by the service.
    const declared = [
      ...Array.from({ length: 8 }, (_, i) => ({ kind: "Policy", key: `b2-p${i}`, args: { policyName: `b2-p${i}`, effect: "EFFECT_DENY" } })),
      ...Array.from({ length: 5 }, (_, i) => ({
        kind: "Invitation",
        key: `b2-i${i}@example.com`,
        args: {
          receiverUserName: `b2-i${i}`,
          receiverUserEmail: `b2-i${i}@example.com`,
          accessType: "ACCESS_TYPE_API",
          senderUserId: i === 2 ? "no-such-user" : emu.emulator.bootstrap.userId,
        },
      })),
    ];
    proxy.resetCounts();
    const activitiesBefore = new Set((await official.getActivities({ organizationId: emu.emulator.bootstrap.organizationId })).activities.map((a) => a.id));
    // Direct calls to the handlers run in the direct context, which counts their batches.
    const splitsBefore = batchesOf(directContext()).batchCounts.split;
    const made = await createAll(declared);
    const failed = made.filter((m) => m.error !== undefined);
    expect(failed.map((m) => m.key)).toEqual(["b2-p3", "b2-i2@example.com"]);
    expect(failed[0]!.error).toMatch(/Policy "b2-p3": create: .*409.*differs from the declared inputs: effect/);
    expect(failed[1]!.error).toMatch(/Invitation "b2-i2@example.com": create: .*senderUserId/);
    expect(batchesOf(directContext()).batchCounts.split - splitsBefore).toBeGreaterThanOrEqual(2);
    const census = await officialCensus();
    expectExactlyOnce(made.filter((m) => m.error === undefined), census);
    expect(census.Policy!.get("b2-p3")).toHaveLength(1);
    expect(census.Invitation!.get("b2-i2@example.com")).toBeUndefined();
    // The refused batches left no completed activity behind: only the ones that made objects.
    const activities = (await official.getActivities({ organizationId: emu.emulator.bootstrap.organizationId })).activities.filter((a) => !activitiesBefore.has(a.id));
    const completedCreates = activities.filter((a) => a.status === "ACTIVITY_STATUS_COMPLETED" && /CREATE_(POLICIES|POLICY|INVITATIONS)/.test(a.type));
    const objectsMade = completedCreates.reduce((n, a) => {
      const result = a.result as { createPoliciesResult?: { policyIds: string[] }; createPolicyResult?: { policyId: string }; createInvitationsResult?: { invitationIds: string[] } };
      return n + (result.createPoliciesResult?.policyIds.length ?? 0) + (result.createPolicyResult ? 1 : 0) + (result.createInvitationsResult?.invitationIds.length ?? 0);
    }, 0);
    expect(objectsMade).toBe(made.length - failed.length);
  });

  for (const { seed, faults: only, name } of [
    { seed: 11, faults: FAULTS, name: "lost answers, 429s, 503s and resets" },
    { seed: 22, faults: FAULTS, name: "lost answers, 429s, 503s and resets" },
    { seed: 33, faults: ["resetAfter"] as Fault[], name: "only lost answers (the service acted)" },
  ]) {
    it(`${name} (40% of requests, seed ${seed}): every object exactly once after a second run of the failed creates and deletes`, async () => {
      const prefix = `f${seed}`;
      // The counting proxy forwards to one that injects these faults.
      const faulty = await startFaultProxy({ upstream: emu.emulator.url, rate: 0, seed, faults: only });
      proxy.setUpstream(faulty.url);
      const owners = await keyOwners(prefix);
      const declared = mixed(prefix, owners);
      faulty.setRate(0.4);
      proxy.resetCounts();
      const first = await createAll(declared);
      const faults = { ...faulty.counts.faults };
      // The next `up`: only what failed runs again, without faults.
      faulty.setRate(0);
      forgetSharedReads();
      const retried = await createAll(declared.filter((_, i) => first[i]!.error !== undefined));
      const made = first.map((m) => (m.error === undefined ? m : retried.find((r) => r.key === m.key && r.kind === m.kind)!));
      console.log(`[batch] seed ${seed}: faults ${JSON.stringify(faults)}; ${first.filter((m) => m.error).length} creates failed in the first run`);
      for (const m of first.filter((f) => f.error)) console.log(`[batch] ${m.kind} ${m.key}: ${m.error}`);
      expect(only.reduce((n, f) => n + faults[f], 0)).toBeGreaterThan(0);
      expect(made.filter((m) => m.error !== undefined)).toEqual([]);
      expectExactlyOnce(made, await officialCensus());

      // Deletes through the same faults, then again for what failed: nothing left.
      faulty.reseed(seed + 1);
      faulty.setRate(0.4);
      const deleted = await Promise.all(made.map((m) => handlers[m.kind]!.delete(m.id!, m.outs!).then(() => undefined, (e: Error) => e.message)));
      faulty.setRate(0);
      await Promise.all(made.filter((_, i) => deleted[i] !== undefined).map((m) => handlers[m.kind]!.delete(m.id!, m.outs!)));
      const after = await officialCensus();
      expect(made.filter((m) => (after[m.kind]!.get(m.key) ?? []).length > 0).map((m) => m.key)).toEqual([]);
      proxy.setUpstream(emu.emulator.url);
      await faulty.close();
    });
  }
});

describe("batching through the ownership journal (creates with a URN, as in an engine run)", () => {
  let journalDir: string;
  const savedEnv: Record<string, string | undefined> = {};
  const setEnv = (key: string, value: string | undefined) => {
    if (!(key in savedEnv)) savedEnv[key] = process.env[key];
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  };

  beforeAll(() => {
    journalDir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-batch-journal-"));
    setEnv("KEYFORM_JOURNAL_DIR", journalDir);
  });

  afterAll(() => {
    for (const [key, value] of Object.entries(savedEnv)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    fs.rmSync(journalDir, { recursive: true, force: true });
  });

  beforeEach(() => forgetBatchReplays());

  /** The batch records in the journal of `stack`. */
  const batchRecords = (stack: string) => (fs.existsSync(path.join(journalDir, stack)) ? fs.readdirSync(path.join(journalDir, stack)).filter((f) => f.startsWith("batch-")) : []);

  /** Completed create activities of the organization since `before`, by type. */
  async function completedCreatesSince(before: Set<string>): Promise<Record<string, number>> {
    const { activities } = await official.getActivities({ organizationId: emu.emulator.bootstrap.organizationId, paginationOptions: { limit: "100" } });
    const byType: Record<string, number> = {};
    for (const a of activities) {
      if (before.has(a.id) || a.status !== "ACTIVITY_STATUS_COMPLETED" || !a.type.includes("CREATE_")) continue;
      byType[a.type] = (byType[a.type] ?? 0) + 1;
    }
    return byType;
  }

  const activityIds = async () => new Set((await official.getActivities({ organizationId: emu.emulator.bootstrap.organizationId, paginationOptions: { limit: "100" } })).activities.map((a) => a.id));

  it("creates with a URN go out as plural activities, each item journaled with a pointer to the batch record", async () => {
    const owners = await keyOwners("j1");
    proxy.resetCounts();
    const declared = mixed("j1", owners);
    const made = await createAll(declared, "jone");
    expect(made.filter((m) => m.error !== undefined)).toEqual([]);
    expect(submits()).toEqual({ create_policies: 1, create_users: 1, create_invitations: 1, create_api_keys: 2 });
    expectExactlyOnce(made, await officialCensus());
    expect(batchRecords("jone")).toHaveLength(5);
    for (const d of declared) expect(readEntry(journalDir, urnIn("jone", d.kind, d.key))?.batch, `${d.kind} ${d.key}`).toBeDefined();
  });

  it("a batch record is removed once the engine has handed back every item it names from state (a diff or a delete), not before", async () => {
    const owners = await keyOwners("j4");
    const declared = mixed("j4", owners);
    const made = await createAll(declared, "jfour");
    expect(made.filter((m) => m.error !== undefined)).toEqual([]);
    const records = batchRecords("jfour");
    expect(records).toHaveLength(5);
    // Each record holds the ids its activity gave, in the order of its URNs.
    for (const name of records) {
      const record = JSON.parse(fs.readFileSync(path.join(journalDir, "jfour", name), "utf8")) as { urns: string[]; ids?: string[] };
      expect(record.ids, name).toEqual(record.urns.map((urn) => made.find((m) => urnIn("jfour", m.kind, m.key) === urn)!.id));
    }
    // A new run: the engine diffs what its state holds. Half of the policies first: their record stays.
    forgetSettledIndex();
    const diff = (m: Made) => handlers[m.kind]!.diff(m.id!, m.outs!, { ...declared.find((d) => d.key === m.key)!.args, [URN_INPUT]: urnIn("jfour", m.kind, m.key) });
    const policies = made.filter((m) => m.kind === "Policy");
    for (const m of policies.slice(0, 15)) await diff(m);
    expect(batchRecords("jfour")).toHaveLength(5);
    for (const m of policies.slice(0, 15)) expect(readEntry(journalDir, urnIn("jfour", m.kind, m.key)), m.key).toBeUndefined();
    for (const m of policies.slice(15)) expect(readEntry(journalDir, urnIn("jfour", m.kind, m.key))?.batch, m.key).toBeDefined();
    // The rest of the policies, the users and invitations by diff, the keys by their delete.
    for (const m of made.filter((n) => !policies.slice(0, 15).includes(n) && n.kind !== "ApiKey")) await diff(m);
    expect(batchRecords("jfour")).toHaveLength(2);
    await Promise.all(made.filter((m) => m.kind === "ApiKey").map((m) => handlers.ApiKey!.delete(m.id!, m.outs!)));
    expect(batchRecords("jfour")).toEqual([]);
    for (const d of declared) expect(readEntry(journalDir, urnIn("jfour", d.kind, d.key)), d.key).toBeUndefined();
  });

  it("another stack declaring the same objects adopts none of this stack's: named ones fail naming the object and its importId, invitations are its own", async () => {
    const sender = emu.emulator.bootstrap.userId;
    const declared = [
      ...Array.from({ length: 3 }, (_, i) => ({ kind: "Policy", key: `j3-p${i}`, args: { policyName: `j3-p${i}`, effect: "EFFECT_DENY", condition: `activity.type == 'j3${i}'` } })),
      ...Array.from({ length: 2 }, (_, i) => ({
        kind: "Invitation",
        key: `j3-i${i}@example.com`,
        args: { receiverUserName: `j3-i${i}`, receiverUserEmail: `j3-i${i}@example.com`, accessType: "ACCESS_TYPE_API", senderUserId: sender },
      })),
    ];
    const first = await createAll(declared, "jthree-a");
    expect(first.filter((m) => m.error !== undefined)).toEqual([]);
    proxy.resetCounts();
    const second = await createAll(declared, "jthree-b");
    // The other stack's batches were sent as plural activities too: the policies' one was refused.
    expect(submits().create_policies).toBeGreaterThanOrEqual(1);
    for (const [i, m] of second.entries()) {
      if (m.kind === "Policy") expect(m.error, m.key).toMatch(new RegExp(`the existing Policy "${first[i]!.id}" .*this stack did not create it.*importId: "${first[i]!.id}"`));
      else expect(m.error, m.key).toBeUndefined();
    }
    const census = await officialCensus();
    for (const m of first) {
      if (m.kind === "Policy") expect(census.Policy!.get(m.key)).toEqual([m.id]);
      // One invitation per stack: the same declaration, two bodies (each stack's own timestamp).
      else expect(new Set(census.Invitation!.get(m.key))).toEqual(new Set([m.id, second.find((n) => n.key === m.key)!.id]));
    }
  });

  it("answers lost after the service acted, until the run gives up (a killed run): the next run resends each batch byte-identical and adopts every item, none made twice", async () => {
    const owners = await keyOwners("j2");
    const declared = mixed("j2", owners);
    // Every answer about an activity is lost (its submit, its polls, the lookup by fingerprint);
    // reads pass, so the run gets as far as submitting.
    const faulty = await startFaultProxy({ upstream: emu.emulator.url, rate: 1, seed: 5, faults: ["resetAfter"], onlyPaths: /\/submit\/|get_activity|list_activities/ });
    proxy.setUpstream(faulty.url);
    // A short budget: the run gives up on the lost answers as a killed run would.
    setEnv("KEYFORM_TIMEOUT_MS", "3000");
    const before = await activityIds();
    try {
      proxy.resetCounts();
      const first = await createAll(declared, "jtwo");
      expect(first.filter((m) => m.error === undefined).map((m) => m.key), "a create that succeeded without an answer").toEqual([]);
      // The plural activities were submitted and ran; their answers were lost.
      const lost = faulty.counts.faultsByPath;
      console.log(`[batch] killed-run stand-in: faults by path ${JSON.stringify(lost)}; first error: ${first[0]?.error}`);
      for (const endpoint of ["create_policies", "create_users", "create_invitations", "create_api_keys"]) {
        expect(lost[`/public/v1/submit/${endpoint}`] ?? 0, endpoint).toBeGreaterThan(0);
      }
      expect(lost["/public/v1/submit/create_policy"] ?? 0).toBe(0);
      const ranFirst = await completedCreatesSince(before);
      expect(ranFirst).toEqual({ ACTIVITY_TYPE_CREATE_POLICIES: 1, ACTIVITY_TYPE_CREATE_USERS_V4: 1, ACTIVITY_TYPE_CREATE_INVITATIONS: 1, ACTIVITY_TYPE_CREATE_API_KEYS_V2: 2 });
    } finally {
      setEnv("KEYFORM_TIMEOUT_MS", undefined);
      proxy.setUpstream(emu.emulator.url);
      await faulty.close();
    }

    // The next run, a new process as far as the provider knows: only the journal remains.
    forgetBatchReplays();
    forgetSharedReads();
    forgetEarlierWork();
    proxy.resetCounts();
    const next = await createAll(declared, "jtwo");
    for (const m of next.filter((n) => n.error)) console.log(`[batch] next run: ${m.kind} ${m.key}: ${m.error}`);
    expect(next.filter((m) => m.error !== undefined)).toEqual([]);
    // One resend per batch, and no new activity: the service answered with the ones it had.
    const sent = submits();
    expect([sent.create_policies, sent.create_users, sent.create_invitations, sent.create_policy, sent.create_user, sent.create_invitation]).toEqual([1, 1, 1, undefined, undefined, undefined]);
    const ranAfter = await completedCreatesSince(before);
    expect([ranAfter.ACTIVITY_TYPE_CREATE_POLICIES, ranAfter.ACTIVITY_TYPE_CREATE_USERS_V4, ranAfter.ACTIVITY_TYPE_CREATE_INVITATIONS]).toEqual([1, 1, 1]);
    const census = await officialCensus();
    // The generated API keys cannot be adopted (their private keys were never journaled): each
    // is made anew and its orphan replaced; every other object is the first run's.
    expectExactlyOnce(next, census);
    // The resends recorded the ids: once the state holds each item (the next run's diffs), no record is left.
    expect(batchRecords("jtwo").length).toBeGreaterThan(0);
    forgetSettledIndex();
    for (const m of next) await handlers[m.kind]!.diff(m.id!, m.outs!, { ...declared.find((d) => d.key === m.key)!.args, [URN_INPUT]: urnIn("jtwo", m.kind, m.key) });
    expect(batchRecords("jtwo")).toEqual([]);
  });

  it("a run killed while it journals a batch (some items' entries written, nothing sent): the next run makes each object once", async () => {
    const sender = emu.emulator.bootstrap.userId;
    const declared = Array.from({ length: 5 }, (_, i) => ({
      kind: "Invitation",
      key: `j5-i${i}@example.com`,
      args: { receiverUserName: `j5-i${i}`, receiverUserEmail: `j5-i${i}@example.com`, accessType: "ACCESS_TYPE_API", senderUserId: sender },
    }));
    // The kill: the run stops after writing two of the batch's five entries, and cleans nothing
    // up (an error that may still have applied keeps the journal as a kill leaves it).
    const writeEntry = ownership.writeEntry;
    let entries = 0;
    const killed = vi.spyOn(ownership, "writeEntry").mockImplementation((dir, entry) => {
      if (entry.batch !== undefined && ++entries > 2) throw new ConnectionError({ operation: "createInvitations" }, "ECONNRESET", undefined);
      writeEntry(dir, entry);
    });
    proxy.resetCounts();
    try {
      const first = await createAll(declared, "jfive");
      expect(first.filter((m) => m.error === undefined)).toEqual([]);
      expect(entries, "the stand-in for the kill was reached").toBeGreaterThan(2);
    } finally {
      killed.mockRestore();
    }
    expect(submits().create_invitations ?? 0, "nothing of the batch was sent").toBe(0);
    expect(declared.filter((d) => readEntry(journalDir, urnIn("jfive", d.kind, d.key)) !== undefined)).toHaveLength(2);

    // The next run: its batch for all five, each invitation made once.
    forgetBatchReplays();
    forgetSharedReads();
    forgetEarlierWork();
    const next = await createAll(declared, "jfive");
    expect(next.filter((m) => m.error !== undefined)).toEqual([]);
    expectExactlyOnce(next, await officialCensus());
  });
});

