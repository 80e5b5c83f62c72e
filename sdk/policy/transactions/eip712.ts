/**
 * @module policy/transactions/eip712
 * Typed data (EIP-712) and EIP-7702 authorizations, the two structured payload encodings of
 * sign_raw_payload (`PAYLOAD_ENCODING_EIP712`: the typed data as JSON text;
 * `PAYLOAD_ENCODING_EIP7702_AUTHORIZATION`: `{address, chainId, nonce}` as JSON text): the
 * digest a signer signs and the `eth.eip_712` / `eth.eip_7702_authorization` facts a policy
 * reads (docs `features/policies/language.mdx`).
 */
import { keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex, concatBytes, utf8ToBytes } from "@noble/hashes/utils";
import { hexPayload, TransactionDecodeError } from "./ethereum";
import { rlpEncode, rlpUint } from "./rlp";

interface TypedField {
  name: string;
  type: string;
}

/** Typed data as the JSON of a PAYLOAD_ENCODING_EIP712 payload. */
export interface TypedData {
  types: Record<string, TypedField[]>;
  primaryType: string;
  domain: Record<string, unknown>;
  message: Record<string, unknown>;
}

/** The domain fields of EIP-712, in the order the domain type lists them when it is left out. */
const DOMAIN_FIELDS: readonly TypedField[] = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
  { name: "salt", type: "bytes32" },
];

function fail(message: string): never {
  throw new TransactionDecodeError(message);
}

/**
 * Reads a PAYLOAD_ENCODING_EIP712 payload.
 * @throws TransactionDecodeError when it is not typed data JSON
 */
export function parseTypedData(text: string): TypedData {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    fail("expected typed data as JSON text");
  }
  const data = value as Partial<TypedData>;
  if (typeof data !== "object" || data === null) fail("expected a typed data object");
  if (typeof data.primaryType !== "string") fail("primaryType: expected a string");
  if (typeof data.types !== "object" || data.types === null) fail("types: expected an object");
  const domain = (data.domain ?? {}) as Record<string, unknown>;
  const types = { ...data.types } as Record<string, TypedField[]>;
  if (!types.EIP712Domain) types.EIP712Domain = DOMAIN_FIELDS.filter((f) => domain[f.name] !== undefined);
  if (!types[data.primaryType]) fail(`types: no type ${data.primaryType} (the primaryType)`);
  return { types, primaryType: data.primaryType, domain, message: (data.message ?? {}) as Record<string, unknown> };
}

function dependencies(types: TypedData["types"], name: string, found: Set<string>): Set<string> {
  if (found.has(name) || !types[name]) return found;
  found.add(name);
  for (const field of types[name]) dependencies(types, field.type.replace(/(\[\d*\])+$/, ""), found);
  return found;
}

function encodeType(types: TypedData["types"], name: string): string {
  const [primary, ...rest] = [...dependencies(types, name, new Set())];
  return [primary!, ...rest.sort()].map((t) => `${t}(${types[t]!.map((f) => `${f.type} ${f.name}`).join(",")})`).join("");
}

function word(value: bigint): Uint8Array {
  return hexPayload(BigInt.asUintN(256, value).toString(16).padStart(64, "0"));
}

function asBigInt(value: unknown, path: string): bigint {
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
  if (typeof value === "string" && /^-?(?:\d+|0x[0-9a-fA-F]+)$/.test(value)) return value.startsWith("-") ? -BigInt(value.slice(1)) : BigInt(value);
  return fail(`${path}: expected an integer`);
}

function encodeValue(types: TypedData["types"], type: string, value: unknown, path: string): Uint8Array {
  const array = /^(.*)\[(\d*)\]$/.exec(type);
  if (array) {
    if (!Array.isArray(value)) fail(`${path}: expected a list`);
    const parts = value.map((v, i) => encodeValue(types, array[1]!, v, `${path}[${i}]`));
    return keccak_256(concatBytes(...parts));
  }
  if (types[type]) return hashStruct(types, type, value, path);
  if (type === "string") return keccak_256(utf8ToBytes(String(value)));
  if (type === "bytes") return keccak_256(hexPayload(String(value)));
  if (type === "bool") return word(value === true || value === "true" ? 1n : 0n);
  if (type === "address") {
    const bytes = hexPayload(String(value));
    if (bytes.length !== 20) fail(`${path}: expected a 20-byte address`);
    return word(BigInt(`0x${bytesToHex(bytes)}`));
  }
  if (/^u?int\d*$/.test(type)) return word(asBigInt(value, path));
  const fixed = /^bytes(\d+)$/.exec(type);
  if (fixed) {
    const bytes = hexPayload(String(value));
    const out = new Uint8Array(32);
    out.set(bytes.subarray(0, 32));
    return out;
  }
  return fail(`${path}: unknown type ${type}`);
}


function hashStruct(types: TypedData["types"], name: string, value: unknown, path: string): Uint8Array {
  if (typeof value !== "object" || value === null) fail(`${path}: expected an object of type ${name}`);
  const record = value as Record<string, unknown>;
  const typeHash = keccak_256(utf8ToBytes(encodeType(types, name)));
  return keccak_256(concatBytes(typeHash, ...types[name]!.map((f) => encodeValue(types, f.type, record[f.name], `${path}.${f.name}`))));
}

/** The EIP-712 digest: keccak-256 of `0x19 0x01 ‖ domainSeparator ‖ hashStruct(message)`. */
export function typedDataHash(data: TypedData): Uint8Array {
  const domain = hashStruct(data.types, "EIP712Domain", data.domain, "domain");
  if (data.primaryType === "EIP712Domain") return keccak_256(concatBytes(Uint8Array.of(0x19, 0x01), domain));
  return keccak_256(concatBytes(Uint8Array.of(0x19, 0x01), domain, hashStruct(data.types, data.primaryType, data.message, "message")));
}

/** Hex strings lowercased at every depth (the docs: EIP-712 messages are normalized to lowercase). */
function lowercaseHex(value: unknown): unknown {
  if (typeof value === "string") return /^0x[0-9a-fA-F]*$/.test(value) ? value.toLowerCase() : value;
  if (Array.isArray(value)) return value.map(lowercaseHex);
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, lowercaseHex(v)]));
  return value;
}

/** The `eth.eip_712` keyword of typed data. */
export function typedDataFacts(data: TypedData): Record<string, unknown> {
  const d = data.domain;
  return {
    primary_type: data.primaryType,
    domain: {
      ...(typeof d.name === "string" ? { name: d.name } : {}),
      ...(typeof d.version === "string" ? { version: d.version } : {}),
      ...(d.chainId !== undefined ? { chain_id: asBigInt(d.chainId, "domain.chainId") } : {}),
      ...(typeof d.verifyingContract === "string" ? { verifying_contract: d.verifyingContract.toLowerCase() } : {}),
    },
    message: lowercaseHex(data.message),
  };
}

/** An EIP-7702 authorization as a PAYLOAD_ENCODING_EIP7702_AUTHORIZATION payload carries it. */
export interface Authorization {
  address: string;
  chainId: bigint;
  nonce: bigint;
}

/**
 * Reads an authorization payload: JSON `{address, chainId, nonce}`.
 * @throws TransactionDecodeError naming the field
 */
export function parseAuthorization(text: string): Authorization {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return fail("expected an authorization as JSON text {address, chainId, nonce}");
  }
  const address = typeof value.address === "string" ? value.address : fail("address: expected a string");
  if (hexPayload(address).length !== 20) fail("address: expected a 20-byte address");
  return { address: address.toLowerCase(), chainId: asBigInt(value.chainId, "chainId"), nonce: asBigInt(value.nonce, "nonce") };
}

/** The EIP-7702 digest: keccak-256 of `0x05 ‖ rlp([chain_id, address, nonce])`. */
export function authorizationHash(auth: Authorization): Uint8Array {
  const body = rlpEncode([rlpUint(auth.chainId), hexPayload(auth.address), rlpUint(auth.nonce)]);
  return keccak_256(concatBytes(Uint8Array.of(0x05), body));
}

/** The `eth.eip_7702_authorization` keyword. */
export function authorizationFacts(auth: Authorization): Record<string, unknown> {
  return { address: auth.address, chain_id: auth.chainId, nonce: auth.nonce };
}
