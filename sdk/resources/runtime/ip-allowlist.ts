/**
 * @module resources/runtime/ip-allowlist
 * IpAllowlist: the organization-level allowlist, or one API key's own (`publicKey`).
 * `set_ip_allowlist` replaces the rules as a whole, so rules, enabled and onEvaluationError all
 * change in place with one request; destroy is `remove_ip_allowlist`. The id is the key's
 * public key, or `organization` for the organization-level list. Per-key lists apply only while
 * the organization-level list is enabled.
 */
import { IpAllowlistEvaluationError, type IpAllowlist } from "../../wire/operations/ip-allowlists";
import { operations } from "../../wire/registry";
import { rule, schemaFailures } from "./check";
import type { Session } from "./client";
import type { InputsOf, OutputsOf, ResourceDescription } from "./describe";
import type { ListObjects } from "./listing";
import { collections } from "./shared-reads";
import { ProviderError } from "./errors";
import { defineResource } from "./define";
import { makeHandler } from "./framework";
import { unlessNotFound } from "./lookups";
import { canonicalJson, compact, containsUnknown } from "./values";

/** The id of the organization-level allowlist. */
export const ORGANIZATION_ALLOWLIST_ID = "organization";

/** Rules sorted by block, without absent labels: the order carries no meaning. */
function sortedRules(rules: readonly IpRule[]): IpRule[] {
  return rules.map((r) => compact({ cidr: r.cidr, label: r.label === "" ? undefined : r.label })).sort((a, b) => a.cidr.localeCompare(b.cidr));
}

const idOf = (publicKey: string | undefined) => publicKey ?? ORGANIZATION_ALLOWLIST_ID;
const keyOf = (id: string) => (id === ORGANIZATION_ALLOWLIST_ID ? undefined : id);

const fetchAllowlist = (session: Session, id: string): Promise<IpAllowlist | undefined> =>
  unlessNotFound(async () => (await session.client.getIpAllowlist(compact({ publicKey: keyOf(id) }))).allowlist);

function setParameters(inputs: IpAllowlistInputs) {
  return compact({
    publicKey: inputs.publicKey,
    enabled: inputs.publicKey === undefined ? inputs.enabled : undefined,
    rules: inputs.rules,
    onEvaluationError: inputs.onEvaluationError as "ALLOW" | "DENY",
  });
}

const RULE = {
  type: "object",
  properties: {
    cidr: { type: "string", description: "An IPv4 or IPv6 CIDR block (`10.0.0.0/8`, `2001:db8::/32`) or a single address.", required: true },
    label: { type: "string", description: "A label for people (e.g. `Office VPN`)." },
  },
} as const;

const describe = {
  description:
    "An IP allowlist: the organization-level list (no `publicKey`) or one API key's own list. `set_ip_allowlist` replaces the rules " +
    "whole, so every property but `publicKey` changes in place; destroy removes the list (`remove_ip_allowlist`). At most 10 IPv4 and " +
    "10 IPv6 rules. Per-key lists apply only while the organization-level list is enabled. An enabled organization-level list that " +
    "leaves out the address keyform runs from locks keyform out.",
  example: { name: "ci-ips", inputs: { publicKey: "${ci.publicKey}", rules: [{"cidr": "203.0.113.0/24", "label": "CI"}] } },
  guide: [
    "`set_ip_allowlist` replaces a list whole, so rules, `enabled` and `onEvaluationError` change",
    "**in place**; another `publicKey` **replaces** it; destroy is `remove_ip_allowlist`. Creating a",
    "list that already exists fails and names the `importId` to adopt it with (`organization` or the",
    "public key).",
  ].join("\n"),
  importIdMeaning: "`organization`, or the API key's public key",
  inputs: {
    publicKey: { type: "string", description: "The API key (public key, hex) the list belongs to; unset: the organization-level list.", replaceOnChange: true, references: { kind: "ApiKey", output: "publicKey" } },
    enabled: { type: "boolean", description: "Organization-level lists only: whether the list is enforced; default true." },
    rules: { type: "array", items: RULE, description: "The allowed blocks (order does not matter).", required: true },
    onEvaluationError: { type: "string", enum: IpAllowlistEvaluationError.options, description: "What happens when an address cannot be evaluated; default `DENY`.", default: "DENY" },
  },
  outputs: {
    allowlistId: { type: "string", description: "The list's id: the key's public key, or `organization`." },
    publicKey: { type: "string", description: "The API key the list belongs to, for a per-key list.", optional: true },
    enabled: { type: "boolean", description: "Whether an organization-level list is enforced.", optional: true },
    rules: { type: "array", items: RULE, description: "The rules as the service holds them, sorted by block." },
    onEvaluationError: { type: "string", enum: IpAllowlistEvaluationError.options, description: "`ALLOW` or `DENY`." },
  },
} as const satisfies ResourceDescription;

/** Normalized inputs of an IpAllowlist. */
export type IpAllowlistInputs = InputsOf<typeof describe>;
/** Outputs of an IpAllowlist. */
export type IpAllowlistOutputs = OutputsOf<typeof describe>;
/** One rule: a CIDR block (or single address) and an optional label. */
export type IpRule = IpAllowlistInputs["rules"][number];

/** The organization-level list and every API key's own list, where they exist. */
const listIpAllowlists: ListObjects = async (session) => {
  const { users } = await collections.users(session);
  const keys = users.flatMap((u) => u.apiKeys.map((k) => ({ id: k.credential.publicKey, label: `${u.userName}-${k.apiKeyName}-ips` })));
  const candidates = [{ id: ORGANIZATION_ALLOWLIST_ID, label: "organization-ips" }, ...keys];
  const found = await Promise.all(candidates.map(async (c) => ((await fetchAllowlist(session, c.id)) === undefined ? [] : [c])));
  return found.flat();
};

export const ipAllowlistSpec = defineResource<IpAllowlistInputs, IpAllowlistOutputs, IpAllowlist>({
  kind: "IpAllowlist",
  describe,
  list: listIpAllowlists,
  idProperty: "allowlistId",
  equal: {
    publicKey: (a, b) => String(a ?? "").toLowerCase() === String(b ?? "").toLowerCase(),
    enabled: (a, b) => (a ?? undefined) === (b ?? undefined),
    rules: (a, b) => canonicalJson(sortedRules((a ?? []) as IpRule[])) === canonicalJson(sortedRules((b ?? []) as IpRule[])),
  },
  normalize(inputs) {
    const rules: unknown = inputs.rules;
    return compact({
      ...inputs,
      // A per-key list has no flag: its presence is its enablement.
      enabled: inputs.publicKey === undefined ? (inputs.enabled ?? true) : inputs.enabled,
      rules: Array.isArray(rules) && !containsUnknown(rules) ? sortedRules(rules as IpRule[]) : inputs.rules,
    });
  },
  validate(inputs) {
    const record = inputs as unknown as Record<string, unknown>;
    return [
      ...schemaFailures(operations.setIpAllowlist.parameters, { ...setParameters(inputs), enabled: inputs.enabled }, record),
      ...rule(record, "rules", (v) => Array.isArray(v), "is required: a list of {cidr, label?} ([] allows no address)"),
      ...rule(record, "enabled", (v) => v === undefined || inputs.publicKey === undefined, "applies to the organization-level list only; remove it or publicKey"),
    ];
  },
  label: (inputs) => (inputs.publicKey === undefined ? "(organization)" : `(API key ${inputs.publicKey.slice(0, 12)}…)`),
  fetch: (session, id) => fetchAllowlist(session, id),
  flatten: (live) =>
    compact({
      allowlistId: idOf(live.publicKey),
      publicKey: live.publicKey,
      enabled: live.publicKey === undefined ? (live.enabled ?? true) : undefined,
      rules: sortedRules(live.rules),
      // The record types it as text; the service sets only the two values it accepts.
      onEvaluationError: (live.onEvaluationError ?? "DENY") as IpAllowlistEvaluationError,
    }),
  async create(session, inputs) {
    const id = idOf(inputs.publicKey);
    // set_ip_allowlist would silently overwrite a list someone else owns.
    if ((await fetchAllowlist(session, id)) !== undefined) {
      throw new ProviderError(
        `${inputs.publicKey === undefined ? "the organization-level IP allowlist" : `the IP allowlist of API key ${inputs.publicKey}`} already exists; ` +
          `adopt it with importId: "${id}"`,
      );
    }
    await session.client.setIpAllowlist(setParameters(inputs));
    return { id };
  },
  async update(session, _id, _live, inputs) {
    await session.client.setIpAllowlist(setParameters(inputs));
  },
  async remove(session, id) {
    await session.client.removeIpAllowlist(compact({ publicKey: keyOf(id) }));
  },
});

/** The runtime handler the IpAllowlist provider code in state delegates to. */
export const ipAllowlistHandler = makeHandler(ipAllowlistSpec);
