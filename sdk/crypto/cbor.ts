/**
 * @module crypto/cbor
 * The subset of CBOR (RFC 8949) that WebAuthn needs: unsigned and negative integers, byte and
 * text strings, arrays, maps, `false`/`true`/`null`/`undefined`, all with definite lengths.
 * Maps decode to `Map` (COSE keys are integers). Floats, tags and indefinite lengths are
 * rejected: an attestation object or COSE key never uses them.
 *
 * Written here rather than with `cborg`, which is ESM only and so cannot be loaded by this
 * CommonJS build without making every caller asynchronous (README.md, "Dependencies").
 */
import { CryptoError } from "./errors";

/** A decoded CBOR value. */
export type CborValue =
  | number
  | Uint8Array
  | string
  | boolean
  | null
  | undefined
  | CborValue[]
  | Map<CborValue, CborValue>;

const MAX_DEPTH = 16;

class Reader {
  offset = 0;
  constructor(readonly bytes: Uint8Array, readonly field: string) {}

  fail(message: string): never {
    throw new CryptoError(`${this.field}: ${message} at byte ${this.offset}`, this.field);
  }

  take(n: number): Uint8Array {
    if (this.offset + n > this.bytes.length) this.fail("truncated CBOR");
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  byte(): number {
    return this.take(1)[0] as number;
  }

  /** The argument of an initial byte (RFC 8949 §3). */
  argument(info: number): number {
    if (info < 24) return info;
    const sizes: Record<number, number> = { 24: 1, 25: 2, 26: 4, 27: 8 };
    const size = sizes[info];
    if (size === undefined) this.fail(info === 31 ? "indefinite length is not supported" : "reserved additional information");
    let value = 0n;
    for (const b of this.take(size)) value = (value << 8n) | BigInt(b);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) this.fail("integer too large");
    return Number(value);
  }

  value(depth: number): CborValue {
    if (depth > MAX_DEPTH) this.fail("nesting too deep");
    const initial = this.byte();
    const major = initial >> 5;
    const info = initial & 0x1f;
    switch (major) {
      case 0:
        return this.argument(info);
      case 1:
        return -1 - this.argument(info);
      case 2:
        return new Uint8Array(this.take(this.argument(info)));
      case 3: {
        const raw = this.take(this.argument(info));
        try {
          return new TextDecoder("utf-8", { fatal: true }).decode(raw);
        } catch {
          return this.fail("invalid UTF-8 in text string");
        }
      }
      case 4: {
        const n = this.argument(info);
        const out: CborValue[] = [];
        for (let i = 0; i < n; i++) out.push(this.value(depth + 1));
        return out;
      }
      case 5: {
        const n = this.argument(info);
        const out = new Map<CborValue, CborValue>();
        for (let i = 0; i < n; i++) {
          const key = this.value(depth + 1);
          if (out.has(key)) this.fail("duplicate map key");
          out.set(key, this.value(depth + 1));
        }
        return out;
      }
      case 7:
        if (info === 20) return false;
        if (info === 21) return true;
        if (info === 22) return null;
        if (info === 23) return undefined;
        return this.fail("floats and simple values other than false/true/null/undefined are not supported");
      default:
        return this.fail("tags are not supported");
    }
  }
}

/**
 * Decodes one CBOR item at the start of `bytes` and says how many bytes it used (a COSE key
 * inside authenticator data can be followed by extension data).
 * @throws {CryptoError} on malformed or unsupported CBOR
 */
export function decodeCborPrefix(bytes: Uint8Array, field = "cbor"): { value: CborValue; length: number } {
  const reader = new Reader(bytes, field);
  const value = reader.value(0);
  return { value, length: reader.offset };
}

/**
 * Decodes exactly one CBOR item; trailing bytes are an error.
 * @throws {CryptoError} on malformed or unsupported CBOR, or trailing bytes
 */
export function decodeCbor(bytes: Uint8Array, field = "cbor"): CborValue {
  const { value, length } = decodeCborPrefix(bytes, field);
  if (length !== bytes.length) throw new CryptoError(`${field}: ${bytes.length - length} trailing bytes after CBOR item`, field);
  return value;
}

function head(major: number, n: number): number[] {
  if (n < 24) return [(major << 5) | n];
  if (n < 0x100) return [(major << 5) | 24, n];
  if (n < 0x10000) return [(major << 5) | 25, n >> 8, n & 0xff];
  if (n <= 0xffffffff) return [(major << 5) | 26, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
  throw new RangeError("CBOR lengths and integers above 2^32-1 are not supported");
}

/**
 * Encodes a value with the same subset (integers, bytes, text, arrays, `Map`s and plain
 * objects as maps with text keys, booleans, null). Used to build test attestations.
 * @throws {TypeError} for values outside the subset (floats, bigints, functions)
 */
export function encodeCbor(value: CborValue | Record<string, unknown>): Uint8Array {
  const out: number[] = [];
  const write = (v: unknown): void => {
    if (typeof v === "number") {
      if (!Number.isInteger(v)) throw new TypeError("encodeCbor: floats are not supported");
      out.push(...(v >= 0 ? head(0, v) : head(1, -1 - v)));
    } else if (v instanceof Uint8Array) {
      out.push(...head(2, v.length), ...v);
    } else if (typeof v === "string") {
      const b = new TextEncoder().encode(v);
      out.push(...head(3, b.length), ...b);
    } else if (Array.isArray(v)) {
      out.push(...head(4, v.length));
      v.forEach(write);
    } else if (v instanceof Map) {
      out.push(...head(5, v.size));
      for (const [k, val] of v) {
        write(k);
        write(val);
      }
    } else if (v === false) out.push(0xf4);
    else if (v === true) out.push(0xf5);
    else if (v === null) out.push(0xf6);
    else if (v === undefined) out.push(0xf7);
    else if (typeof v === "object") {
      const entries = Object.entries(v as Record<string, unknown>);
      out.push(...head(5, entries.length));
      for (const [k, val] of entries) {
        write(k);
        write(val);
      }
    } else throw new TypeError(`encodeCbor: unsupported value of type ${typeof v}`);
  };
  write(value);
  return new Uint8Array(out);
}
