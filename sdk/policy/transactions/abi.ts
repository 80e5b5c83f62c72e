/**
 * @module policy/transactions/abi
 * The ABI-based `eth.tx` keywords (docs `features/policies/smart-contract-interfaces.mdx` and
 * `language.mdx`, EthereumTransaction; docs/service-facts.md#abi-based-keywords):
 * `function_name`, `function_signature` and `contract_call_args`, read from a transaction's
 * calldata with the JSON ABI of the smart contract interface uploaded for its `to` address.
 *
 * Values of `contract_call_args` (keyform's reading where the docs say only "ContractArgument":
 * any of the language's string, number, list or struct values): integers as ints, `bool` as a
 * bool, addresses and bytes as lowercase `0x` hex (the docs: the policy engine expects lowercase
 * hex), strings as strings, arrays as lists and tuples as lists by position (the docs: "tuple
 * fields are currently accessed by position rather than name").
 *
 * Decoding is strict, as Solidity's own decoder is (ABI spec "Strict Encoding Mode"): an offset or
 * length out of range, an integer with bits above its width, a bool other than 0 or 1, an address
 * or `bytesN` with dirty padding, or a string that is not UTF-8 makes the arguments undecodable.
 */
import { keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex } from "@noble/hashes/utils";

/** One input of an ABI function (a JSON ABI `inputs` entry). */
export interface AbiParameter {
  readonly name: string;
  /** The canonical type, `uint256`, `address[2]`, `tuple[]`, … (aliases `uint` / `int` resolved). */
  readonly type: string;
  /** The members of a `tuple` type. */
  readonly components?: readonly AbiParameter[];
}

/** A function of an ABI, with its 4-byte selector. */
export interface AbiFunction {
  readonly name: string;
  readonly inputs: readonly AbiParameter[];
  /** `0x` and 8 lowercase hex digits: keccak-256 of the canonical signature, first 4 bytes. */
  readonly selector: string;
}

/** Thrown for an ABI text keyform cannot read, or calldata that does not decode under it; the message names the field. */
export class AbiError extends Error {}

/** A parsed type: a base (elementary or tuple) under zero or more array dimensions, outermost last. */
type AbiType =
  | { readonly kind: "uint" | "int"; readonly bits: number }
  | { readonly kind: "address" | "bool" | "bytes" | "string" }
  | { readonly kind: "fixedBytes"; readonly size: number }
  | { readonly kind: "tuple"; readonly members: readonly AbiType[] }
  | { readonly kind: "array"; readonly of: AbiType; readonly length?: number };

const ELEMENTARY = /^(?:(u?int)(\d*)|address|bool|bytes(\d*)|string|function)$/;

function parseType(param: AbiParameter, path: string): AbiType {
  const dims = /^(.*?)((?:\[\d*\])*)$/.exec(param.type)!;
  const base = dims[1]!;
  let type: AbiType;
  if (base === "tuple") {
    if (!Array.isArray(param.components)) throw new AbiError(`${path}.components: a tuple needs its components`);
    type = { kind: "tuple", members: param.components.map((c, i) => parseType(c, `${path}.components[${i}]`)) };
  } else {
    const m = ELEMENTARY.exec(base);
    if (!m) throw new AbiError(`${path}.type: '${param.type}' is not an ABI type keyform decodes`);
    if (m[1]) {
      const bits = m[2] === "" ? 256 : Number(m[2]);
      if (bits < 8 || bits > 256 || bits % 8 !== 0) throw new AbiError(`${path}.type: '${param.type}' has no valid width`);
      type = { kind: m[1] as "uint" | "int", bits };
    } else if (base === "function") type = { kind: "fixedBytes", size: 24 };
    else if (base.startsWith("bytes") && m[3] !== "") {
      const size = Number(m[3]);
      if (size < 1 || size > 32) throw new AbiError(`${path}.type: '${param.type}' has no valid size`);
      type = { kind: "fixedBytes", size };
    } else type = { kind: base as "address" | "bool" | "bytes" | "string" };
  }
  for (const dim of dims[2]!.match(/\[\d*\]/g) ?? []) {
    const length = dim === "[]" ? undefined : Number(dim.slice(1, -1));
    type = length === undefined ? { kind: "array", of: type } : { kind: "array", of: type, length };
  }
  return type;
}

/** The canonical form of a type in a signature (`uint` → `uint256`, a tuple as its members in parentheses). */
function canonical(param: AbiParameter): string {
  const dims = /^(.*?)((?:\[\d*\])*)$/.exec(param.type)!;
  const base = dims[1]!;
  const name = base === "tuple" ? `(${(param.components ?? []).map(canonical).join(",")})` : base === "uint" ? "uint256" : base === "int" ? "int256" : base;
  return name + dims[2]!;
}

function parameterOf(value: unknown, path: string): AbiParameter {
  if (typeof value !== "object" || value === null) throw new AbiError(`${path}: expected an object {name, type}`);
  const { name, type, components } = value as Record<string, unknown>;
  if (typeof type !== "string") throw new AbiError(`${path}.type: expected a string`);
  if (name !== undefined && typeof name !== "string") throw new AbiError(`${path}.name: expected a string`);
  if (components !== undefined && !Array.isArray(components)) throw new AbiError(`${path}.components: expected a list`);
  return {
    name: name ?? "",
    type,
    ...(components ? { components: components.map((c, i) => parameterOf(c, `${path}.components[${i}]`)) } : {}),
  };
}

/**
 * The functions of a JSON ABI (an array of entries; entries of another type, events, errors,
 * the constructor, fallback and receive, are skipped; an entry without `type` is a function,
 * as the Solidity ABI spec says).
 * @throws AbiError naming the entry and field that is malformed
 */
export function parseAbi(text: string): AbiFunction[] {
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch (error) {
    throw new AbiError(`smartContractInterface: not JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(entries)) throw new AbiError("smartContractInterface: an Ethereum ABI is a JSON array of entries");
  const functions: AbiFunction[] = [];
  entries.forEach((entry, i) => {
    const path = `smartContractInterface[${i}]`;
    if (typeof entry !== "object" || entry === null) throw new AbiError(`${path}: expected an object`);
    const { type = "function", name, inputs } = entry as Record<string, unknown>;
    if (type !== "function") return;
    if (typeof name !== "string" || name === "") throw new AbiError(`${path}.name: a function needs a name`);
    if (!Array.isArray(inputs)) throw new AbiError(`${path}.inputs: expected a list`);
    const params = inputs.map((input, j) => parameterOf(input, `${path}.inputs[${j}]`));
    params.forEach((p, j) => parseType(p, `${path}.inputs[${j}]`));
    const signature = `${name}(${params.map(canonical).join(",")})`;
    functions.push({ name, inputs: params, selector: `0x${bytesToHex(keccak_256(new TextEncoder().encode(signature)).subarray(0, 4))}` });
  });
  return functions;
}

/** A bound on decoded values: offsets may point at the same data many times over, so calldata alone does not bound the work. */
const MAX_VALUES = 100_000;

/** Reads ABI-encoded values out of calldata (the bytes after the selector). */
class Decoder {
  private values = 0;

  constructor(private readonly data: Uint8Array) {}

  private word(at: number, what: string): Uint8Array {
    if (at < 0 || at + 32 > this.data.length) throw new AbiError(`${what}: calldata ends before byte ${at + 32}`);
    if (++this.values > MAX_VALUES) throw new AbiError(`${what}: more than ${MAX_VALUES} values`);
    return this.data.subarray(at, at + 32);
  }

  private uint(at: number, what: string): bigint {
    return BigInt(`0x${bytesToHex(this.word(at, what))}`);
  }

  /** An offset or a length: an index into calldata, so no more than its size. */
  private index(at: number, what: string): number {
    const n = this.uint(at, what);
    if (n > BigInt(this.data.length)) throw new AbiError(`${what}: ${n} is beyond the calldata's ${this.data.length} bytes`);
    return Number(n);
  }

  private static isDynamic(type: AbiType): boolean {
    if (type.kind === "bytes" || type.kind === "string") return true;
    if (type.kind === "array") return type.length === undefined || Decoder.isDynamic(type.of);
    if (type.kind === "tuple") return type.members.some(Decoder.isDynamic);
    return false;
  }

  /** Bytes a static type takes in its enclosing head. */
  private static headSize(type: AbiType): number {
    if (Decoder.isDynamic(type)) return 32;
    if (type.kind === "array") return type.length! * Decoder.headSize(type.of);
    if (type.kind === "tuple") return type.members.reduce((n, m) => n + Decoder.headSize(m), 0);
    return 32;
  }

  /** A sequence of values encoded as a tuple whose head starts at `base`. */
  sequence(types: readonly AbiType[], base: number, what: (i: number) => string): unknown[] {
    let head = base;
    return types.map((type, i) => {
      const at = Decoder.isDynamic(type) ? base + this.index(head, what(i)) : head;
      head += Decoder.headSize(type);
      return this.value(type, at, what(i));
    });
  }

  private value(type: AbiType, at: number, what: string): unknown {
    switch (type.kind) {
      case "uint": {
        const n = this.uint(at, what);
        if (n >> BigInt(type.bits) !== 0n) throw new AbiError(`${what}: more than ${type.bits} bits`);
        return n;
      }
      case "int": {
        const n = BigInt.asIntN(256, this.uint(at, what));
        if (BigInt.asIntN(type.bits, n) !== n) throw new AbiError(`${what}: not sign-extended from ${type.bits} bits`);
        return n;
      }
      case "bool": {
        const n = this.uint(at, what);
        if (n > 1n) throw new AbiError(`${what}: a bool is 0 or 1`);
        return n === 1n;
      }
      case "address": {
        const w = this.word(at, what);
        if (w.subarray(0, 12).some((b) => b !== 0)) throw new AbiError(`${what}: an address has 12 zero bytes before it`);
        return `0x${bytesToHex(w.subarray(12))}`;
      }
      case "fixedBytes": {
        const w = this.word(at, what);
        if (w.subarray(type.size).some((b) => b !== 0)) throw new AbiError(`${what}: bytes${type.size} padded with non-zero bytes`);
        return `0x${bytesToHex(w.subarray(0, type.size))}`;
      }
      case "bytes":
      case "string": {
        const length = this.index(at, what);
        if (at + 32 + length > this.data.length) throw new AbiError(`${what}: ${length} bytes run past the calldata`);
        const bytes = this.data.subarray(at + 32, at + 32 + length);
        if (type.kind === "bytes") return `0x${bytesToHex(bytes)}`;
        try {
          return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
        } catch {
          throw new AbiError(`${what}: a string that is not UTF-8`);
        }
      }
      case "tuple":
        return this.sequence(type.members, at, (i) => `${what}[${i}]`);
      case "array": {
        const length = type.length ?? this.index(at, what);
        const start = type.length === undefined ? at + 32 : at;
        return this.sequence(Array<AbiType>(length).fill(type.of), start, (i) => `${what}[${i}]`);
      }
    }
  }
}

/**
 * The ABI-based `eth.tx` fields of calldata `data` (lowercase `0x` hex) sent to a contract with
 * the ABI `functions`: `function_name` and `function_signature` when the selector is one of the
 * ABI's functions, and `contract_call_args` (argument name → value; an unnamed argument is keyed
 * by its position) when the arguments decode. Nothing when the selector is unknown.
 */
export function contractCallFacts(functions: readonly AbiFunction[], data: string): Record<string, unknown> {
  const selector = data.slice(0, 10).toLowerCase();
  const fn = data.length >= 10 ? functions.find((f) => f.selector === selector) : undefined;
  if (!fn) return {};
  const facts: Record<string, unknown> = { function_name: fn.name, function_signature: fn.selector };
  try {
    const body = Uint8Array.from((data.slice(10).match(/../g) ?? []).map((h) => parseInt(h, 16)));
    const types = fn.inputs.map((p, i) => parseType(p, `inputs[${i}]`));
    const values = new Decoder(body).sequence(types, 0, (i) => `contract_call_args['${fn.inputs[i]!.name || i}']`);
    facts.contract_call_args = Object.fromEntries(fn.inputs.map((p, i) => [p.name || String(i), values[i]]));
  } catch (error) {
    if (!(error instanceof AbiError)) throw error;
  }
  return facts;
}
