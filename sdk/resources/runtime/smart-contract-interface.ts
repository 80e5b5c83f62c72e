/**
 * @module resources/runtime/smart-contract-interface
 * SmartContractInterface: an ABI (Ethereum) or IDL (Solana) registered for a contract
 * address. The service has no update (docs/service-facts.md#35-smart-contract-interfaces), so every change is a new object. The
 * document is compared as canonical JSON: the same ABI given as an object, or as text with
 * other whitespace or key order, is not a change.
 */
import { operations } from "../../wire/registry";
import { ETHEREUM_ADDRESS, rule, schemaFailures, SOLANA_ADDRESS, type CheckFailure } from "./check";
import type { Session } from "./client";
import { createActivity } from "./earlier-activity";
import type { ListObjects } from "./listing";
import type { InputsOf, OutputsOf, ResourceDescription } from "./describe";
import { defineResource, parametersFrom } from "./define";
import { makeHandler } from "./framework";
import { collections } from "./shared-reads";
import { canonicalDocument, compact, containsUnknown, isUnknown } from "./values";

/** The service's limit on the document (docs/service-facts.md#35-smart-contract-interfaces). */
export const MAX_INTERFACE_BYTES = 400 * 1024;

const WIRE_PREFIX = "SMART_CONTRACT_INTERFACE_TYPE_";

interface LiveInterface {
  smartContractInterfaceId: string;
  smartContractAddress: string;
  smartContractInterface: string;
  type: string;
  label: string;
  notes?: string | undefined;
}

/** `SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM` and `ETHEREUM` are the same type. */
export function shortType(type: unknown): unknown {
  return typeof type === "string" && type.startsWith(WIRE_PREFIX) ? type.slice(WIRE_PREFIX.length) : type;
}

/** Canonical text of a document, or the value unchanged when it is not JSON. */
export function canonicalInterface(document: unknown): unknown {
  if (document === undefined || document === null || containsUnknown(document)) return document;
  try {
    return canonicalDocument(document);
  } catch {
    return document;
  }
}

const sameDocument = (a: unknown, b: unknown) => canonicalInterface(a) === canonicalInterface(b);

function sameAddress(a: unknown, b: unknown): boolean {
  // Ethereum addresses are case-insensitive (the mixed case is only a checksum).
  if (typeof a === "string" && typeof b === "string" && a.startsWith("0x") && b.startsWith("0x")) {
    return a.toLowerCase() === b.toLowerCase();
  }
  return a === b;
}

function isJsonText(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    JSON.parse(value);
    return true;
  } catch {
    return false;
  }
}

/** Reads one interface from the shared list; `undefined` when none has this id. */
async function fetchInterface(session: Session, id: string): Promise<LiveInterface | undefined> {
  const { smartContractInterfaces } = await collections.smartContractInterfaces(session);
  return smartContractInterfaces.find((i) => i.smartContractInterfaceId === id);
}

/** The create_smart_contract_interface parameters of `inputs`: its inputs of the same names, the type in its wire form. */
function createParameters(inputs: SmartContractInterfaceInputs) {
  return {
    ...parametersFrom(operations.createSmartContractInterface.parameters, inputs),
    type: `${WIRE_PREFIX}${inputs.type}` as "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM" | "SMART_CONTRACT_INTERFACE_TYPE_SOLANA",
  };
}

/** Every contract interface of the organization. */
const listSmartContractInterfaces: ListObjects = async (session) =>
  (await collections.smartContractInterfaces(session)).smartContractInterfaces.map((s) => ({ id: s.smartContractInterfaceId, label: s.label }));

const describe = {
  description:
    "The ABI (Ethereum) or IDL (Solana) of a contract, which lets policies inspect calls to it. Every input change replaces it (the service has no update); the document is compared as canonical JSON.",
  example: {
    name: "usdc",
    inputs: {
      smartContractAddress: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
      smartContractInterface: [{"type": "function", "name": "transfer", "stateMutability": "nonpayable", "inputs": [{"name": "to", "type": "address"}, {"name": "amount", "type": "uint256"}], "outputs": [{"name": "", "type": "bool"}]}],
      type: "ETHEREUM",
      label: "USDC",
    },
  },
  guide: [
    "The document (an ABI or IDL as an object or JSON text, at most 400 KiB) is compared as canonical",
    "JSON: the same ABI given as an object, or as text with other whitespace or key order, is no",
    "change; Ethereum addresses compare without case. The service cannot change an interface: **every",
    "change replaces it** (the old one first when the address and type stay the same).",
  ].join("\n"),
  importIdMeaning: "the interface's id, `smartContractInterfaceId`",
  inputs: {
    smartContractAddress: {
      type: "string",
      description: "Contract (Ethereum, `0x…`) or program (Solana, base58) address.",
      required: true,
      replaceOnChange: true,
    },
    smartContractInterface: {
      type: "json",
      description: "The ABI or IDL, as JSON text or as an object; whitespace and key order do not matter.",
      required: true,
      replaceOnChange: true,
    },
    type: { type: "string", enum: ["ETHEREUM", "SOLANA"], description: "`ETHEREUM` or `SOLANA`.", required: true, replaceOnChange: true },
    label: { type: "string", description: "A label shown with the interface.", required: true, replaceOnChange: true },
    notes: { type: "string", description: "Free text; default \"\".", replaceOnChange: true, default: "" },
  },
  outputs: {
    smartContractInterfaceId: { type: "string", description: "The interface's id." },
    smartContractAddress: { type: "string", description: "The contract or program address." },
    smartContractInterface: { type: "string", description: "The document as canonical JSON text." },
    type: { type: "string", enum: ["ETHEREUM", "SOLANA"], description: "`ETHEREUM` or `SOLANA`." },
    label: { type: "string", description: "The label." },
    notes: { type: "string", description: "Free text; absent when empty.", optional: true },
  },
} as const satisfies ResourceDescription;

/** Normalized inputs of a SmartContractInterface. */
export type SmartContractInterfaceInputs = Omit<InputsOf<typeof describe>, "smartContractInterface"> & {
  /** Canonical JSON text (or the text as given when it is not JSON; check then fails). */
  smartContractInterface: string;
};
/** Outputs of a SmartContractInterface. */
export type SmartContractInterfaceOutputs = OutputsOf<typeof describe>;

export const smartContractInterfaceSpec = defineResource<SmartContractInterfaceInputs, SmartContractInterfaceOutputs, LiveInterface>({
  kind: "SmartContractInterface",
  list: listSmartContractInterfaces,
  describe,
  idProperty: "smartContractInterfaceId",
  equal: {
    smartContractAddress: sameAddress,
    smartContractInterface: sameDocument,
    type: (a, b) => shortType(a) === shortType(b),
    notes: (a, b) => (a ?? "") === (b ?? ""),
  },
  normalize: (inputs) => ({
    ...inputs,
    // The document as canonical text, the type without its wire prefix.
    smartContractInterface: canonicalInterface(inputs.smartContractInterface) as string,
    type: shortType(inputs.type) as SmartContractInterfaceInputs["type"],
  }),
  validate(inputs) {
    const record = inputs as unknown as Record<string, unknown>;
    const { smartContractAddress, smartContractInterface, type, label, notes } = inputs;
    const failures: CheckFailure[] = [
      ...schemaFailures(
        operations.createSmartContractInterface.parameters,
        compact({
          smartContractAddress,
          smartContractInterface,
          type: typeof type === "string" && !isUnknown(type) ? `${WIRE_PREFIX}${type}` : type,
          label,
          notes,
        }),
        record,
      ).map((f) => (f.property === "type" && !f.reason.endsWith("required") ? { property: "type", reason: `must be "ETHEREUM" or "SOLANA"` } : f)),
      ...rule(record, "smartContractInterface", (v) => v === undefined || isJsonText(v), "must be JSON text or an object (an ABI or IDL)"),
      ...rule(record, "smartContractInterface", (v) => typeof v !== "string" || Buffer.byteLength(v) <= MAX_INTERFACE_BYTES, `must be at most ${MAX_INTERFACE_BYTES} bytes`),
    ];
    if (type === "ETHEREUM") {
      failures.push(...rule(record, "smartContractAddress", (v) => typeof v !== "string" || ETHEREUM_ADDRESS.test(v), "is not an Ethereum address (0x and 40 hex digits)"));
    } else if (type === "SOLANA") {
      failures.push(...rule(record, "smartContractAddress", (v) => typeof v !== "string" || SOLANA_ADDRESS.test(v), "is not a Solana address (base58, 32 to 44 characters)"));
    }
    return failures;
  },
  label: (inputs) => JSON.stringify(inputs.label ?? ""),
  // One interface per address and type: a replacement that keeps both deletes the old first.
  deleteBeforeReplace: (olds, news) => sameAddress(olds.smartContractAddress, news.smartContractAddress) && shortType(olds.type) === shortType(news.type),
  fetch: (session, id) => fetchInterface(session, id),
  flatten: (live) => ({
    smartContractInterface: canonicalInterface(live.smartContractInterface) as string,
    type: shortType(live.type) as SmartContractInterfaceOutputs["type"],
    // The service's "" means none: leaving it out keeps state to what was set.
    notes: live.notes || undefined,
  }),
  createActivity: createActivity({
    operation: "createSmartContractInterface",
    parameters: createParameters,
    createdId: (result) => result.smartContractInterfaceId,
  }),
  async findExisting(session, inputs) {
    // One interface per address and type in an organization.
    const { smartContractInterfaces } = await collections.smartContractInterfaces(session);
    const live = smartContractInterfaces.find(
      (i) => sameAddress(i.smartContractAddress, inputs.smartContractAddress) && shortType(i.type) === shortType(inputs.type),
    );
    return live === undefined ? undefined : { id: live.smartContractInterfaceId, live };
  },
  async create(session, inputs) {
    const parameters = createParameters(inputs);
    const result = await session.client.createSmartContractInterface(parameters);
    // The service keeps the address, document, label and notes as sent (there is no update):
    // the completed activity made exactly this interface, so no read of it is needed.
    return { id: result.smartContractInterfaceId, live: { smartContractInterfaceId: result.smartContractInterfaceId, ...parameters } };
  },
  async remove(session, id) {
    await session.client.deleteSmartContractInterface({ smartContractInterfaceId: id });
  },
});

/** The runtime handler the SmartContractInterface provider code in state delegates to. */
export const smartContractInterfaceHandler = makeHandler(smartContractInterfaceSpec);
