/**
 * @module policy/transactions/ethereum
 * Unsigned Ethereum transactions as the service takes them in sign_transaction
 * (`TRANSACTION_TYPE_ETHEREUM`, hex without `0x`): legacy (EIP-155 or not), EIP-2930 (type 1),
 * EIP-1559 (type 2), EIP-4844 (type 3, the transaction payload body without blobs, commitments or
 * proofs, as the official viem signer sends it) and EIP-7702 (type 4). Decoding gives the `eth.tx` facts a policy reads (docs
 * `features/policies/language.mdx`, EthereumTransaction), the digest a signer signs and, once
 * signed, the bytes of the signed transaction.
 */
import { keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils";
import { bytesToUint, rlpDecode, rlpEncode, rlpUint, RlpError, type RlpItem } from "./rlp";

/** The `eth.tx.type` values (docs: "LEGACY", "TYPE_1" … "TYPE_4"). */
export type EthereumTransactionKind = "LEGACY" | "TYPE_1" | "TYPE_2" | "TYPE_3" | "TYPE_4";

/** A decoded unsigned transaction. */
export interface EthereumTransaction {
  readonly kind: EthereumTransactionKind;
  /** Absent on a pre-EIP-155 legacy transaction. */
  readonly chainId?: bigint;
  readonly nonce: bigint;
  /** Legacy and type 1. */
  readonly gasPrice?: bigint;
  /** Types 2, 3 and 4. */
  readonly maxPriorityFeePerGas?: bigint;
  readonly maxFeePerGas?: bigint;
  /** Type 3. */
  readonly maxFeePerBlobGas?: bigint;
  readonly gas: bigint;
  /** Lowercase `0x` address; empty for a contract creation. */
  readonly to: string;
  readonly value: bigint;
  /** Calldata, lowercase hex with `0x`. */
  readonly data: string;
  /** The RLP fields as sent, re-used to serialize the signed transaction. */
  readonly fields: readonly RlpItem[];
}

/** Thrown for input that is not an unsigned Ethereum transaction keyform decodes; the message says why. */
export class TransactionDecodeError extends Error {}

const TYPED: Readonly<Record<number, { kind: EthereumTransactionKind; fields: number }>> = {
  0x01: { kind: "TYPE_1", fields: 8 },
  0x02: { kind: "TYPE_2", fields: 9 },
  // EIP-4844: …, accessList, maxFeePerBlobGas, blobVersionedHashes.
  0x03: { kind: "TYPE_3", fields: 11 },
  // EIP-7702: …, accessList, authorizationList.
  0x04: { kind: "TYPE_4", fields: 10 },
};

function bytesField(item: RlpItem | undefined, name: string): Uint8Array {
  if (!(item instanceof Uint8Array)) throw new TransactionDecodeError(`${name}: expected a byte string`);
  return item;
}

function uintField(item: RlpItem | undefined, name: string): bigint {
  const bytes = bytesField(item, name);
  if (bytes.length > 32) throw new TransactionDecodeError(`${name}: longer than 32 bytes`);
  if (bytes.length > 0 && bytes[0] === 0) throw new TransactionDecodeError(`${name}: integer with a leading zero byte`);
  return bytesToUint(bytes);
}

function addressField(item: RlpItem | undefined, name = "to", creation = true): string {
  const bytes = bytesField(item, name);
  if (bytes.length === 0 && creation) return "";
  if (bytes.length !== 20) throw new TransactionDecodeError(`${name}: expected a 20-byte address${creation ? " or nothing" : ""}`);
  return `0x${bytesToHex(bytes)}`;
}

function listField(item: RlpItem | undefined, name: string): RlpItem[] {
  if (!Array.isArray(item)) throw new TransactionDecodeError(`${name}: expected a list`);
  return item;
}

/** EIP-4844's blob versioned hashes: 32 bytes each. */
function checkBlobHashes(item: RlpItem | undefined): void {
  listField(item, "blobVersionedHashes").forEach((hash, i) => {
    if (bytesField(hash, `blobVersionedHashes[${i}]`).length !== 32) throw new TransactionDecodeError(`blobVersionedHashes[${i}]: expected 32 bytes`);
  });
}

/** EIP-7702's authorization list: [chainId, address, nonce, yParity, r, s] tuples, already signed by their authorities. */
function checkAuthorizations(item: RlpItem | undefined): void {
  listField(item, "authorizationList").forEach((entry, i) => {
    const fields = listField(entry, `authorizationList[${i}]`);
    if (fields.length !== 6) throw new TransactionDecodeError(`authorizationList[${i}]: expected [chainId, address, nonce, yParity, r, s], got ${fields.length} fields`);
    addressField(fields[1], `authorizationList[${i}].address`, false);
    ["chainId", "", "nonce", "yParity", "r", "s"].forEach((name, j) => name && uintField(fields[j], `authorizationList[${i}].${name}`));
  });
}

/** Hex text (with or without `0x`) as bytes. */
export function hexPayload(text: string): Uint8Array {
  const hex = text.replace(/^0x/i, "");
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) throw new TransactionDecodeError("expected hex (an even number of 0-9a-f digits, optionally after 0x)");
  return hexToBytes(hex);
}

/**
 * Decodes an unsigned transaction.
 * @throws TransactionDecodeError naming what is wrong (unknown type byte, field count, a field)
 */
export function decodeEthereumTransaction(hex: string): EthereumTransaction {
  const bytes = hexPayload(hex);
  if (bytes.length === 0) throw new TransactionDecodeError("empty transaction");
  const first = bytes[0]!;
  let list: RlpItem;
  const typed = first < 0x7f ? TYPED[first] : undefined;
  if (first < 0x7f && !typed) {
    throw new TransactionDecodeError(`transaction type 0x${first.toString(16).padStart(2, "0")} is not an Ethereum transaction type keyform decodes (legacy and types 1 to 4 are)`);
  }
  try {
    list = rlpDecode(typed ? bytes.subarray(1) : bytes);
  } catch (error) {
    if (error instanceof RlpError) throw new TransactionDecodeError(`not RLP: ${error.message}`);
    throw error;
  }
  if (!Array.isArray(list)) throw new TransactionDecodeError("expected an RLP list of transaction fields");
  if (typed) {
    if (list.length !== typed.fields) {
      throw new TransactionDecodeError(`a ${typed.kind} transaction has ${typed.fields} fields before signing, got ${list.length}`);
    }
    const [chainId, nonce, ...rest] = list;
    const fees =
      typed.kind === "TYPE_1"
        ? { gasPrice: uintField(rest[0], "gasPrice") }
        : { maxPriorityFeePerGas: uintField(rest[0], "maxPriorityFeePerGas"), maxFeePerGas: uintField(rest[1], "maxFeePerGas") };
    const at = typed.kind === "TYPE_1" ? 1 : 2;
    listField(rest[at + 4], "accessList");
    if (typed.kind === "TYPE_3") checkBlobHashes(rest[at + 6]);
    if (typed.kind === "TYPE_4") checkAuthorizations(rest[at + 5]);
    return {
      kind: typed.kind,
      chainId: uintField(chainId, "chainId"),
      nonce: uintField(nonce, "nonce"),
      ...fees,
      ...(typed.kind === "TYPE_3" ? { maxFeePerBlobGas: uintField(rest[at + 5], "maxFeePerBlobGas") } : {}),
      gas: uintField(rest[at], "gas"),
      // Blob and set-code transactions cannot create a contract (EIP-4844, EIP-7702): `to` is an address.
      to: addressField(rest[at + 1], "to", typed.kind !== "TYPE_3" && typed.kind !== "TYPE_4"),
      value: uintField(rest[at + 2], "value"),
      data: `0x${bytesToHex(bytesField(rest[at + 3], "data"))}`,
      fields: list,
    };
  }
  if (list.length !== 6 && list.length !== 9) {
    throw new TransactionDecodeError(`a legacy transaction has 6 fields (or 9 with an EIP-155 chain id) before signing, got ${list.length}`);
  }
  const [nonce, gasPrice, gas, to, value, data, chainId, r, s] = list;
  if (list.length === 9 && (uintField(r, "r") !== 0n || uintField(s, "s") !== 0n)) {
    throw new TransactionDecodeError("an unsigned EIP-155 transaction ends with chainId, 0, 0");
  }
  return {
    kind: "LEGACY",
    ...(list.length === 9 ? { chainId: uintField(chainId, "chainId") } : {}),
    nonce: uintField(nonce, "nonce"),
    gasPrice: uintField(gasPrice, "gasPrice"),
    gas: uintField(gas, "gas"),
    to: addressField(to),
    value: uintField(value, "value"),
    data: `0x${bytesToHex(bytesField(data, "data"))}`,
    fields: list,
  };
}

const TYPE_BYTE: Readonly<Record<EthereumTransactionKind, number | undefined>> = { LEGACY: undefined, TYPE_1: 0x01, TYPE_2: 0x02, TYPE_3: 0x03, TYPE_4: 0x04 };

function withType(kind: EthereumTransactionKind, payload: Uint8Array): Uint8Array {
  const type = TYPE_BYTE[kind];
  if (type === undefined) return payload;
  const out = new Uint8Array(payload.length + 1);
  out[0] = type;
  out.set(payload, 1);
  return out;
}

/** The 32-byte digest a signer signs: keccak-256 of the unsigned serialization (EIP-155 / EIP-2718). */
export function ethereumSigningHash(tx: EthereumTransaction): Uint8Array {
  return keccak_256(withType(tx.kind, rlpEncode([...tx.fields])));
}

/** The signed transaction: the fields followed by the signature (`v` per EIP-155 on legacy, `yParity` on typed ones). */
export function serializeSignedEthereumTransaction(tx: EthereumTransaction, signature: { r: bigint; s: bigint; yParity: 0 | 1 }): Uint8Array {
  const rs = [rlpUint(signature.r), rlpUint(signature.s)];
  if (tx.kind !== "LEGACY") return withType(tx.kind, rlpEncode([...tx.fields, rlpUint(BigInt(signature.yParity)), ...rs]));
  const v = tx.chainId !== undefined ? tx.chainId * 2n + 35n + BigInt(signature.yParity) : 27n + BigInt(signature.yParity);
  return rlpEncode([...tx.fields.slice(0, 6), rlpUint(v), ...rs]);
}

/** The Ethereum address of a secp256k1 public key (65-byte uncompressed), lowercase. */
export function ethereumAddressOf(uncompressedPublicKey: Uint8Array): string {
  return `0x${bytesToHex(keccak_256(uncompressedPublicKey.subarray(1)).subarray(12))}`;
}

/**
 * The `eth.tx` keyword of a transaction signed by `from`. Hex strings are lowercase (the docs:
 * "the policy engine expects lowercase hex strings"); `gas_price` of a type 2 transaction is its
 * `max_fee_per_gas`, as the docs say, and so of types 3 and 4, which have the same fee fields;
 * `max_fee_per_blob_gas` is type 3's; fields a type does not have are left out (a policy reading
 * them errors). `function_name`, `function_signature` and `contract_call_args` come from the
 * contract's ABI ({@link module:policy/transactions/abi}).
 */
export function ethereumTransactionFacts(tx: EthereumTransaction, from: string): Record<string, unknown> {
  return {
    from: from.toLowerCase(),
    to: tx.to,
    data: tx.data,
    value: tx.value,
    gas: tx.gas,
    gas_price: tx.gasPrice ?? tx.maxFeePerGas,
    ...(tx.chainId !== undefined ? { chain_id: tx.chainId } : {}),
    nonce: tx.nonce,
    ...(tx.maxFeePerGas !== undefined ? { max_fee_per_gas: tx.maxFeePerGas, max_priority_fee_per_gas: tx.maxPriorityFeePerGas } : {}),
    ...(tx.maxFeePerBlobGas !== undefined ? { max_fee_per_blob_gas: tx.maxFeePerBlobGas } : {}),
    type: tx.kind,
  };
}
