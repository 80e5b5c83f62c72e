/**
 * @module policy/transactions/rlp
 * Recursive Length Prefix encoding (Ethereum Yellow Paper, appendix B): what Ethereum
 * transactions are serialized with. Small enough to keep by hand; decoding is strict (a
 * non-canonical length or trailing bytes is an error), since the bytes decoded are the bytes
 * signed.
 */
import { concatBytes } from "@noble/hashes/utils";

/** An RLP item: a byte string or a list of items. */
export type RlpItem = Uint8Array | RlpItem[];

/** Thrown for bytes that are not one canonical RLP item. */
export class RlpError extends Error {}

function lengthBytes(n: number): Uint8Array {
  const out: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) out.unshift(v % 256);
  return Uint8Array.from(out);
}


function withPrefix(payload: Uint8Array, shortBase: number): Uint8Array {
  if (payload.length <= 55) return concatBytes(Uint8Array.of(shortBase + payload.length), payload);
  const len = lengthBytes(payload.length);
  return concatBytes(Uint8Array.of(shortBase + 55 + len.length), len, payload);
}

/** Encodes an item. */
export function rlpEncode(item: RlpItem): Uint8Array {
  if (Array.isArray(item)) return withPrefix(concatBytes(...item.map(rlpEncode)), 0xc0);
  if (item.length === 1 && item[0]! < 0x80) return item;
  return withPrefix(item, 0x80);
}

/** A non-negative integer as the minimal big-endian byte string RLP expects (0 → empty). */
export function rlpUint(value: bigint): Uint8Array {
  if (value < 0n) throw new RlpError("cannot encode a negative integer");
  const hex = value === 0n ? "" : value.toString(16);
  const even = hex.length % 2 === 1 ? `0${hex}` : hex;
  return Uint8Array.from(even.match(/../g) ?? [], (b) => parseInt(b, 16));
}

/** A byte string read as a big-endian unsigned integer (empty → 0). */
export function bytesToUint(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

function readLength(bytes: Uint8Array, at: number, size: number): number {
  if (at + size > bytes.length) throw new RlpError("length runs past the end of the input");
  if (bytes[at] === 0) throw new RlpError("length has a leading zero byte");
  let n = 0;
  for (let i = 0; i < size; i++) n = n * 256 + bytes[at + i]!;
  if (n <= 55) throw new RlpError("a long length is used for a short item");
  return n;
}

function decodeAt(bytes: Uint8Array, at: number): [RlpItem, number] {
  if (at >= bytes.length) throw new RlpError("unexpected end of input");
  const b = bytes[at]!;
  if (b < 0x80) return [bytes.subarray(at, at + 1), at + 1];
  const span = (start: number, len: number): [number, number] => {
    if (start + len > bytes.length) throw new RlpError("item runs past the end of the input");
    return [start, start + len];
  };
  if (b <= 0xb7) {
    const [s, e] = span(at + 1, b - 0x80);
    if (e - s === 1 && bytes[s]! < 0x80) throw new RlpError("a single byte below 0x80 must encode itself");
    return [bytes.subarray(s, e), e];
  }
  if (b <= 0xbf) {
    const size = b - 0xb7;
    const [s, e] = span(at + 1 + size, readLength(bytes, at + 1, size));
    return [bytes.subarray(s, e), e];
  }
  const size = b <= 0xf7 ? 0 : b - 0xf7;
  const [s, e] = span(at + 1 + size, size === 0 ? b - 0xc0 : readLength(bytes, at + 1, size));
  const items: RlpItem[] = [];
  for (let i = s; i < e; ) {
    const [item, next] = decodeAt(bytes.subarray(0, e), i);
    items.push(item);
    i = next;
  }
  return [items, e];
}

/**
 * Decodes exactly one item.
 * @throws RlpError for malformed or non-canonical bytes, or bytes left over
 */
export function rlpDecode(bytes: Uint8Array): RlpItem {
  const [item, end] = decodeAt(bytes, 0);
  if (end !== bytes.length) throw new RlpError(`${bytes.length - end} byte(s) left over after the item`);
  return item;
}
