/**
 * The access diff's witnesses submitted to the emulator as real activities: each row's witness is
 * sent by its submitter (an API key of that user, over HTTP), the other approvers vote on it, and
 * the activity's outcome under the organization's policies (the emulator's gate) must be the one
 * the row states, before and after the change. The organization's users are the principals: the
 * witnesses name only them, with their own tags. Signing rows carry a real unsigned transaction
 * (Ethereum or Solana) or typed data, signed by the organization's wallet accounts: the emulator
 * decodes the keywords its gate decides on from them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyformClient } from "../../sdk/client/client";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { operations } from "../../sdk/wire/registry";
import { diffPolicies, type AccessChange, type DiffUser } from "../../sdk/policy/smt/diff";
import { activityKind, simulate, type PolicyRecord } from "../../sdk/policy";
import { latestTypeOf } from "../../sdk/policy/catalog";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

let t: TestEmulator;
let root: KeyformClient;
const clients = new Map<string, KeyformClient>();
const ids: Record<string, string> = {};
let ops = "";
/** The organization's signing accounts: an Ethereum wallet's account and a Solana wallet's. */
let eth = "";
let sol = "";
let ethWallet = "";
let solWallet = "";
const A = `0x${"aa".repeat(20)}`;
const B = `0x${"bb".repeat(20)}`;
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";

function clientFor(pair: { publicKey: string; privateKey: string }): KeyformClient {
  return new KeyformClient({
    baseUrl: t.emulator.url,
    organizationId: t.emulator.bootstrap.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }),
    retry: { maxRetries: 0 },
    poll: { intervalMs: 50 },
  });
}

/** The client operation that submits an activity type. */
function operationOf(type: string): string {
  const found = Object.entries(operations).find(([, op]) => (op as { kind: string; type?: string }).kind === "activity" && (op as { type: string }).type === type);
  if (!found) throw new Error(`no operation submits ${type}`);
  return found[0];
}

/** Replaces the organization's policies (as the root quorum, which policies do not bind). */
async function install(policies: readonly PolicyRecord[]): Promise<void> {
  for (const p of (await root.listPolicies()).policies) await root.deletePolicy({ policyId: p.policyId });
  for (const p of policies) await root.createPolicy({ policyName: p.policyName ?? p.policyId, effect: p.effect as "EFFECT_ALLOW", condition: p.condition ?? "", consensus: p.consensus ?? "", notes: "" });
}

let serial = 0;

/**
 * The witness's parameters with its names made unique (the organization refuses a second wallet
 * or tag of one name, a rule of the store, not of the policies): the policies here read no params,
 * which the evaluator confirms (the same decision with and without the new names).
 */
function unique(change: AccessChange, policies: readonly PolicyRecord[]): Record<string, unknown> {
  const parameters = { ...(change.witness.parameters as Record<string, unknown>) };
  serial++;
  for (const field of ["walletName", "userTagName"]) if (typeof parameters[field] === "string") parameters[field] = `${parameters[field] as string}-${serial}`;
  expect(simulate(policies, { ...change.witness, parameters }).outcome).toBe(simulate(policies, change.witness).outcome);
  return parameters;
}

/**
 * The type the witness is submitted as: an older version (which the emulator does not serve) as
 * the kind's current one, with the same parameters, when the policies decide both alike.
 */
function servedType(change: AccessChange, policies: readonly PolicyRecord[]): string {
  const current = latestTypeOf(activityKind(change.witness.type))!.type;
  if (current !== change.witness.type) expect(simulate(policies, { ...change.witness, type: current }).outcome).toBe(simulate(policies, change.witness).outcome);
  return current;
}

/** Submits a row's witness as its submitter, with the approvers' votes; "allowed" when the activity ran. */
async function submitted(change: AccessChange, policies: readonly PolicyRecord[]): Promise<"allowed" | "refused" | "needs consensus"> {
  const [submitter, ...approvers] = change.witness.approvers!;
  const client = clients.get(submitter!.id)!;
  let activity;
  try {
    activity = await client.submitActivity(operationOf(servedType(change, policies)) as never, unique(change, policies) as never, { allowIncomplete: true });
  } catch (error) {
    if ((error as { status?: number }).status === 403) return "refused";
    throw error;
  }
  for (const approver of approvers) {
    if (activity.status !== "ACTIVITY_STATUS_CONSENSUS_NEEDED") break;
    try {
      await clients.get(approver.id)!.approveActivity({ fingerprint: activity.fingerprint });
    } catch (error) {
      if ((error as { status?: number }).status === 403) return "refused";
      throw error;
    }
    activity = (await root.getActivity({ activityId: activity.id })).activity;
  }
  if (activity.status === "ACTIVITY_STATUS_COMPLETED") return "allowed";
  return activity.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED" ? "needs consensus" : "refused";
}

const expected = (outcome: string) => (outcome === "OUTCOME_ALLOW" ? "allowed" : outcome === "OUTCOME_REQUIRES_CONSENSUS" ? "needs consensus" : "refused");

beforeAll(async () => {
  t = await startTestEmulator();
  root = clientFor({ publicKey: t.emulator.bootstrap.apiPublicKey, privateKey: t.emulator.bootstrap.apiPrivateKey });
  for (const name of ["alice", "bob", "carol"]) {
    const key = generateApiKeyPair();
    const { userIds } = await root.createUsers({ users: [{ userName: name, apiKeys: [{ apiKeyName: `${name}-key`, publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }] });
    ids[name] = userIds[0]!;
    clients.set(userIds[0]!, clientFor(key));
  }
  ops = (await root.createUserTag({ userTagName: "ops", userIds: [ids.alice!, ids.bob!] })).userTagId;
  const ethereum = await root.createWallet({
    walletName: "treasury",
    accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }],
  });
  const solana = await root.createWallet({
    walletName: "solana",
    accounts: [{ curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" }],
  });
  [ethWallet, eth] = [ethereum.walletId, ethereum.addresses[0]!];
  [solWallet, sol] = [solana.walletId, solana.addresses[0]!];
}, 120_000);
afterAll(async () => {
  await t?.stop();
});

/** The organization's users as the CLI reads them (the root quorum's user is left out: it bypasses policies). */
async function organizationUsers(): Promise<DiffUser[]> {
  const quorum = new Set([t.emulator.bootstrap.userId]);
  return (await root.listUsers()).users.map((u) => ({ id: u.userId, tags: u.userTags, email: u.userEmail ?? "", alias: u.userName, root: quorum.has(u.userId) }));
}

/**
 * Diffs `before` and `after` over the organization's users, then submits every row's witness
 * before the change and after it (a witness runs only on the side that allows it): each
 * outcome is the one the row states.
 */
async function checkRows(before: PolicyRecord[], after: PolicyRecord[]): Promise<readonly AccessChange[]> {
  const users = await organizationUsers();
  const diff = await diffPolicies(before, after, { users });
  expect(diff.proved, JSON.stringify(diff.notProved)).toBe(true);
  const members = new Map(users.filter((u) => !u.root).map((u) => [u.id, u]));
  for (const change of diff.changes) {
    for (const a of change.witness.approvers!) expect([...(a.tags ?? [])].sort()).toEqual([...(members.get(a.id)!.tags ?? [])].sort());
  }
  await install(before);
  const beforeSeen = [];
  for (const change of diff.changes) beforeSeen.push(await submitted(change, before));
  expect(beforeSeen).toEqual(diff.changes.map((c) => expected(c.before)));
  await install(after);
  const afterSeen = [];
  for (const change of diff.changes) afterSeen.push(await submitted(change, after));
  expect(afterSeen).toEqual(diff.changes.map((c) => expected(c.after)));
  return diff.changes;
}

const allow = (name: string, condition: string, consensus = ""): PolicyRecord => ({ policyId: name, policyName: name, effect: "EFFECT_ALLOW", condition, consensus });
const deny = (name: string, condition: string, consensus = ""): PolicyRecord => ({ policyId: name, policyName: name, effect: "EFFECT_DENY", condition, consensus });

describe("diff witnesses submitted to the emulator", () => {
  it("every row's witness, sent and approved by the organization's users, is decided as the row says on both sides", async () => {
    const before = [
      allow("tags by two of ops", "activity.kind == 'CREATE_USER_TAG'", `approvers.filter(u, u.tags.contains('${ops}')).count() >= 2`),
      allow("wallets with alice", "activity.kind == 'CREATE_WALLET'", `approvers.any(u, u.id == '${ids.alice}')`),
    ];
    const after = [
      allow("tags by two of ops", "activity.kind == 'CREATE_USER_TAG'", `approvers.filter(u, u.tags.contains('${ops}')).count() >= 1`),
      before[1]!,
      deny("no wallets with carol", "activity.kind == 'CREATE_WALLET'", `approvers.any(u, u.id == '${ids.carol}')`),
    ];
    const changes = await checkRows(before, after);
    expect(changes.some((c) => c.direction === "gains")).toBe(true);
    expect(changes.some((c) => c.direction === "loses")).toBe(true);
    // Votes are part of it: some witnesses are approved by others than their submitter.
    expect(changes.some((c) => c.witness.approvers!.length > 1)).toBe(true);
  }, 180_000);

  it("signing rows: each witness is a real transaction or typed data, signed by the organization's account, and decided as the row says", async () => {
    // Each policy names its wallet and account: the rows of the two chains are cells of their own (one per wallet).
    const on = (kind: string, wallet: string, address: string, more: string) => `activity.kind == '${kind}' && wallet.id == '${wallet}' && wallet_account.address == '${address}' && ${more}`;
    const before = [
      allow("payments", on("SIGN_TRANSACTION", ethWallet, eth, `eth.tx.to == '${A}' && eth.tx.value < 100`), `approvers.any(u, u.id == '${ids.alice}')`),
      allow("solana programs", on("SIGN_TRANSACTION", solWallet, sol, `'${TOKEN_PROGRAM}' in solana.tx.program_keys`)),
      allow("permits", on("SIGN_RAW_PAYLOAD", ethWallet, eth, "eth.eip_712.primary_type == 'Permit'")),
    ];
    const after = [
      allow("payments", on("SIGN_TRANSACTION", ethWallet, eth, `eth.tx.to in ['${A}', '${B}'] && eth.tx.value < 1000 && eth.tx.chain_id == 1`), `approvers.any(u, u.id == '${ids.alice}')`),
      deny("large payments by carol", "eth.tx.value > 500", `approvers.any(u, u.id == '${ids.carol}')`),
      allow("solana transfers", on("SIGN_TRANSACTION", solWallet, sol, "solana.tx.transfers.count() >= 1")),
      allow("typed data of keyform", on("SIGN_RAW_PAYLOAD", ethWallet, eth, "eth.eip_712.domain.name == 'Keyform'")),
    ];
    const changes = await checkRows(before, after);
    const kinds = (c: AccessChange) => c.kinds.join();
    // Rows on each payload: an Ethereum and a Solana transaction, typed data; gains and losses.
    const payloads = changes.map((c) => (c.witness.parameters as { type?: string; encoding?: string }).type ?? (c.witness.parameters as { encoding?: string }).encoding);
    expect(new Set(payloads)).toEqual(new Set(["TRANSACTION_TYPE_ETHEREUM", "TRANSACTION_TYPE_SOLANA", "PAYLOAD_ENCODING_EIP712"]));
    expect(changes.some((c) => kinds(c) === "SIGN_TRANSACTION" && c.direction === "gains")).toBe(true);
    expect(changes.some((c) => kinds(c) === "SIGN_TRANSACTION" && c.direction === "loses")).toBe(true);
    expect(changes.some((c) => kinds(c) === "SIGN_RAW_PAYLOAD")).toBe(true);
    expect(changes.some((c) => c.witness.approvers!.length > 1)).toBe(true);
  }, 300_000);
});
