/**
 * Policies over the ABI-based `eth.tx` keywords, enforced by the emulator over real HTTP for a
 * non-root user: a smart contract interface uploaded to the organization (the docs' WETH
 * walkthrough, a disperse-style contract and a batch executor) lets `function_name`,
 * `function_signature` and `contract_call_args` decide, with the docs' own conditions (named
 * arguments, lists with `.all()` / `.count()`, tuples by position). Calldata is encoded by viem;
 * every signed transaction recovers to the wallet's address. An Anchor IDL uploaded for a Solana
 * program lets `parsed_instruction_data` decide the same way.
 */
import { Keypair, PublicKey, Transaction, TransactionInstruction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, recoverTransactionAddress, serializeTransaction, type Abi, type Hex } from "viem";
import { KeyformClient } from "../../sdk/client/client";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

// The docs' walkthrough (features/policies/smart-contract-interfaces.mdx): WETH on mainnet and its transfer.
const WETH = "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2";
const WETH_ABI = [
  { constant: false, inputs: [{ name: "guy", type: "address" }, { name: "wad", type: "uint256" }], name: "approve", outputs: [{ name: "", type: "bool" }], payable: false, stateMutability: "nonpayable", type: "function" },
  { constant: false, inputs: [{ name: "dst", type: "address" }, { name: "wad", type: "uint256" }], name: "transfer", outputs: [{ name: "", type: "bool" }], payable: false, stateMutability: "nonpayable", type: "function" },
  { anonymous: false, inputs: [{ indexed: true, name: "src", type: "address" }, { indexed: true, name: "dst", type: "address" }, { indexed: false, name: "wad", type: "uint256" }], name: "Transfer", type: "event" },
] as const;
const DISPERSE = "0xd152f549545093347a162dce210e7293f1452150";
const DISPERSE_ABI = [{ type: "function", name: "disperseEther", inputs: [{ name: "recipients", type: "address[]" }, { name: "values", type: "uint256[]" }], outputs: [], stateMutability: "payable" }] as const;
const BATCH = "0x3333333333333333333333333333333333333333";
const BATCH_ABI = [
  {
    type: "function",
    name: "executeBatch",
    inputs: [{ name: "calls", type: "tuple[]", components: [{ name: "target", type: "address" }, { name: "value", type: "uint256" }, { name: "data", type: "bytes" }] }],
    outputs: [],
    stateMutability: "payable",
  },
] as const;
const DST = "0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7";
const OTHER = "0x2222222222222222222222222222222222222222";
const ETHER = 10n ** 18n;

let t: TestEmulator;
let signer: KeyformClient;
let eth: string;
let sol: string;
// The docs' Solana example (an Anchor IDL's `initialize(amount: u64)` with an `authority` account), on a program of its own.
const PROGRAM = Keypair.generate().publicKey;
const PROGRAM_IDL = {
  instructions: [{ name: "initialize", accounts: [{ name: "authority", isMut: false, isSigner: true, isOptional: false }], args: [{ name: "amount", type: "u64" }] }],
  types: [],
};
const policy: Record<string, string> = {};
const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as Record<string, any>);

const tx = (to: string, data: Hex) => serializeTransaction({ type: "eip1559", chainId: 1, nonce: 0, to: to as Hex, value: 0n, gas: 90000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n, data }).slice(2);
const call = <A extends Abi>(abi: A, functionName: string, args: readonly unknown[]) => encodeFunctionData({ abi, functionName, args } as never) as Hex;
const sign = (to: string, data: Hex) => signer.signTransaction({ signWith: eth, unsignedTransaction: tx(to, data), type: "TRANSACTION_TYPE_ETHEREUM" });

async function expectSigned(to: string, data: Hex): Promise<void> {
  const { signedTransaction } = await sign(to, data);
  expect((await recoverTransactionAddress({ serializedTransaction: `0x${signedTransaction}` as never })).toLowerCase()).toBe(eth.toLowerCase());
}

async function expectRefused(to: string, data: Hex): Promise<Record<string, string>> {
  const error = await failure(sign(to, data));
  expect(error).toMatchObject({ status: 403, code: 7 });
  return Object.fromEntries((error!.details[0].policyEvaluations as { policyId: string; outcome: string }[]).map((e) => [e.policyId, e.outcome]));
}

beforeAll(async () => {
  t = await startTestEmulator();
  const root = t.client;
  const { addresses } = await root.createWallet({
    walletName: "contracts",
    accounts: [
      { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
      { curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" },
    ],
  });
  [eth, sol] = addresses as [string, string];
  const key = generateApiKeyPair();
  await root.createUsers({ users: [{ userName: "caller", apiKeys: [{ apiKeyName: "caller-key", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }] });
  signer = new KeyformClient({
    baseUrl: t.emulator.url,
    organizationId: t.emulator.bootstrap.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }),
    retry: { maxRetries: 0 },
  });
  const upload = (label: string, address: string, abi: unknown) =>
    root.createSmartContractInterface({ label, type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM", smartContractAddress: address, smartContractInterface: JSON.stringify(abi) });
  policy.wethInterface = (await upload("WETH mainnet", WETH, WETH_ABI)).smartContractInterfaceId;
  await upload("Disperse", DISPERSE, DISPERSE_ABI);
  await upload("Batch", BATCH, BATCH_ABI);
  await root.createSmartContractInterface({ label: "program", type: "SMART_CONTRACT_INTERFACE_TYPE_SOLANA", smartContractAddress: PROGRAM.toBase58(), smartContractInterface: JSON.stringify(PROGRAM_IDL) });
  const declare = async (name: string, condition: string) => {
    policy[name] = (await root.createPolicy({ policyName: name, effect: "EFFECT_ALLOW", condition, notes: "" })).policyId;
  };
  // The docs' conditions, addresses in lowercase as the policy engine compares them.
  await declare("weth", `eth.tx.function_name == 'transfer' && eth.tx.function_signature == '0xa9059cbb' && eth.tx.contract_call_args['wad'] < 1000000000000000000 && eth.tx.contract_call_args['dst'] == '${DST}'`);
  await declare("disperse", `eth.tx.function_name == 'disperseEther' && eth.tx.contract_call_args['recipients'].count() <= 2 && eth.tx.contract_call_args['recipients'].all(addr, addr in ['${DST}', '${OTHER}'])`);
  await declare(
    "program",
    `solana.tx.instructions.all(i, i.program_key == '${PROGRAM.toBase58()}' && i.parsed_instruction_data.instruction_name == 'initialize' && i.parsed_instruction_data.named_accounts['authority'] == '${sol}' && i.parsed_instruction_data.program_call_args['amount'] <= 995500000)`,
  );
  await declare("batch", `eth.tx.function_name == 'executeBatch' && eth.tx.contract_call_args['calls'].all(call, call[0] == '${DST}' && call[1] == 0)`);
});
afterAll(async () => {
  await t?.stop();
});

describe("ABI-based keywords of sign_transaction, enforced", () => {
  it("the docs' WETH policy: a transfer under 1 WETH to its destination is signed", async () => {
    await expectSigned(WETH, call(WETH_ABI, "transfer", [DST, ETHER - 1n]));
    // The interface was uploaded with a checksummed address; a lowercase `to` finds it as well.
    await expectSigned(WETH.toLowerCase(), call(WETH_ABI, "transfer", [DST, 1n]));
  });

  it("another destination, 1 WETH or more, or another function is refused", async () => {
    for (const data of [call(WETH_ABI, "transfer", [OTHER, 1n]), call(WETH_ABI, "transfer", [DST, ETHER])]) {
      expect((await expectRefused(WETH, data))[policy.weth!]).toBe("OUTCOME_DENY_IMPLICIT");
    }
    // approve has no `dst`: reading it errors, and both sides of && are evaluated, so the policy errors.
    expect((await expectRefused(WETH, call(WETH_ABI, "approve", [DST, 1n])))[policy.weth!]).toBe("OUTCOME_ERROR");
  });

  it("the same calldata to a contract without an interface has no ABI keywords: the policy errors", async () => {
    const data = call(WETH_ABI, "transfer", [DST, 1n]);
    expect((await expectRefused(OTHER, data))[policy.weth!]).toBe("OUTCOME_ERROR");
  });

  it("lists: every recipient on the list and at most two of them", async () => {
    await expectSigned(DISPERSE, call(DISPERSE_ABI, "disperseEther", [[DST, OTHER], [1n, 2n]]));
    expect((await expectRefused(DISPERSE, call(DISPERSE_ABI, "disperseEther", [[DST, WETH], [1n, 2n]])))[policy.disperse!]).toBe("OUTCOME_DENY_IMPLICIT");
    expect((await expectRefused(DISPERSE, call(DISPERSE_ABI, "disperseEther", [[DST, DST, DST], [1n, 2n, 3n]])))[policy.disperse!]).toBe("OUTCOME_DENY_IMPLICIT");
  });

  it("tuples by position: every call of a batch to the allowed target with no value", async () => {
    await expectSigned(BATCH, call(BATCH_ABI, "executeBatch", [[{ target: DST, value: 0n, data: "0x" }, { target: DST, value: 0n, data: "0xa9059cbb" }]]));
    expect((await expectRefused(BATCH, call(BATCH_ABI, "executeBatch", [[{ target: DST, value: 0n, data: "0x" }, { target: DST, value: 1n, data: "0x" }]])))[policy.batch!]).toBe("OUTCOME_DENY_IMPLICIT");
  });

  it("solana: the docs' IDL condition on an instruction's name, named account and argument", async () => {
    const authority = new PublicKey(sol);
    const initialize = (amount: bigint, program = PROGRAM) => {
      const data = Buffer.alloc(16);
      Buffer.from("afaf6d1f0d989bed", "hex").copy(data); // Anchor's discriminator of `initialize`
      data.writeBigUInt64LE(amount, 8);
      const tx = new Transaction({ feePayer: authority, recentBlockhash: Keypair.generate().publicKey.toBase58() }).add(
        new TransactionInstruction({ programId: program, keys: [{ pubkey: authority, isSigner: true, isWritable: false }], data }),
      );
      return Buffer.from(tx.serialize({ requireAllSignatures: false, verifySignatures: false })).toString("hex");
    };
    const signed = await signer.signTransaction({ signWith: sol, unsignedTransaction: initialize(995500000n), type: "TRANSACTION_TYPE_SOLANA" });
    expect(Transaction.from(Buffer.from(signed.signedTransaction, "hex")).verifySignatures()).toBe(true);
    const over = await failure(signer.signTransaction({ signWith: sol, unsignedTransaction: initialize(995500001n), type: "TRANSACTION_TYPE_SOLANA" }));
    expect(over!.details[0].policyEvaluations).toContainEqual({ policyId: policy.program, outcome: "OUTCOME_DENY_IMPLICIT" });
    // The same data to a program without an IDL has no parsed_instruction_data: the policy errors.
    const other = await failure(signer.signTransaction({ signWith: sol, unsignedTransaction: initialize(1n, Keypair.generate().publicKey), type: "TRANSACTION_TYPE_SOLANA" }));
    expect(other!.details[0].policyEvaluations).toContainEqual(expect.objectContaining({ policyId: policy.program, outcome: "OUTCOME_ERROR" }));
  });

  it("one Ethereum interface per address in any case; once it is deleted, its keywords are gone", async () => {
    const again = await failure(
      t.client.createSmartContractInterface({ label: "WETH again", type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM", smartContractAddress: WETH.toLowerCase(), smartContractInterface: "[]" }),
    );
    expect(again).toMatchObject({ status: 409 });
    expect(String(again!.message)).toContain("smartContractAddress");
    await t.client.deleteSmartContractInterface({ smartContractInterfaceId: policy.wethInterface! });
    expect((await expectRefused(WETH, call(WETH_ABI, "transfer", [DST, 1n])))[policy.weth!]).toBe("OUTCOME_ERROR");
  });
});
