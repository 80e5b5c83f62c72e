/**
 * @module policy/smt/payload-values
 * A signing witness's claimed chain values as the bytes a client sends: an unsigned Ethereum
 * transaction, a Solana message, typed data or an authorization (`transactions/encode`), with
 * made-up values (addresses, keys, calldata) unlike every string a policy names. A claimed value
 * no payload can carry is replaced by one it can; the decoded keywords then differ, and the
 * witness's replay decides (see `payload-witness`).
 */
import { base58 } from "@scure/base";
import { sha256 } from "@noble/hashes/sha256";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import { encodeEthereumTransaction, encodeSolanaMessage, type SolanaInstructionFields } from "../transactions/encode";
import type { EthereumTransactionKind } from "../transactions/ethereum";

/** What the witness builder knows of the request space besides the claimed values. */
export interface PayloadSpace {
  /** Whether a policy names the string (a value made up for the witness must not be one of them). */
  isLiteral(text: string): boolean;
  /** Chain paths (`eth.tx.chain_id`) whose read errors in the model: the request must not carry them. */
  readonly absent: ReadonlySet<string>;
  /** Parsed payloads (`eth.tx`) some policy reads. */
  readonly read: ReadonlySet<string>;
  /** Parameters (camelCase) whose value the model chose: a policy reads them, so they are kept as they are. */
  readonly chosen: ReadonlySet<string>;
}

/** A signing witness: its type, parameters (camelCase) and keywords. */
export interface PayloadWitness {
  readonly type: string;
  readonly parameters: Record<string, unknown>;
  readonly keywords: Record<string, unknown>;
}

const ETH_KINDS: readonly EthereumTransactionKind[] = ["TYPE_2", "TYPE_1", "LEGACY"];
const ETH_ADDRESS = /^0x[0-9a-f]{40}$/;
const HEX = /^0x(?:[0-9a-f]{2})*$/;

/** Values made up for the witness: derived from a seed, unlike every string a policy names. */
export class Fresh {
  constructor(private readonly space: PayloadSpace) {}

  private bytes(seed: string, size: number, format: (b: Uint8Array) => string): string {
    for (let n = 0; ; n++) {
      const text = format(sha256(utf8ToBytes(`${seed}\u0000${n}`)).subarray(0, size));
      if (!this.space.isLiteral(text)) return text;
    }
  }

  ethAddress(seed: string): string {
    return this.bytes(seed, 20, (b) => `0x${bytesToHex(b)}`);
  }

  hex(seed: string): string {
    return this.bytes(seed, 4, (b) => `0x${bytesToHex(b)}`);
  }

  solanaKey(seed: string): string {
    return this.bytes(seed, 32, (b) => base58.encode(b));
  }
}

export type Claimed = Record<string, unknown>;

export const claimedOf = (keywords: Record<string, unknown>, chain: string, field: string): Claimed | undefined => {
  const held = keywords[chain] as Record<string, unknown> | undefined;
  const value = held?.[field];
  return typeof value === "object" && value !== null ? (value as Claimed) : undefined;
};

/** A claimed integer as an unsigned one (a value of another shape or below zero cannot be carried: 0, and the replay decides). */
function uint(value: unknown, fallback: bigint): bigint {
  if (value === undefined) return fallback;
  try {
    const n = BigInt(value as string);
    return n < 0n ? 0n : n;
  } catch {
    return 0n;
  }
}

/** The signer's address as the witness signs with it: the target's when it is one, else made up for a made-up target. */
function signerAddress(witness: PayloadWitness, space: PayloadSpace, valid: (s: string) => boolean, make: () => string, claimed: unknown): string | undefined {
  const account = (witness.keywords.wallet_account as { address?: unknown } | undefined)?.address;
  if (typeof account === "string" && valid(account)) return account;
  const madeUp = (text: unknown) => typeof text === "string" && !space.isLiteral(text);
  const key = (witness.keywords.private_key as { id?: unknown } | undefined)?.id;
  // A target no policy names may be any account: the one the claimed sender names, else a new one.
  if ((account !== undefined && madeUp(account)) || (account === undefined && madeUp(key))) return typeof claimed === "string" && valid(claimed) ? claimed : make();
  // A key the policies name: its address is not known here.
  return undefined;
}

export function ethereumTransaction(witness: PayloadWitness, space: PayloadSpace, fresh: Fresh): { hex: string; from: string } {
  const tx = claimedOf(witness.keywords, "eth", "tx") ?? {};
  const absent = (field: string) => space.absent.has(`eth.tx.${field}`);
  const claimedKind = typeof tx.type === "string" ? tx.type : undefined;
  let kind: EthereumTransactionKind;
  if (claimedKind !== undefined && (ETH_KINDS as readonly string[]).includes(claimedKind)) kind = claimedKind as EthereumTransactionKind;
  else if (claimedKind !== undefined && !space.isLiteral(claimedKind)) kind = ETH_KINDS.find((k) => !space.isLiteral(k)) ?? "TYPE_2";
  else if (absent("chain_id") || absent("max_fee_per_gas") || absent("max_priority_fee_per_gas")) kind = "LEGACY";
  else kind = tx.max_fee_per_gas !== undefined || tx.max_priority_fee_per_gas !== undefined || tx.gas_price === undefined ? "TYPE_2" : "TYPE_1";
  const to = typeof tx.to === "string" && (ETH_ADDRESS.test(tx.to) || tx.to === "") ? tx.to : fresh.ethAddress(`to:${String(tx.to ?? "")}`);
  const data = typeof tx.data === "string" && HEX.test(tx.data) ? tx.data : tx.data === undefined ? "0x" : fresh.hex(`data:${String(tx.data)}`);
  const gasPrice = uint(tx.gas_price, 0n);
  const hex = encodeEthereumTransaction({
    kind,
    ...(kind === "LEGACY" && absent("chain_id") ? {} : { chainId: uint(tx.chain_id, 1n) }),
    nonce: uint(tx.nonce, 0n),
    ...(kind === "TYPE_2" ? { maxFeePerGas: uint(tx.max_fee_per_gas, gasPrice), maxPriorityFeePerGas: uint(tx.max_priority_fee_per_gas, 0n) } : { gasPrice }),
    gas: uint(tx.gas, 21000n),
    to,
    value: uint(tx.value, 0n),
    data,
  });
  const from = signerAddress(witness, space, (s) => ETH_ADDRESS.test(s), () => fresh.ethAddress(`from:${String(tx.from ?? "")}`), tx.from) ?? "";
  return { hex, from };
}

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";

function isSolanaKey(text: string): boolean {
  try {
    return base58.decode(text).length === 32;
  } catch {
    return false;
  }
}

const u64le = (value: bigint) => {
  const out = new Uint8Array(8);
  for (let i = 0; i < 8; i++) out[i] = Number((value >> BigInt(8 * i)) & 0xffn);
  return out;
};

/**
 * A legacy message holding what the claimed `solana.tx` lists: its account keys, an instruction
 * per program key, a System Program transfer per transfer, a Token transfer per SPL transfer,
 * more instructions up to the claimed count; the signer (the target's key) pays.
 */
export function solanaMessage(witness: PayloadWitness, space: PayloadSpace, fresh: Fresh): { hex: string; signer: string } {
  const tx = claimedOf(witness.keywords, "solana", "tx") ?? {};
  const key = (value: unknown, seed: string) => (typeof value === "string" && isSolanaKey(value) ? value : fresh.solanaKey(`${seed}:${JSON.stringify(value) ?? ""}`));
  const list = (value: unknown) => (Array.isArray(value) ? value : []);
  const accountKeys = list(tx.account_keys);
  const signer = signerAddress(witness, space, isSolanaKey, () => (accountKeys[0] !== undefined ? key(accountKeys[0], "account") : fresh.solanaKey("payer")), accountKeys[0]) ?? fresh.solanaKey("payer");
  const writable: string[] = [];
  const programs: string[] = [];
  const add = (into: string[], k: string) => {
    if (k !== signer && !writable.includes(k) && !programs.includes(k)) into.push(k);
  };
  const calls: { program: string; accounts: string[]; data: Uint8Array }[] = [];
  for (const [i, p] of list(tx.program_keys).entries()) {
    const program = key(p, `program${i}`);
    add(programs, program);
    calls.push({ program, accounts: [], data: new Uint8Array() });
  }
  for (const [i, t] of list(tx.transfers).entries()) {
    const item = (typeof t === "object" && t !== null ? t : {}) as Claimed;
    const to = key(item.to, `transfer${i}`);
    add(writable, to);
    add(programs, SYSTEM_PROGRAM);
    calls.push({ program: SYSTEM_PROGRAM, accounts: [signer, to], data: Uint8Array.of(2, 0, 0, 0, ...u64le(uint(item.amount, 0n))) });
  }
  for (const [i, t] of list(tx.spl_transfers).entries()) {
    const item = (typeof t === "object" && t !== null ? t : {}) as Claimed;
    const [from, to] = [key(item.from, `spl-from${i}`), key(item.to, `spl-to${i}`)];
    add(writable, from);
    add(writable, to);
    add(programs, TOKEN_PROGRAM);
    calls.push({ program: TOKEN_PROGRAM, accounts: [from, to, signer], data: Uint8Array.of(3, ...u64le(uint(item.amount, 0n))) });
  }
  for (let i = calls.length; i < list(tx.instructions).length; i++) {
    const program = fresh.solanaKey(`instruction${i}`);
    add(programs, program);
    calls.push({ program, accounts: [], data: new Uint8Array() });
  }
  for (const [i, k] of accountKeys.entries()) add(writable, key(k, `account${i}`));
  const keys = [signer, ...writable, ...programs];
  const instructions: SolanaInstructionFields[] = calls.map((c) => ({ programIndex: keys.indexOf(c.program), accountIndexes: c.accounts.map((a) => keys.indexOf(a)), data: c.data }));
  const hex = encodeSolanaMessage({
    accountKeys: keys,
    requiredSignatures: 1,
    readonlySigned: 0,
    readonlyUnsigned: programs.length,
    recentBlockhash: key(tx.recent_blockhash, "blockhash"),
    instructions,
  });
  return { hex, signer };
}

/** Typed data whose `eth.eip_712` facts are the claimed ones (each message field typed by its value). */
export function typedData(claimed: Claimed): string {
  const domain = (typeof claimed.domain === "object" && claimed.domain !== null ? claimed.domain : {}) as Claimed;
  const message = (typeof claimed.message === "object" && claimed.message !== null ? claimed.message : {}) as Claimed;
  const domainFields: { name: string; type: string }[] = [];
  const domainValues: Claimed = {};
  if (domain.name !== undefined) (domainFields.push({ name: "name", type: "string" }), (domainValues.name = String(domain.name)));
  if (domain.version !== undefined) (domainFields.push({ name: "version", type: "string" }), (domainValues.version = String(domain.version)));
  if (domain.chain_id !== undefined) (domainFields.push({ name: "chainId", type: "uint256" }), (domainValues.chainId = uint(domain.chain_id, 0n).toString()));
  if (domain.verifying_contract !== undefined) {
    domainFields.push({ name: "verifyingContract", type: "address" });
    domainValues.verifyingContract = String(domain.verifying_contract);
  }
  const fieldType = (value: unknown) => (typeof value === "boolean" ? "bool" : typeof value === "bigint" || typeof value === "number" ? "uint256" : typeof value === "string" && ETH_ADDRESS.test(value) ? "address" : "string");
  const primary = typeof claimed.primary_type === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(claimed.primary_type) ? claimed.primary_type : "Message";
  const values = Object.fromEntries(Object.entries(message).map(([k, v]) => [k, typeof v === "bigint" ? Number(v) : v]));
  return JSON.stringify({
    types: { EIP712Domain: domainFields, [primary]: Object.entries(values).map(([name, v]) => ({ name, type: fieldType(v) })) },
    primaryType: primary,
    domain: domainValues,
    message: values,
  });
}

/** An EIP-7702 authorization payload whose facts are the claimed ones (an address that is not one is made up). */
export function authorization(claimed: Claimed, fresh: Fresh): string {
  const address = typeof claimed.address === "string" && ETH_ADDRESS.test(claimed.address) ? claimed.address : fresh.ethAddress(`authorization:${String(claimed.address ?? "")}`);
  return JSON.stringify({ address, chainId: uint(claimed.chain_id, 1n).toString(), nonce: uint(claimed.nonce, 0n).toString() });
}
