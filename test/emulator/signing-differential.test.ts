/**
 * A differential test of the signing policies: seeded random transactions (legacy and types 1
 * to 4), submitted by users of the example organization's teams under the example's own treasury
 * policies (examples/org/signing-policies.ts), a DENY over blob transactions' fee, a policy over
 * the IDL-based keywords of a Solana program (transactions built by @solana/web3.js), and two
 * policies over the ABI-based keywords of a token
 * contract whose interface is uploaded to the organization, are decided by the emulator (which
 * decodes the unsigned transaction and its calldata itself) and by the compiled
 * `keyform policy simulate` against the same organization, fed keywords the test writes from
 * what it generated (calldata encoded by viem). Every decision and every policy's outcome must
 * agree.
 *
 * `keyform policy simulate` runs as the compiled CLI in a child process for one transaction in
 * {@link CLI_EVERY} (its argument parsing, exit code and JSON output), and for the others as the
 * same command's code (`runSimulate` of the CLI module) in this process: the same read of the
 * organization's policies and users over HTTP and the same evaluator, without starting Node and
 * loading the CLI's modules for each (about a quarter of a second of CPU apiece).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { PublicKey, Transaction, TransactionInstruction } from "@solana/web3.js";
import { encodeFunctionData, serializeTransaction, toFunctionSelector, type Hex, type TransactionSerializable } from "viem";
import { DENY_EXPORTS, treasuryPaymentsPolicy, treasuryQuorumPolicy } from "../../examples/org/signing-policies";
import { KeyformClient } from "../../sdk/client/client";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { keyform, writeFixture } from "../cli/run-cli";
import { runSimulate } from "../../sdk/cli/policy";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { seededRandom } from "../support/seeded-random";

const SEED = 39;
/** How many transactions are decided both ways (KEYFORM_SIGNING_TRANSACTIONS, 60 unless set). */
const TRANSACTIONS = Number(process.env.KEYFORM_SIGNING_TRANSACTIONS ?? 60);
/** One transaction in this many is simulated by the compiled CLI in a child process (the first among them); the others by its command's code in this process. */
const CLI_EVERY = 10;
const PAYEE = "0x4675c7e5baafbffbca748158becba61ef3b0a263";
const LIMIT = 10n ** 18n;
/** A Solana program whose Anchor IDL is uploaded (the docs' Jupiter example: `route` and its `in_amount`). */
const ROUTER = "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4";
const ROUTER_IDL = {
  instructions: [
    { name: "route", accounts: [{ name: "user", isMut: false, isSigner: true }], args: [{ name: "in_amount", type: "u64" }, { name: "slippage_bps", type: "u16" }] },
    { name: "claim", accounts: [{ name: "user", isMut: false, isSigner: true }], args: [] },
  ],
  types: [],
};
const ROUTE_LIMIT = 995_500_000n;
/** A DENY over blob transactions' `max_fee_per_blob_gas` above this (on other types it errors: no match, both ways). */
const BLOB_FEE_LIMIT = 10n ** 9n;
/** A token contract whose ABI is uploaded as a smart contract interface (uploaded with a checksummed address). */
const TOKEN = "0x6b175474e89094c44da98b954eedeac495271d0f";
const TOKEN_CHECKSUMMED = "0x6B175474E89094C44Da98b954EedeAC495271d0F";
const TOKEN_ABI = [
  { type: "function", name: "transfer", inputs: [{ name: "dst", type: "address" }, { name: "wad", type: "uint256" }], outputs: [{ name: "", type: "bool" }], stateMutability: "nonpayable" },
  { type: "function", name: "approve", inputs: [{ name: "guy", type: "address" }, { name: "wad", type: "uint256" }], outputs: [{ name: "", type: "bool" }], stateMutability: "nonpayable" },
  { type: "function", name: "disperse", inputs: [{ name: "recipients", type: "address[]" }, { name: "amounts", type: "uint256[]" }], outputs: [], stateMutability: "nonpayable" },
] as const;

let t: TestEmulator;
let dir: string;
const people = ["alice", "bob", "carol"] as const;
type Person = (typeof people)[number];
const clients = {} as Record<Person, KeyformClient>;
const userIds = {} as Record<Person, string>;
const wallets: { id: string; name: string; address: string; solana: string }[] = [];

beforeAll(async () => {
  t = await startTestEmulator();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-signing-diff-"));
  const keys = Object.fromEntries(people.map((p) => [p, generateApiKeyPair()])) as Record<Person, ReturnType<typeof generateApiKeyPair>>;
  const { userIds: ids } = await t.client.createUsers({
    users: people.map((p) => ({ userName: p, apiKeys: [{ apiKeyName: `${p}-key`, publicKey: keys[p].publicKey, curveType: "API_KEY_CURVE_P256" as const }], authenticators: [], oauthProviders: [], userTags: [] })),
  });
  people.forEach((p, i) => (userIds[p] = ids[i]!));
  for (const p of people) {
    clients[p] = new KeyformClient({
      baseUrl: t.emulator.url,
      organizationId: t.emulator.bootstrap.organizationId,
      stamper: new ApiKeyStamper({ apiPublicKey: keys[p].publicKey, apiPrivateKey: keys[p].privateKey }),
      retry: { maxRetries: 0 },
      poll: { intervalMs: 50 },
    });
  }
  const admins = (await t.client.createUserTag({ userTagName: "admins", userIds: [userIds.alice] })).userTagId;
  const treasury = (await t.client.createUserTag({ userTagName: "treasury", userIds: [userIds.bob] })).userTagId;
  for (const name of ["treasury-dev", "operations"]) {
    const { walletId, addresses } = await t.client.createWallet({
      walletName: name,
      accounts: [
        { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
        { curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" },
      ],
    });
    wallets.push({ id: walletId, name, address: addresses[0]!, solana: addresses[1]! });
  }
  const inputs = { adminsTagId: admins, treasuryTagId: treasury, walletId: wallets[0]!.id, payee: PAYEE, limitWei: LIMIT.toString(), approvals: 1 };
  for (const policy of [treasuryPaymentsPolicy(inputs), treasuryQuorumPolicy(inputs), DENY_EXPORTS]) {
    await t.client.createPolicy({ ...policy, notes: "" });
  }
  await t.client.createPolicy({ policyName: "No dear blobs", effect: "EFFECT_DENY", condition: `eth.tx.type == 'TYPE_3' && eth.tx.max_fee_per_blob_gas > ${BLOB_FEE_LIMIT}`, notes: "" });
  await t.client.createSmartContractInterface({ label: "router", type: "SMART_CONTRACT_INTERFACE_TYPE_SOLANA", smartContractAddress: ROUTER, smartContractInterface: JSON.stringify(ROUTER_IDL) });
  await t.client.createPolicy({
    policyName: "Treasury routes up to its limit",
    effect: "EFFECT_ALLOW",
    condition: `wallet.id == '${wallets[0]!.id}' && solana.tx.instructions.all(i, i.program_key == '${ROUTER}' && i.parsed_instruction_data.instruction_name == 'route' && i.parsed_instruction_data.named_accounts['user'] == wallet_account.address && i.parsed_instruction_data.program_call_args['in_amount'] <= ${ROUTE_LIMIT})`,
    consensus: `approvers.any(user, user.tags.contains('${treasury}'))`,
    notes: "",
  });
  await t.client.createSmartContractInterface({ label: "token", type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM", smartContractAddress: TOKEN_CHECKSUMMED, smartContractInterface: JSON.stringify(TOKEN_ABI) });
  const treasuryToken = `wallet.id == '${wallets[0]!.id}' && eth.tx.to == '${TOKEN}'`;
  await t.client.createPolicy({
    policyName: "Treasury pays the payee in tokens",
    effect: "EFFECT_ALLOW",
    condition: `${treasuryToken} && eth.tx.function_name == 'transfer' && eth.tx.contract_call_args['dst'] == '${PAYEE}' && eth.tx.contract_call_args['wad'] <= ${LIMIT}`,
    consensus: `approvers.any(user, user.tags.contains('${treasury}'))`,
    notes: "",
  });
  await t.client.createPolicy({
    policyName: "Treasury disperses tokens to the payee with an admin",
    effect: "EFFECT_ALLOW",
    condition: `${treasuryToken} && eth.tx.function_signature == '${toFunctionSelector("function disperse(address[],uint256[])")}' && eth.tx.contract_call_args['recipients'].count() <= 2 && eth.tx.contract_call_args['recipients'].all(r, r == '${PAYEE}')`,
    consensus: `approvers.any(user, user.tags.contains('${treasury}')) && approvers.any(user, user.tags.contains('${admins}'))`,
    notes: "",
  });
});
afterAll(async () => {
  await t?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Generated {
  submitter: Person;
  wallet: (typeof wallets)[number];
  /** The wallet account that signs, when not the wallet's Ethereum one. */
  account?: string;
  /** The `solana` keyword as the test knows it from what it generated. */
  solana?: Record<string, unknown>;
  type: string;
  parameters: Record<string, unknown>;
  /** The `eth` keyword as the test knows it from what it generated (absent for raw payloads). */
  eth?: Record<string, unknown>;
}

function generate(random: () => number, n: number): Generated {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  // Biased towards the treasury wallet and member, the payee and the limit's edges, where the policies decide
  // (token calls, every other transaction, more so: their policies ask more of a request).
  const token = n % 2 === 1;
  const submitter = token ? pick(["bob", "bob", "bob", "bob", "alice", "carol"] as const) : pick(people);
  const wallet = pick([wallets[0]!, wallets[0]!, wallets[0]!, wallets[1]!, ...(token ? [wallets[0]!, wallets[0]!] : [])]);
  if (n % 6 === 3) return routeCall(random, pick, submitter, wallet);
  if (n % 6 === 5) {
    return { submitter, wallet, type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", parameters: { signWith: wallet.address, payload: "0x" + "11".repeat(32), encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_NO_OP" } };
  }
  const call = token ? tokenCall(random, pick) : undefined;
  const to = call ? pick([TOKEN, TOKEN, TOKEN, TOKEN, TOKEN, TOKEN, TOKEN, PAYEE]) : pick([PAYEE, PAYEE, "0x2222222222222222222222222222222222222222", `0x${Array.from({ length: 20 }, () => Math.floor(random() * 256).toString(16).padStart(2, "0")).join("")}`]);
  const value = call ? 0n : pick([0n, LIMIT - 1n, LIMIT, LIMIT, LIMIT + 1n, LIMIT + 1n, LIMIT * 50n, BigInt(Math.floor(random() * 1e9)) * 10n ** 9n]);
  const kind = pick(["legacy", "eip2930", "eip1559", "eip4844", "eip7702"] as const);
  const chainId = pick([1, 10, 8453, 11155111]);
  const nonce = Math.floor(random() * 1000);
  const gas = 21000n + BigInt(Math.floor(random() * 100000));
  const fee = BigInt(1 + Math.floor(random() * 1e11));
  const tip = BigInt(Math.floor(random() * 1e9));
  const data: Hex = call ? call.data : random() < 0.3 ? "0xa9059cbb" : "0x";
  const blobFee = pick([1n, BLOB_FEE_LIMIT, BLOB_FEE_LIMIT + 1n]);
  const feeMarket = { chainId, nonce, to: to as Hex, value, gas, maxFeePerGas: fee, maxPriorityFeePerGas: tip, data };
  const authorization = { address: PAYEE as Hex, chainId, nonce: nonce + 1, r: `0x${"12".repeat(32)}` as Hex, s: `0x${"34".repeat(32)}` as Hex, yParity: 1 };
  const tx: TransactionSerializable =
    kind === "eip1559"
      ? { type: kind, ...feeMarket }
      : kind === "eip4844"
        ? { type: kind, ...feeMarket, maxFeePerBlobGas: blobFee, blobVersionedHashes: [`0x01${"ee".repeat(31)}`] }
        : kind === "eip7702"
          ? { type: kind, ...feeMarket, authorizationList: [authorization] }
          : { type: kind, chainId, nonce, to: to as Hex, value, gas, gasPrice: fee, data, ...(kind === "eip2930" ? { accessList: [] } : {}) };
  const feeMarketKind = kind !== "legacy" && kind !== "eip2930";
  const eth = {
    tx: {
      from: wallet.address.toLowerCase(),
      to,
      data: data === "0x" ? "0x" : data,
      value: value.toString(),
      gas: gas.toString(),
      gas_price: fee.toString(),
      chain_id: chainId,
      nonce,
      ...(feeMarketKind ? { max_fee_per_gas: fee.toString(), max_priority_fee_per_gas: tip.toString() } : {}),
      ...(kind === "eip4844" ? { max_fee_per_blob_gas: blobFee.toString() } : {}),
      type: { legacy: "LEGACY", eip2930: "TYPE_1", eip1559: "TYPE_2", eip4844: "TYPE_3", eip7702: "TYPE_4" }[kind],
      // The ABI-based fields, only for calldata sent to the contract whose interface is uploaded.
      ...(call && to === TOKEN ? call.keywords : {}),
    },
  };
  return {
    submitter,
    wallet,
    type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
    parameters: { signWith: wallet.address, unsignedTransaction: serializeTransaction(tx).slice(2), type: "TRANSACTION_TYPE_ETHEREUM" },
    eth,
  };
}

/**
 * A call of the token contract and its ABI-based keywords as the test knows them from the
 * arguments it chose: a function of the ABI with arguments at the policies' edges, or a selector
 * the ABI does not have (no ABI keywords). Amounts are written as decimal strings, as JSON carries u256.
 */
function tokenCall(random: () => number, pick: <T>(items: readonly T[]) => T): { data: Hex; keywords: Record<string, unknown> } {
  const address = () => pick([PAYEE, PAYEE, PAYEE, PAYEE, "0x2222222222222222222222222222222222222222"]) as Hex;
  const amount = () => pick([1n, LIMIT - 1n, LIMIT, LIMIT + 1n, BigInt(Math.floor(random() * 1e9))]);
  const fn = pick(["transfer", "transfer", "transfer", "transfer", "approve", "disperse", "disperse", "disperse", "disperse", "unknown"] as const);
  if (fn === "unknown") return { data: "0xdeadbeef", keywords: {} };
  const selector = toFunctionSelector(TOKEN_ABI.find((f) => f.name === fn)!);
  if (fn === "disperse") {
    const recipients = Array.from({ length: 1 + Math.floor(random() * 3) }, address);
    const amounts = recipients.map(amount);
    return {
      data: encodeFunctionData({ abi: TOKEN_ABI, functionName: fn, args: [recipients, amounts] }),
      keywords: { function_name: fn, function_signature: selector, contract_call_args: { recipients, amounts: amounts.map(String) } },
    };
  }
  const [who, wad] = [address(), amount()];
  return {
    data: encodeFunctionData({ abi: TOKEN_ABI, functionName: fn, args: [who, wad] }),
    keywords: { function_name: fn, function_signature: selector, contract_call_args: { [fn === "transfer" ? "dst" : "guy"]: who, wad: wad.toString() } },
  };
}

/**
 * A Solana transaction with one instruction, built by @solana/web3.js: `route` or `claim` of the
 * router (Anchor discriminators, Borsh arguments written with Buffer's own little-endian writers),
 * an unknown discriminator, or the same data to another program. Its `solana.tx` instructions as
 * the test knows them, `parsed_instruction_data` only where the router's IDL applies.
 */
function routeCall(random: () => number, pick: <T>(items: readonly T[]) => T, submitter: Person, wallet: (typeof wallets)[number]): Generated {
  const user = new PublicKey(wallet.solana);
  const program = pick([ROUTER, ROUTER, ROUTER, ROUTER, "ComputeBudget111111111111111111111111111111"]);
  const fn = pick(["route", "route", "route", "claim", "unknown"] as const);
  const amount = pick([1n, ROUTE_LIMIT - 1n, ROUTE_LIMIT, ROUTE_LIMIT + 1n, BigInt(Math.floor(random() * 2e9))]);
  const slippage = Math.floor(random() * 65536);
  const discriminator = { route: "e517cb977ae3ad2a", claim: createHash("sha256").update("global:claim").digest("hex").slice(0, 16), unknown: "0102030405060708" }[fn];
  const args = Buffer.alloc(fn === "route" ? 10 : 0);
  if (fn === "route") {
    args.writeBigUInt64LE(amount, 0);
    args.writeUInt16LE(slippage, 8);
  }
  const data = Buffer.concat([Buffer.from(discriminator, "hex"), args]);
  const tx = new Transaction({ feePayer: user, recentBlockhash: "GfVcyD4kkTrj4bKc7WA9sZCin9JDbdT4Zkd3EittNR1W" }).add(
    new TransactionInstruction({ programId: new PublicKey(program), keys: [{ pubkey: user, isSigner: true, isWritable: true }], data }),
  );
  const parsed =
    program === ROUTER && fn !== "unknown"
      ? {
          parsed_instruction_data: {
            instruction_name: fn,
            discriminator,
            named_accounts: { user: wallet.solana },
            program_call_args: fn === "route" ? { in_amount: amount.toString(), slippage_bps: slippage } : {},
          },
        }
      : {};
  return {
    submitter,
    wallet,
    account: wallet.solana,
    type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
    parameters: { signWith: wallet.solana, unsignedTransaction: tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("hex"), type: "TRANSACTION_TYPE_SOLANA" },
    solana: {
      tx: {
        instructions: [{ program_key: program, accounts: [{ account_key: wallet.solana, signer: true, writable: true }], instruction_data_hex: data.toString("hex"), address_table_lookups: [], ...parsed }],
      },
    },
  };
}

/** The emulator's decision: the outcome and each policy's outcome. */
async function emulatorDecision(g: Generated): Promise<{ outcome: string; policies: Record<string, string> }> {
  const operation = g.type === "ACTIVITY_TYPE_SIGN_TRANSACTION_V2" ? "signTransaction" : "signRawPayload";
  try {
    const activity = await clients[g.submitter].submitActivity(operation, g.parameters as never, { allowIncomplete: true });
    const outcome = { ACTIVITY_STATUS_COMPLETED: "OUTCOME_ALLOW", ACTIVITY_STATUS_CONSENSUS_NEEDED: "OUTCOME_REQUIRES_CONSENSUS" }[activity.status as string] ?? activity.status;
    const [evaluation] = (await t.client.getPolicyEvaluations({ activityId: activity.id })).policyEvaluations;
    return { outcome, policies: Object.fromEntries(evaluation!.policyEvaluations.map((e) => [e.policyId, e.outcome])) };
  } catch (error) {
    const e = error as { status?: number; details?: { message: string; policyEvaluations: { policyId: string; outcome: string }[] }[] };
    if (e.status !== 403) throw error;
    const detail = e.details![0]!;
    const outcome = detail.message.includes("outcome: Deny") ? "OUTCOME_DENY_EXPLICIT" : "OUTCOME_DENY_IMPLICIT";
    return { outcome, policies: Object.fromEntries(detail.policyEvaluations.map((p) => [p.policyId, p.outcome])) };
  }
}

/** `keyform policy simulate --data <emulator> --activity <file> --json`, on keywords the test wrote: the compiled CLI in a child process, or its command's code here. */
async function simulated(g: Generated, n: number, childProcess: boolean): Promise<{ outcome: string; policies: Record<string, string> }> {
  const activity = {
    type: g.type,
    parameters: g.parameters,
    approvers: [{ id: userIds[g.submitter] }],
    credentials: [{ type: "CREDENTIAL_TYPE_API_KEY_P256", user_id: userIds[g.submitter] }],
    keywords: {
      wallet: { id: g.wallet.id, imported: false, exported: false, label: g.wallet.name },
      wallet_account: { address: g.account ?? g.wallet.address },
      ...(g.eth ? { eth: g.eth } : {}),
      ...(g.solana ? { solana: g.solana } : {}),
    },
  };
  const file = writeFixture(dir, `activity-${n}.json`, activity);
  const { code, stdout, stderr } = childProcess ? await keyform("policy", "simulate", "--data", t.dataDir, "--activity", file, "--json") : await simulateHere({ data: t.dataDir, activity: file, json: true });
  expect(code, stderr).toBe(0);
  const simulation = JSON.parse(stdout) as { outcome: string; evaluations: { policyId: string; outcome: string }[] };
  return { outcome: simulation.outcome, policies: Object.fromEntries(simulation.evaluations.map((e) => [e.policyId, e.outcome])) };
}

/** `runSimulate`, the code of `keyform policy simulate`, with its output captured as the CLI's would be. */
async function simulateHere(options: Parameters<typeof runSimulate>[0]): Promise<{ code: number; stdout: string; stderr: string }> {
  let [stdout, stderr] = ["", ""];
  const code = await runSimulate(options, { out: (text) => (stdout += text), err: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

describe("signing decisions: emulator = keyform policy simulate", () => {
  it(`agree on ${TRANSACTIONS} seeded random transactions (seed ${SEED})`, { timeout: 600_000 }, async () => {
    const random = seededRandom(SEED);
    const seen = new Set<string>();
    const edges = new Set<string>();
    const tokenOutcomes = new Set<string>();
    for (let n = 0; n < TRANSACTIONS; n++) {
      const g = generate(random, n);
      const fromEmulator = await emulatorDecision(g);
      const fromSimulate = await simulated(g, n, n % CLI_EVERY === 0);
      expect(fromEmulator, `transaction ${n}: ${JSON.stringify({ ...g, eth: g.eth }, (_, v) => (typeof v === "bigint" ? v.toString() : v))}`).toEqual(fromSimulate);
      seen.add(fromEmulator.outcome);
      const tx = g.eth?.tx as { to: string; value: string; function_name?: string } | undefined;
      if (tx && g.wallet === wallets[0] && tx.to === PAYEE && [LIMIT, LIMIT + 1n].includes(BigInt(tx.value))) edges.add(`${g.submitter}@${tx.value}`);
      if (tx?.function_name) tokenOutcomes.add(`${tx.function_name}:${fromEmulator.outcome}`);
      const ix = (g.solana?.tx as { instructions: { parsed_instruction_data?: { instruction_name: string } }[] } | undefined)?.instructions[0];
      if (ix?.parsed_instruction_data) tokenOutcomes.add(`${ix.parsed_instruction_data.instruction_name}:${fromEmulator.outcome}`);
    }
    // Not vacuous: the sample reaches every kind of decision the policies make.
    expect([...seen].sort()).toEqual(["OUTCOME_ALLOW", "OUTCOME_DENY_EXPLICIT", "OUTCOME_DENY_IMPLICIT", "OUTCOME_REQUIRES_CONSENSUS"]);
    // And the limit's edges, at the payee, from the treasury wallet, for more than one submitter.
    expect([...edges].map((e) => e.split("@")[1]).sort()).toEqual(expect.arrayContaining([LIMIT.toString(), (LIMIT + 1n).toString()]));
    expect(new Set([...edges].map((e) => e.split("@")[0])).size).toBeGreaterThan(1);
    // And the token policies decided on decoded calls: a transfer allowed and refused, a disperse held for an admin.
    expect([...tokenOutcomes]).toEqual(expect.arrayContaining(["transfer:OUTCOME_ALLOW", "transfer:OUTCOME_DENY_IMPLICIT", "disperse:OUTCOME_REQUIRES_CONSENSUS", "route:OUTCOME_ALLOW", "route:OUTCOME_DENY_IMPLICIT"]));
  });
});
