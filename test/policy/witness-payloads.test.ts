/**
 * Signing witnesses are real requests: the encoders (sdk/policy/transactions/encode) against
 * viem and @solana/web3.js and back through the decoders on seeded random inputs; then every row
 * of diffs over `eth.tx`, `solana.tx`, `eth.eip_712` and `eth.eip_7702_authorization` policies
 * carries an unsigned transaction or payload that decodes (with the emulator gate's own
 * `payloadKeywords`) to exactly the keyword values the witness shows, which replay as the row
 * says. A value no transaction can carry gives no row: the diff is "not proved".
 */
import { bytesToHex } from "@noble/hashes/utils";
import { base58 } from "@scure/base";
import { Message, PublicKey } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { serializeTransaction, type Hex, type TransactionSerializable } from "viem";
import { activityKind, simulateVotes, type PolicyRecord } from "../../sdk/policy";
import { latestTypeOf } from "../../sdk/policy/catalog";
import { diffPolicies } from "../../sdk/policy/smt/diff";
import { payloadKeywords } from "../../sdk/policy/transactions";
import { encodeEthereumTransaction, encodeSolanaMessage } from "../../sdk/policy/transactions/encode";
import { decodeEthereumTransaction, type EthereumTransactionKind } from "../../sdk/policy/transactions/ethereum";
import { decodeSolanaTransaction } from "../../sdk/policy/transactions/solana";
import { seededRandom } from "../support/seeded-random";

const allow = (id: string, condition: string, consensus = ""): PolicyRecord => ({ policyId: id, policyName: id, effect: "EFFECT_ALLOW", condition, consensus });
const deny = (id: string, condition: string): PolicyRecord => ({ policyId: id, policyName: id, effect: "EFFECT_DENY", condition, consensus: "" });

describe("encoders", () => {
  it("Ethereum transactions of each kind: the same bytes as viem, and decoded back to the same fields (300 seeded)", () => {
    const next = seededRandom(36);
    const big = (bits: number) => BigInt(Math.floor(next() * 2 ** Math.min(bits, 48))) * (next() < 0.5 ? 1n : 1000n);
    const kinds: EthereumTransactionKind[] = ["LEGACY", "TYPE_1", "TYPE_2"];
    for (let i = 0; i < 300; i++) {
      const kind = kinds[i % 3]!;
      const to = next() < 0.1 ? "" : `0x${bytesToHex(Uint8Array.from({ length: 20 }, () => Math.floor(next() * 256)))}`;
      const fee = big(40);
      const data = `0x${bytesToHex(Uint8Array.from({ length: Math.floor(next() * 70) }, () => Math.floor(next() * 256)))}`;
      const fields = {
        kind,
        chainId: 1n + big(20),
        nonce: big(16),
        gas: big(24),
        to,
        value: big(60),
        data,
        ...(kind === "TYPE_2" ? { maxFeePerGas: fee, maxPriorityFeePerGas: fee / 2n } : { gasPrice: fee }),
      };
      const hex = encodeEthereumTransaction(fields);
      const viem: TransactionSerializable = {
        ...(kind === "TYPE_2" ? { type: "eip1559", maxFeePerGas: fields.maxFeePerGas, maxPriorityFeePerGas: fields.maxPriorityFeePerGas } : { type: kind === "TYPE_1" ? "eip2930" : "legacy", gasPrice: fields.gasPrice }),
        ...(kind !== "LEGACY" ? { accessList: [] } : {}),
        chainId: Number(fields.chainId),
        nonce: Number(fields.nonce),
        gas: fields.gas,
        ...(to !== "" ? { to: to as Hex } : {}),
        value: fields.value,
        data: data as Hex,
      } as TransactionSerializable;
      expect(hex, JSON.stringify(fields, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))).toBe(serializeTransaction(viem).slice(2));
      const { fields: _rlp, ...decoded } = decodeEthereumTransaction(hex);
      expect(decoded).toEqual(fields);
    }
  });

  it("a legacy Solana message: the same bytes as @solana/web3.js compiles, decoded back (100 seeded)", () => {
    const next = seededRandom(37);
    const key = () => new PublicKey(Uint8Array.from({ length: 32 }, () => Math.floor(next() * 256))).toBase58();
    for (let i = 0; i < 100; i++) {
      const keys = Array.from({ length: 2 + Math.floor(next() * 5) }, key);
      const programs = Array.from({ length: 1 + Math.floor(next() * 2) }, key);
      const accountKeys = [...keys, ...programs];
      const instructions = programs.map((_, p) => ({
        programIndex: keys.length + p,
        accountIndexes: keys.filter(() => next() < 0.5).map((k) => keys.indexOf(k)),
        data: Uint8Array.from({ length: Math.floor(next() * 12) }, () => Math.floor(next() * 256)),
      }));
      const message = { accountKeys, requiredSignatures: 1, readonlySigned: 0, readonlyUnsigned: programs.length, recentBlockhash: key(), instructions };
      const hex = encodeSolanaMessage(message);
      const web3 = new Message({
        header: { numRequiredSignatures: 1, numReadonlySignedAccounts: 0, numReadonlyUnsignedAccounts: programs.length },
        accountKeys: accountKeys.map((k) => new PublicKey(k)),
        recentBlockhash: message.recentBlockhash,
        instructions: instructions.map((ix) => ({ programIdIndex: ix.programIndex, accounts: ix.accountIndexes, data: base58.encode(ix.data) })),
      });
      expect(hex).toBe(bytesToHex(web3.serialize()));
      const decoded = decodeSolanaTransaction(hex);
      expect(decoded.accountKeys).toEqual(accountKeys);
      expect(decoded.recentBlockhash).toBe(message.recentBlockhash);
      expect(decoded.instructions.map((ix) => ({ ...ix, data: bytesToHex(ix.data) }))).toEqual(instructions.map((ix) => ({ ...ix, data: bytesToHex(ix.data) })));
    }
  });
});

const A = `0x${"aa".repeat(20)}`;
const B = `0x${"bb".repeat(20)}`;
const SOL = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const USERS = [
  { id: "u-alice", tags: ["tag-a"], email: "", alias: "alice" },
  { id: "u-bob", tags: [], email: "", alias: "bob" },
];

/** Pairs over the chain keywords a payload carries, each with a change. */
const PAIRS: [string, PolicyRecord[], PolicyRecord[]][] = [
  ["eth.tx to / value", [allow("p", `activity.kind == 'SIGN_TRANSACTION' && eth.tx.to == '${A}' && eth.tx.value < 100`)], [allow("p", `activity.kind == 'SIGN_TRANSACTION' && eth.tx.to in ['${A}', '${B}'] && eth.tx.value < 1000`)]],
  ["eth.tx chain, gas, nonce, data", [allow("p", "activity.kind == 'SIGN_TRANSACTION' && eth.tx.chain_id == 1 && eth.tx.gas <= 50000")], [allow("p", "activity.kind == 'SIGN_TRANSACTION' && eth.tx.chain_id in [1, 8453] && eth.tx.nonce < 5 && eth.tx.data == '0x'")]],
  ["eth.tx type and fees", [allow("p", "activity.kind == 'SIGN_TRANSACTION' && eth.tx.type == 'TYPE_2' && eth.tx.max_fee_per_gas < 100")], [allow("p", "activity.kind == 'SIGN_TRANSACTION' && eth.tx.type in ['TYPE_2', 'LEGACY'] && eth.tx.gas_price < 200")]],
  ["a DENY on eth.tx", [allow("p", "activity.kind == 'SIGN_TRANSACTION'")], [allow("p", "activity.kind == 'SIGN_TRANSACTION'"), deny("d", `eth.tx.to == '${B}' && eth.tx.value > 10`)]],
  ["solana.tx program keys and transfers", [allow("p", `activity.kind == 'SIGN_TRANSACTION' && '${SOL}' in solana.tx.program_keys`)], [allow("p", "activity.kind == 'SIGN_TRANSACTION' && solana.tx.transfers.count() >= 1")]],
  ["eth.eip_712", [allow("p", "activity.kind == 'SIGN_RAW_PAYLOAD' && eth.eip_712.primary_type == 'Permit'")], [allow("p", "activity.kind == 'SIGN_RAW_PAYLOAD' && eth.eip_712.domain.chain_id == 1")]],
  ["eth.eip_7702_authorization", [allow("p", `activity.kind == 'SIGN_RAW_PAYLOAD' && eth.eip_7702_authorization.address == '${A}'`)], [allow("p", "activity.kind == 'SIGN_RAW_PAYLOAD' && eth.eip_7702_authorization.nonce < 3")]],
];

const CHAINS = ["eth", "solana", "tron", "bitcoin", "tempo"];

describe("diff witnesses of signing activities", () => {
  for (const [name, before, after] of PAIRS) {
    it(`${name}: every row's witness decodes to the keywords it shows, which replay as the row says`, async () => {
      for (const users of [USERS, undefined]) {
        const diff = await diffPolicies(before, after, users ? { users } : {});
        expect(diff.changes.length, JSON.stringify(diff.notProved)).toBeGreaterThan(0);
        for (const change of diff.changes) {
          const w = change.witness;
          const parameters = w.parameters as Record<string, unknown>;
          const keywords = (w.keywords ?? {}) as Record<string, Record<string, Record<string, unknown>>>;
          if (w.type.includes("SIGN_TRANSACTION")) expect(parameters.unsignedTransaction).toMatch(/^(?:[0-9a-f]{2})+$/);
          if (w.type.includes("SIGN_RAW_PAYLOAD")) expect(typeof parameters.payload).toBe("string");
          // The signer's address is not in the transaction: it is the account signed with.
          const from = (keywords.eth?.tx?.from as string | undefined) ?? "";
          // An older version's payload reads as the current version's (the same parameters).
          const decoded = payloadKeywords(latestTypeOf(activityKind(w.type))!.type, parameters, from);
          const shown = Object.fromEntries(CHAINS.filter((c) => keywords[c] !== undefined).map((c) => [c, keywords[c]]));
          expect(shown, JSON.stringify(parameters)).toEqual(decoded);
          // Signed with a wallet account, the sender is its address (with a private key, its id names it).
          if (from !== "" && keywords.wallet_account !== undefined) expect(from).toBe(parameters.signWith);
          const [b, a] = [simulateVotes(before, w).outcome, simulateVotes(after, w).outcome];
          expect([b, a]).toEqual([change.before, change.after]);
        }
      }
    }, 120_000);
  }

  it("a change on send_transaction kinds, whose requests keyform cannot build, is no row: the verdict names them", async () => {
    const diff = await diffPolicies([], [allow("p", "eth.tx.value <= 1")], { users: USERS });
    expect(diff.changes.some((c) => c.kinds.includes("SIGN_TRANSACTION") && c.direction === "gains")).toBe(true);
    expect(diff.changes.some((c) => c.kinds.includes("ETH_SEND_TRANSACTION"))).toBe(false);
    expect(diff.proved).toBe(false);
    expect(diff.notProved.map((n) => n.reason).join()).toMatch(/changes on ETH_SEND_TRANSACTION did not replay with a request keyform can build/);
  }, 120_000);

  it("a change on the older version of sign_transaction alone has a witness of that version, carrying a real transaction", async () => {
    const older = `eth.tx.to == '${A}' && activity.type != 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'`;
    const diff = await diffPolicies([], [allow("p", older)], { users: USERS });
    const row = diff.changes.find((c) => c.witness.type === "ACTIVITY_TYPE_SIGN_TRANSACTION")!;
    expect(row).toBeDefined();
    expect((row.witness.keywords as { eth: { tx: { to: string } } }).eth.tx.to).toBe(A);
    expect(decodeEthereumTransaction((row.witness.parameters as { unsignedTransaction: string }).unsignedTransaction).to).toBe(A);
  }, 120_000);

  it("a value no transaction carries gives no row: a `to` that is not an address, a type the decoder does not read", async () => {
    for (const condition of ["eth.tx.to == '0xaa'", "eth.tx.type == 'TYPE_4'"]) {
      const diff = await diffPolicies([allow("p", "activity.kind == 'SIGN_TRANSACTION' && eth.tx.value == 7")], [allow("p", `activity.kind == 'SIGN_TRANSACTION' && (eth.tx.value == 7 || ${condition})`)], { users: USERS });
      expect(diff.changes).toEqual([]);
      expect(diff.proved).toBe(false);
      expect(diff.notProved.some((n) => n.clause === "(witnesses)")).toBe(true);
    }
  }, 120_000);
});
