/**
 * @module policy/transactions/encode
 * The other direction of the decoders next to it: an unsigned Ethereum transaction (legacy,
 * EIP-2930, EIP-1559) and a legacy Solana message from the fields a policy reads, as a client
 * would send them in sign_transaction. A policy witness carries these, so the request it shows is
 * one the service (and the emulator) decodes to the keyword values the witness claims. The
 * encodings are the ones the decoders read: RLP with EIP-2718 envelopes (the same `rlp` module),
 * Solana's compact-u16 lengths and base58 keys.
 */
import { base58 } from "@scure/base";
import { bytesToHex, concatBytes } from "@noble/hashes/utils";
import { hexPayload, type EthereumTransaction } from "./ethereum";
import { rlpEncode, rlpUint, type RlpItem } from "./rlp";

/** The fields of an unsigned Ethereum transaction: what the decoder gives back, without its RLP items. */
export type EthereumTransactionFields = Omit<EthereumTransaction, "fields">;

/**
 * The unsigned transaction as hex without `0x` (the form sign_transaction takes).
 * @throws RangeError for a `to` that is not 20 bytes or empty
 * @throws TransactionDecodeError for `to` or `data` that is not hex
 * @throws RlpError for a negative integer
 */
export function encodeEthereumTransaction(tx: EthereumTransactionFields): string {
  const to = hexPayload(tx.to);
  if (to.length !== 0 && to.length !== 20) throw new RangeError("to: expected a 20-byte address or nothing");
  const tail: RlpItem[] = [rlpUint(tx.gas), to, rlpUint(tx.value), hexPayload(tx.data)];
  if (tx.kind === "LEGACY") {
    const fields: RlpItem[] = [rlpUint(tx.nonce), rlpUint(tx.gasPrice ?? 0n), ...tail];
    // EIP-155: the chain id, then two empty fields where the signature's r and s go.
    if (tx.chainId !== undefined) fields.push(rlpUint(tx.chainId), new Uint8Array(), new Uint8Array());
    return bytesToHex(rlpEncode(fields));
  }
  const chainId = rlpUint(tx.chainId ?? 0n);
  const fees = tx.kind === "TYPE_1" ? [rlpUint(tx.gasPrice ?? 0n)] : [rlpUint(tx.maxPriorityFeePerGas ?? 0n), rlpUint(tx.maxFeePerGas ?? 0n)];
  const envelope = tx.kind === "TYPE_1" ? 0x01 : 0x02;
  // An empty access list.
  return bytesToHex(concatBytes(Uint8Array.of(envelope), rlpEncode([chainId, rlpUint(tx.nonce), ...fees, ...tail, []])));
}

/** One instruction of a Solana message: indexes into its account keys, and its data. */
export interface SolanaInstructionFields {
  readonly programIndex: number;
  readonly accountIndexes: readonly number[];
  readonly data: Uint8Array;
}

/** A legacy Solana message (what the decoder reads back). */
export interface SolanaMessageFields {
  /** Base58 32-byte keys: the signers first (writable, then read-only), then the others (writable, then read-only). */
  readonly accountKeys: readonly string[];
  readonly requiredSignatures: number;
  readonly readonlySigned: number;
  readonly readonlyUnsigned: number;
  readonly recentBlockhash: string;
  readonly instructions: readonly SolanaInstructionFields[];
}

/** Solana's compact-u16: 7 bits a byte, low bits first. */
function compactU16(n: number): Uint8Array {
  const out: number[] = [];
  let rest = n;
  do {
    const low = rest & 0x7f;
    rest >>= 7;
    out.push(rest > 0 ? low | 0x80 : low);
  } while (rest > 0);
  return Uint8Array.from(out);
}

function key32(text: string, what: string): Uint8Array {
  const bytes = base58.decode(text);
  if (bytes.length !== 32) throw new RangeError(`${what}: expected a base58 32-byte key, got ${bytes.length} bytes`);
  return bytes;
}

/**
 * A legacy message as hex (sign_transaction takes a bare message as well as a transaction).
 * @throws RangeError for a key that is not base58 of 32 bytes
 */
export function encodeSolanaMessage(message: SolanaMessageFields): string {
  const parts: Uint8Array[] = [
    Uint8Array.of(message.requiredSignatures, message.readonlySigned, message.readonlyUnsigned),
    compactU16(message.accountKeys.length),
    ...message.accountKeys.map((k, i) => key32(k, `accountKeys[${i}]`)),
    key32(message.recentBlockhash, "recentBlockhash"),
    compactU16(message.instructions.length),
  ];
  for (const ix of message.instructions) {
    parts.push(Uint8Array.of(ix.programIndex), compactU16(ix.accountIndexes.length), Uint8Array.from(ix.accountIndexes), compactU16(ix.data.length), ix.data);
  }
  return bytesToHex(concatBytes(...parts));
}
