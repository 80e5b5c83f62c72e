/**
 * @module policy/transactions/solana
 * Solana transactions as sign_transaction takes them (`TRANSACTION_TYPE_SOLANA`, hex): a
 * serialized transaction (signature slots, then the message) or a bare message, legacy or
 * version 0 (Solana docs, "Transactions"). Decoding gives the `solana.tx` facts a policy reads
 * (docs `features/policies/language.mdx`, SolanaTransaction), the message bytes a signer signs,
 * and the place of each required signer's signature.
 */
import { base58 } from "@scure/base";
import { bytesToHex } from "@noble/hashes/utils";
import { hexPayload, TransactionDecodeError } from "./ethereum";

/** An account of the docs' literal for keys that come from an address lookup table. */
export const ADDRESS_TABLE_LOOKUP = "ADDRESS_TABLE_LOOKUP";
const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const TOKEN_PROGRAMS = new Set(["TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"]);

interface Instruction {
  programIndex: number;
  accountIndexes: number[];
  data: Uint8Array;
}

interface Lookup {
  key: string;
  writable: number[];
  readonly: number[];
}

/** A decoded Solana transaction. */
export interface SolanaTransaction {
  /** Signature slots, when the input was a whole transaction (64 zero bytes = not signed yet). */
  readonly signatures?: Uint8Array[];
  /** The message: what each signer signs. */
  readonly message: Uint8Array;
  readonly version: "legacy" | 0;
  readonly requiredSignatures: number;
  readonly readonlySigned: number;
  readonly readonlyUnsigned: number;
  /** Static account keys, base58. */
  readonly accountKeys: string[];
  readonly recentBlockhash: string;
  readonly instructions: Instruction[];
  readonly lookups: Lookup[];
}

class Reader {
  at = 0;
  constructor(readonly bytes: Uint8Array) {}
  byte(what: string): number {
    if (this.at >= this.bytes.length) throw new TransactionDecodeError(`${what}: unexpected end of the transaction`);
    return this.bytes[this.at++]!;
  }
  take(n: number, what: string): Uint8Array {
    if (this.at + n > this.bytes.length) throw new TransactionDecodeError(`${what}: unexpected end of the transaction`);
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  /** Solana's compact-u16 (1 to 3 bytes, 7 bits each). */
  shortVec(what: string): number {
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const b = this.byte(what);
      value |= (b & 0x7f) << (7 * i);
      if ((b & 0x80) === 0) return value;
    }
    throw new TransactionDecodeError(`${what}: compact length longer than 3 bytes`);
  }
  list<T>(what: string, item: (i: number) => T): T[] {
    const n = this.shortVec(what);
    return Array.from({ length: n }, (_, i) => item(i));
  }
}

function readMessage(bytes: Uint8Array): Omit<SolanaTransaction, "signatures" | "message"> & { end: number } {
  const r = new Reader(bytes);
  const first = r.byte("message header");
  const versioned = (first & 0x80) !== 0;
  if (versioned && (first & 0x7f) !== 0) throw new TransactionDecodeError(`message version ${first & 0x7f} is not decoded by the emulator (legacy and 0 are)`);
  const requiredSignatures = versioned ? r.byte("message header") : first;
  const readonlySigned = r.byte("message header");
  const readonlyUnsigned = r.byte("message header");
  const accountKeys = r.list("accountKeys", () => base58.encode(r.take(32, "accountKeys")));
  const recentBlockhash = base58.encode(r.take(32, "recentBlockhash"));
  const instructions = r.list("instructions", (i) => {
    const programIndex = r.byte(`instructions[${i}].programIdIndex`);
    const accountIndexes = r.list(`instructions[${i}].accounts`, () => r.byte(`instructions[${i}].accounts`));
    const data = r.take(r.shortVec(`instructions[${i}].data`), `instructions[${i}].data`);
    return { programIndex, accountIndexes, data };
  });
  const lookups = versioned
    ? r.list("addressTableLookups", (i) => ({
        key: base58.encode(r.take(32, `addressTableLookups[${i}].accountKey`)),
        writable: r.list(`addressTableLookups[${i}].writableIndexes`, () => r.byte("writableIndexes")),
        readonly: r.list(`addressTableLookups[${i}].readonlyIndexes`, () => r.byte("readonlyIndexes")),
      }))
    : [];
  if (requiredSignatures === 0 || requiredSignatures > accountKeys.length) {
    throw new TransactionDecodeError(`message header: ${requiredSignatures} required signatures for ${accountKeys.length} account keys`);
  }
  return { version: versioned ? 0 : "legacy", requiredSignatures, readonlySigned, readonlyUnsigned, accountKeys, recentBlockhash, instructions, lookups, end: r.at };
}

/**
 * Decodes a serialized transaction, or a bare message when the bytes do not read as a
 * transaction whose signature count matches its message header.
 * @throws TransactionDecodeError naming what is wrong
 */
export function decodeSolanaTransaction(hex: string): SolanaTransaction {
  const bytes = hexPayload(hex);
  try {
    const r = new Reader(bytes);
    const signatures = r.list("signatures", () => Uint8Array.from(r.take(64, "signatures")));
    const message = bytes.subarray(r.at);
    const parsed = readMessage(message);
    if (parsed.requiredSignatures === signatures.length && parsed.end === message.length) {
      const { end: _end, ...rest } = parsed;
      return { signatures, message, ...rest };
    }
  } catch (error) {
    if (!(error instanceof TransactionDecodeError)) throw error;
  }
  const parsed = readMessage(bytes);
  if (parsed.end !== bytes.length) throw new TransactionDecodeError(`${bytes.length - parsed.end} byte(s) left over after the message`);
  const { end: _end, ...rest } = parsed;
  return { message: bytes, ...rest };
}

/** The bytes of the transaction with `signature` put in `signer`'s slot (a bare message gets its slots first). */
export function withSolanaSignature(tx: SolanaTransaction, signer: string, signature: Uint8Array): Uint8Array {
  const index = tx.accountKeys.slice(0, tx.requiredSignatures).indexOf(signer);
  if (index < 0) throw new TransactionDecodeError(`${signer} is not one of the transaction's required signers`);
  const slots = tx.signatures ?? Array.from({ length: tx.requiredSignatures }, () => new Uint8Array(64));
  const signed = slots.map((slot, i) => (i === index ? signature : slot));
  // compact-u16 of a count below 128 is one byte; more than 127 signatures cannot fit a packet.
  const out = new Uint8Array(1 + 64 * signed.length + tx.message.length);
  out[0] = signed.length;
  signed.forEach((s, i) => out.set(s, 1 + 64 * i));
  out.set(tx.message, 1 + 64 * signed.length);
  return out;
}

function u64le(data: Uint8Array, at: number): bigint | undefined {
  if (data.length < at + 8) return undefined;
  let v = 0n;
  for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(data[at + i]!);
  return v;
}

/**
 * The `solana.tx` keyword. Accounts loaded from an address lookup table read as
 * `ADDRESS_TABLE_LOOKUP` (the docs' literal). `transfers` are the top-level System Program
 * `Transfer` instructions; `spl_transfers` the top-level Token / Token-2022 `Transfer` and
 * `TransferChecked` ones (`token_mint` is '' for `Transfer`, which does not name it).
 * `parsed_instruction_data` needs an IDL and is not decoded.
 */
export function solanaTransactionFacts(tx: SolanaTransaction): Record<string, unknown> {
  const keys = tx.accountKeys;
  const n = keys.length;
  const keyAt = (i: number) => keys[i] ?? ADDRESS_TABLE_LOOKUP;
  const signer = (i: number) => i < tx.requiredSignatures;
  const lookupWritable = tx.lookups.reduce((sum, l) => sum + l.writable.length, 0);
  const writable = (i: number) =>
    i < n ? (signer(i) ? i < tx.requiredSignatures - tx.readonlySigned : i < n - tx.readonlyUnsigned) : i < n + lookupWritable;
  const lookupFacts = tx.lookups.map((l) => ({ address_table_key: l.key, writable_indexes: l.writable.map(BigInt), readonly_indexes: l.readonly.map(BigInt) }));
  const transfers: Record<string, unknown>[] = [];
  const splTransfers: Record<string, unknown>[] = [];
  const instructions = tx.instructions.map((ix) => {
    const program = keyAt(ix.programIndex);
    const accounts = ix.accountIndexes.map(keyAt);
    const discriminator = ix.data[0];
    if (program === SYSTEM_PROGRAM && ix.data.length === 12 && ix.data[0] === 2 && ix.data[1] === 0 && ix.data[2] === 0 && ix.data[3] === 0) {
      transfers.push({ from: accounts[0] ?? "", to: accounts[1] ?? "", amount: u64le(ix.data, 4) });
    } else if (TOKEN_PROGRAMS.has(program) && discriminator === 3 && ix.data.length === 9) {
      splTransfers.push({ from: accounts[0] ?? "", to: accounts[1] ?? "", owner: accounts[2] ?? "", signers: accounts.slice(3), amount: u64le(ix.data, 1), token_mint: "" });
    } else if (TOKEN_PROGRAMS.has(program) && discriminator === 12 && ix.data.length === 10) {
      splTransfers.push({ from: accounts[0] ?? "", to: accounts[2] ?? "", owner: accounts[3] ?? "", signers: accounts.slice(4), amount: u64le(ix.data, 1), token_mint: accounts[1] ?? "" });
    }
    return {
      program_key: program,
      accounts: ix.accountIndexes.map((i) => ({ account_key: keyAt(i), signer: signer(i), writable: writable(i) })),
      instruction_data_hex: bytesToHex(ix.data),
      address_table_lookups: ix.accountIndexes.some((i) => i >= n) ? lookupFacts : [],
    };
  });
  return {
    account_keys: keys,
    program_keys: [...new Set(tx.instructions.map((ix) => keyAt(ix.programIndex)))],
    instructions,
    transfers,
    recent_blockhash: tx.recentBlockhash,
    spl_transfers: splTransfers,
    address_table_lookups: lookupFacts,
  };
}
