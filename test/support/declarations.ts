/**
 * @module test/support/declarations
 * A stack of many keyform resources as data, for the exactly-once engine test and the
 * reconcile benchmark: the declarations the fixture program `test/engine/fixtures/reconcile-
 * project` turns into resources, and a census of the organization that says, for each
 * declared object, how many copies exist.
 */
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import type { KeyformClient } from "../../sdk/client/client";

/** The resource kinds the mix draws from. */
export type Kind = "UserTag" | "Policy" | "ApiKey" | "SmartContractInterface" | "Invitation";
export const KINDS: readonly Kind[] = ["UserTag", "Policy", "ApiKey", "SmartContractInterface", "Invitation"];

/** One resource of the fixture program. */
export interface Declaration {
  kind: Kind;
  name: string;
  args: Record<string, unknown>;
  /** What identifies the object in the organization (its unique name, or an invitation's email). */
  key: string;
}

/**
 * `count` resources cycling through `kinds`, every name and address unique under `prefix`
 * (a short, lowercase, alphanumeric word), so several stacks can share one organization.
 * Every other API key declares its public key; the rest let keyform generate the pair (whose
 * private key exists only in the run that made it: a killed run's key is replaced, not adopted).
 * Half of the keys expire; 20 keys of one user is the service's limit (10 of each), so a mix of
 * more than 100 resources needs its keys spread over users (`userId`).
 */
export function declarations(prefix: string, count: number, kinds: readonly Kind[], userId: string): Declaration[] {
  const out: Declaration[] = [];
  for (let i = 0; i < count; i++) {
    const kind = kinds[i % kinds.length]!;
    const id = `${prefix}-${i}`;
    const name = `r${i}`;
    switch (kind) {
      case "UserTag":
        out.push({ kind, name, key: id, args: { userTagName: id, userIds: [userId] } });
        break;
      case "Policy":
        out.push({ kind, name, key: id, args: { policyName: id, effect: "EFFECT_DENY", condition: `activity.type == '${id}'` } });
        break;
      case "ApiKey": {
        const nth = Math.floor(i / kinds.length);
        // Half of the keys expire: the service holds at most 10 long-lived and 10 expiring keys
        // per user, and keyform's preview refuses a plan over that.
        out.push({
          kind,
          name,
          key: id,
          args: {
            userId,
            apiKeyName: id,
            ...(nth % 2 === 0 ? { publicKey: generateApiKeyPair().publicKey } : {}),
            ...(Math.floor(nth / 2) % 2 === 1 ? { expirationSeconds: "31536000" } : {}),
          },
        });
        break;
      }
      case "SmartContractInterface": {
        const address = `0x${Buffer.from(id).toString("hex").padStart(40, "0").slice(-40)}`;
        out.push({
          kind,
          name,
          key: address.toLowerCase(),
          args: { smartContractAddress: address, smartContractInterface: [{ type: "function", name: "ping", inputs: [] }], type: "ETHEREUM", label: id },
        });
        break;
      }
      case "Invitation":
        out.push({
          kind,
          name,
          key: `${id}@example.com`,
          args: { receiverUserName: id, receiverUserEmail: `${id}@example.com`, accessType: "ACCESS_TYPE_API", senderUserId: userId },
        });
        break;
    }
  }
  return out;
}

/** API keys one user takes in {@link spreadApiKeys}: any 10 of the mix stay within both of the service's per-user limits. */
export const KEYS_PER_OWNER = 10;

/** How many users {@link spreadApiKeys} needs for the API keys of `declared`. */
export function keyOwnersNeeded(declared: readonly Declaration[]): number {
  return Math.ceil(declared.filter((d) => d.kind === "ApiKey").length / KEYS_PER_OWNER);
}

/**
 * `declared` with its API keys spread over `owners` ({@link KEYS_PER_OWNER} each, in order):
 * a mix of more than 20 keys on one user is more than the service holds, and preview refuses it.
 */
export function spreadApiKeys(declared: readonly Declaration[], owners: readonly string[]): Declaration[] {
  let nth = 0;
  return declared.map((d) => {
    if (d.kind !== "ApiKey") return d;
    const owner = owners[Math.floor(nth++ / KEYS_PER_OWNER)];
    if (owner === undefined) throw new Error(`spreadApiKeys: ${keyOwnersNeeded(declared)} key owners needed, ${owners.length} given`);
    return { ...d, args: { ...d.args, userId: owner } };
  });
}

/** How many objects of each declared key exist, and their ids, per kind. */
export type Census = Record<Kind, Map<string, string[]>>;

/** Reads the organization (directly, not through a fault proxy) and groups objects by key. */
export async function census(client: KeyformClient): Promise<Census> {
  const group = (items: Array<[string, string]>) => {
    const map = new Map<string, string[]>();
    for (const [key, id] of items) map.set(key, [...(map.get(key) ?? []), id]);
    return map;
  };
  const [{ userTags }, { policies }, { users }, { smartContractInterfaces }, { organizationData }] = await Promise.all([
    client.listUserTags(),
    client.listPolicies(),
    client.listUsers(),
    client.listSmartContractInterfaces(),
    client.getOrganization(),
  ]);
  return {
    UserTag: group(userTags.map((t) => [t.tagName, t.tagId])),
    Policy: group(policies.map((p) => [p.policyName, p.policyId])),
    ApiKey: group(users.flatMap((u) => u.apiKeys.map((k): [string, string] => [k.apiKeyName, k.apiKeyId]))),
    SmartContractInterface: group(smartContractInterfaces.map((s) => [s.smartContractAddress.toLowerCase(), s.smartContractInterfaceId])),
    Invitation: group(
      (organizationData.invitations ?? [])
        .filter((inv) => inv.status !== "INVITATION_STATUS_REVOKED")
        .map((inv): [string, string] => [inv.receiverEmail, inv.invitationId]),
    ),
  };
}

/** What the census says about the declarations: keys held more than once, or not at all. */
export function tally(declared: readonly Declaration[], found: Census): { duplicates: string[]; missing: string[]; ids: Set<string> } {
  const duplicates: string[] = [];
  const missing: string[] = [];
  const ids = new Set<string>();
  for (const d of declared) {
    const held = found[d.kind].get(d.key) ?? [];
    if (held.length > 1) duplicates.push(`${d.kind} ${d.key} ×${held.length}`);
    if (held.length === 0) missing.push(`${d.kind} ${d.key}`);
    for (const id of held) ids.add(id);
  }
  return { duplicates, missing, ids };
}
