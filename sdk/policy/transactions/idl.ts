/**
 * @module policy/transactions/idl
 * The IDL-based Solana keywords (docs `features/policies/smart-contract-interfaces.mdx`, Solana;
 * docs/service-facts.md#abi-based-keywords): `parsed_instruction_data {instruction_name,
 * discriminator, named_accounts, program_call_args}` of each instruction calling a program whose
 * Anchor IDL is uploaded to the organization.
 *
 * Both IDL formats the docs accept are read: the older one (`isMut` / `isSigner`, `publicKey`,
 * `{defined: 'Name'}`) and Anchor 0.30's (`writable` / `signer`, `pubkey`, `{defined: {name}}`,
 * explicit `discriminator` arrays). An instruction without a discriminator gets Anchor's:
 * the first 8 bytes of sha256(`global:<snake_case name>`). Arguments are Borsh-encoded after the
 * discriminator (the docs' IdlType list: bool, integers to 128 bits, f32/f64, string, bytes,
 * publicKey, Vec, fixed arrays, Option, and defined structs, enums and aliases).
 *
 * Values (keyform's reading; the docs say only "ContractArgument"): integers as ints, floats as
 * numbers, public keys in base58, bytes and the discriminator as lowercase hex (as
 * `instruction_data_hex`), Vec and arrays as lists, an Option that is None as nothing (reading it
 * errors), a struct as a map of its fields (a tuple struct as a list), an enum variant without
 * fields as its name and one with fields as `{variant: fields}`.
 */
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex } from "@noble/hashes/utils";
import { base58 } from "@scure/base";

/** Thrown for an IDL keyform cannot read, or instruction data that does not decode under it; the message names the field. */
export class IdlError extends Error {}

type IdlType = unknown;

interface IdlInstruction {
  readonly name: string;
  readonly discriminator: string;
  /** Account names in the order the instruction takes them (nested account groups flattened). */
  readonly accounts: readonly string[];
  readonly args: readonly { readonly name: string; readonly type: IdlType }[];
}

/** A parsed IDL: its instructions and its defined types by name. */
export interface Idl {
  readonly instructions: readonly IdlInstruction[];
  readonly types: ReadonlyMap<string, unknown>;
}

/** Anchor's snake case of an instruction name (`swapBaseIn` → `swap_base_in`). */
function snakeCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2").toLowerCase();
}

function flattenAccounts(accounts: unknown, path: string): string[] {
  if (!Array.isArray(accounts)) throw new IdlError(`${path}: expected a list`);
  return accounts.flatMap((account, i) => {
    const { name, accounts: nested } = (account ?? {}) as Record<string, unknown>;
    if (Array.isArray(nested)) return flattenAccounts(nested, `${path}[${i}].accounts`);
    if (typeof name !== "string") throw new IdlError(`${path}[${i}].name: expected a string`);
    return [name];
  });
}

/**
 * Reads an Anchor IDL (a JSON object with `instructions` and `types`; the docs require `types`,
 * even empty).
 * @throws IdlError naming the field that is malformed
 */
export function parseIdl(text: string): Idl {
  let idl: unknown;
  try {
    idl = JSON.parse(text);
  } catch (error) {
    throw new IdlError(`smartContractInterface: not JSON (${(error as Error).message})`);
  }
  if (typeof idl !== "object" || idl === null || Array.isArray(idl)) throw new IdlError("smartContractInterface: an IDL is a JSON object");
  const { instructions, types } = idl as Record<string, unknown>;
  if (!Array.isArray(instructions)) throw new IdlError("smartContractInterface.instructions: expected a list");
  if (!Array.isArray(types)) throw new IdlError("smartContractInterface.types: expected a list (the docs: add \"types\": [] when there are none)");
  const parsed = instructions.map((ix, i): IdlInstruction => {
    const path = `smartContractInterface.instructions[${i}]`;
    const { name, discriminator, accounts, args } = (ix ?? {}) as Record<string, unknown>;
    if (typeof name !== "string" || name === "") throw new IdlError(`${path}.name: an instruction needs a name`);
    if (!Array.isArray(args)) throw new IdlError(`${path}.args: expected a list`);
    let bytes: Uint8Array;
    if (discriminator === undefined) bytes = sha256(new TextEncoder().encode(`global:${snakeCase(name)}`)).subarray(0, 8);
    else if (Array.isArray(discriminator) && discriminator.every((b) => Number.isInteger(b) && b >= 0 && b < 256)) bytes = Uint8Array.from(discriminator as number[]);
    else throw new IdlError(`${path}.discriminator: expected a list of bytes`);
    return {
      name,
      discriminator: bytesToHex(bytes),
      accounts: flattenAccounts(accounts ?? [], `${path}.accounts`),
      args: args.map((arg, j) => {
        const { name: argName, type } = (arg ?? {}) as Record<string, unknown>;
        if (typeof argName !== "string") throw new IdlError(`${path}.args[${j}].name: expected a string`);
        if (type === undefined) throw new IdlError(`${path}.args[${j}].type: missing`);
        return { name: argName, type };
      }),
    };
  });
  const defined = new Map<string, unknown>();
  types.forEach((t, i) => {
    const { name, type } = (t ?? {}) as Record<string, unknown>;
    if (typeof name !== "string" || typeof type !== "object" || type === null) throw new IdlError(`smartContractInterface.types[${i}]: expected {name, type}`);
    defined.set(name, type);
  });
  return { instructions: parsed, types: defined };
}

const INTEGER = /^([ui])(8|16|32|64|128)$/;

/** Reads Borsh values from instruction data after the discriminator. */
class BorshReader {
  private at = 0;
  private depth = 0;

  constructor(
    private readonly data: Uint8Array,
    private readonly types: ReadonlyMap<string, unknown>,
  ) {}

  private take(n: number, what: string): Uint8Array {
    if (this.at + n > this.data.length) throw new IdlError(`${what}: instruction data ends before byte ${this.at + n}`);
    const bytes = this.data.subarray(this.at, this.at + n);
    this.at += n;
    return bytes;
  }

  private uintLe(bytes: Uint8Array): bigint {
    let n = 0n;
    for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]!);
    return n;
  }

  /** A u32 length; each item takes at least a byte, so no more than the bytes left. */
  private length(what: string): number {
    const n = Number(this.uintLe(this.take(4, what)));
    if (n > this.data.length - this.at) throw new IdlError(`${what}: a length of ${n} runs past the instruction data`);
    return n;
  }

  value(type: IdlType, what: string): unknown {
    // A defined type may name itself; calldata bounds lengths, this bounds the nesting.
    if (++this.depth > 64) throw new IdlError(`${what}: types nested more than 64 deep`);
    try {
      return this.read(type, what);
    } finally {
      this.depth--;
    }
  }

  private read(type: IdlType, what: string): unknown {
    if (typeof type === "string") {
      const int = INTEGER.exec(type);
      if (int) {
        const bits = Number(int[2]);
        const n = this.uintLe(this.take(bits / 8, what));
        return int[1] === "i" ? BigInt.asIntN(bits, n) : n;
      }
      switch (type) {
        case "bool": {
          const b = this.take(1, what)[0]!;
          if (b > 1) throw new IdlError(`${what}: a bool is 0 or 1`);
          return b === 1;
        }
        case "f32":
        case "f64": {
          const bytes = this.take(type === "f32" ? 4 : 8, what);
          const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
          return type === "f32" ? view.getFloat32(0, true) : view.getFloat64(0, true);
        }
        case "string":
          try {
            return new TextDecoder("utf-8", { fatal: true }).decode(this.take(this.length(what), what));
          } catch (error) {
            if (error instanceof IdlError) throw error;
            throw new IdlError(`${what}: a string that is not UTF-8`);
          }
        case "bytes":
          return bytesToHex(this.take(this.length(what), what));
        case "publicKey":
        case "pubkey":
          return base58.encode(this.take(32, what));
      }
      throw new IdlError(`${what}: '${type}' is not an IDL type keyform decodes`);
    }
    if (typeof type !== "object" || type === null) throw new IdlError(`${what}: expected an IDL type`);
    const t = type as Record<string, unknown>;
    if ("vec" in t) return Array.from({ length: this.length(what) }, (_, i) => this.value(t.vec, `${what}[${i}]`));
    if ("array" in t) {
      const [of, size] = t.array as [unknown, unknown];
      if (!Number.isInteger(size)) throw new IdlError(`${what}: an array's length must be a number`);
      return Array.from({ length: size as number }, (_, i) => this.value(of, `${what}[${i}]`));
    }
    if ("option" in t || "coption" in t) {
      const tag = "option" in t ? this.take(1, what)[0]! : Number(this.uintLe(this.take(4, what)));
      if (tag > 1) throw new IdlError(`${what}: an Option's tag is 0 or 1`);
      return tag === 0 ? undefined : this.value("option" in t ? t.option : t.coption, what);
    }
    if ("defined" in t) {
      const name = typeof t.defined === "string" ? t.defined : (t.defined as { name?: unknown } | null)?.name;
      const def = typeof name === "string" ? this.types.get(name) : undefined;
      if (!def) throw new IdlError(`${what}: the IDL defines no type ${JSON.stringify(name)}`);
      return this.definedValue(def as Record<string, unknown>, what);
    }
    throw new IdlError(`${what}: ${JSON.stringify(type)} is not an IDL type keyform decodes`);
  }

  /** Fields of a struct or an enum variant: named → a map, unnamed (tuple) → a list. */
  private fields(fields: unknown, what: string): unknown {
    if (!Array.isArray(fields)) throw new IdlError(`${what}: expected a list of fields`);
    const named = fields.every((f) => typeof f === "object" && f !== null && typeof (f as { name?: unknown }).name === "string" && "type" in f);
    if (named) return Object.fromEntries(fields.map((f: { name: string; type: unknown }) => [f.name, this.value(f.type, `${what}.${f.name}`)]));
    return fields.map((f, i) => this.value(f, `${what}[${i}]`));
  }

  private definedValue(def: Record<string, unknown>, what: string): unknown {
    if (def.kind === "struct") return this.fields(def.fields ?? [], what);
    if (def.kind === "enum") {
      const variants = def.variants;
      if (!Array.isArray(variants)) throw new IdlError(`${what}: an enum needs its variants`);
      const index = this.take(1, what)[0]!;
      const variant = variants[index] as { name?: unknown; fields?: unknown } | undefined;
      if (!variant || typeof variant.name !== "string") throw new IdlError(`${what}: no variant ${index}`);
      return variant.fields === undefined ? variant.name : { [variant.name]: this.fields(variant.fields, `${what}.${variant.name}`) };
    }
    if (def.kind === "type" || def.kind === "alias") return this.value(def.alias ?? def.value, what);
    throw new IdlError(`${what}: a defined type of kind ${JSON.stringify(def.kind)} is not decoded`);
  }
}

/**
 * The `parsed_instruction_data` of an instruction of a program with IDL `idl`, from its data and
 * account keys; undefined when the data starts with none of the IDL's discriminators. Arguments
 * that do not decode leave out `program_call_args` only.
 */
export function parsedInstructionData(idl: Idl, data: Uint8Array, accountKeys: readonly string[]): Record<string, unknown> | undefined {
  const hex = bytesToHex(data);
  // The longest discriminator first, so that a short one that prefixes a longer one does not shadow it.
  const ix = [...idl.instructions].sort((a, b) => b.discriminator.length - a.discriminator.length).find((i) => i.discriminator !== "" && hex.startsWith(i.discriminator));
  if (!ix) return undefined;
  const named = Object.fromEntries(ix.accounts.flatMap((name, i) => (accountKeys[i] === undefined ? [] : [[name, accountKeys[i]]])));
  // The docs' struct table spells it `named_account`, their prose `named_accounts`: both are given.
  const facts: Record<string, unknown> = { instruction_name: ix.name, discriminator: ix.discriminator, named_account: named, named_accounts: named };
  try {
    const reader = new BorshReader(data.subarray(ix.discriminator.length / 2), idl.types);
    const args: Record<string, unknown> = {};
    for (const arg of ix.args) {
      const value = reader.value(arg.type, `program_call_args['${arg.name}']`);
      if (value !== undefined) args[arg.name] = value;
    }
    facts.program_call_args = args;
  } catch (error) {
    if (!(error instanceof IdlError)) throw error;
  }
  return facts;
}
