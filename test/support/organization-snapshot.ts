/**
 * @module test/support/organization-snapshot
 * An organization read back with the official client (`@turnkey/http`), as plain data that two
 * organizations built by different runs can be compared by: every id or generated key is replaced
 * by the name of what it stands for (`user:alice`, `tag:admins`, `key:bot/bot-key`,
 * `privateKey:signer`), values that differ between runs of the same program (timestamps,
 * derived addresses) are dropped, and lists are sorted, so order carries no meaning.
 */
import { ApiKeyStamper as TurnkeyApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeyClient } from "@turnkey/http";

/** Where an organization is and the credentials that read it. */
export interface OrganizationAccess {
  readonly baseUrl: string;
  readonly organizationId: string;
  readonly apiPublicKey: string;
  readonly apiPrivateKey: string;
}

/** Values that differ between two runs of the same program: ids, timestamps, derived keys and addresses. */
export const VOLATILE = new Set([
  "createdAt",
  "updatedAt",
  "policyId",
  "apiKeyId",
  "invitationId",
  "endpointId",
  "walletId",
  "walletAccountId",
  "privateKeyId",
  "privateKeyTagId",
  "sessionProfileId",
  "address",
  "addresses",
  "publicKey",
  "smartContractInterfaceId",
  "organizationId",
  "userId",
  "tagId",
  "expirationSeconds",
  "wrapperAddress",
]);

/** The official client of the organization, stamped with the given API key. */
export function officialClient(access: OrganizationAccess): TurnkeyClient {
  return new TurnkeyClient(
    { baseUrl: access.baseUrl },
    new TurnkeyApiKeyStamper({ apiPublicKey: access.apiPublicKey, apiPrivateKey: access.apiPrivateKey }),
  );
}

/**
 * The organization as comparable data (see the module comment). `extraSymbols` names values the
 * caller knows stand for something (e.g. the stack name, which programs put into names).
 */
export async function organizationSnapshot(access: OrganizationAccess, extraSymbols: ReadonlyMap<string, string> = new Map()): Promise<unknown> {
  const client = officialClient(access);
  const organizationId = access.organizationId;
  const [{ users }, { userTags }, { policies }, { organizationData }, webhooks, { wallets }, { privateKeys }, { privateKeyTags }, contracts, sessions, earn, orgAllowlist] =
    await Promise.all([
      client.getUsers({ organizationId }),
      client.listUserTags({ organizationId }),
      client.getPolicies({ organizationId }),
      client.getOrganization({ organizationId }),
      client.listWebhookEndpoints({ organizationId }),
      client.getWallets({ organizationId }),
      client.getPrivateKeys({ organizationId }),
      client.listPrivateKeyTags({ organizationId }),
      client.getSmartContractInterfaces({ organizationId }),
      client.getSessionProfiles({ organizationId }),
      client.listEarnEnabledVaults({ organizationId } as never),
      client.getIpAllowlist({ organizationId }).catch(() => undefined),
    ]);
  const symbols = new Map<string, string>(extraSymbols);
  for (const u of users) {
    symbols.set(u.userId, `user:${u.userName}`);
    for (const k of u.apiKeys) symbols.set(k.credential.publicKey, `key:${u.userName}/${k.apiKeyName}`);
  }
  for (const t of userTags) symbols.set(t.tagId, `tag:${t.tagName}`);
  for (const k of privateKeys) symbols.set(k.privateKeyId, `privateKey:${k.privateKeyName}`);
  for (const t of privateKeyTags) symbols.set(t.tagId, `privateKeyTag:${t.tagName}`);
  for (const w of wallets) symbols.set(w.walletId, `wallet:${w.walletName}`);
  const keyAllowlists = await Promise.all(
    users.flatMap((u) => u.apiKeys).map(async (k) => ({
      key: k.credential.publicKey,
      allowlist: (await client.getIpAllowlist({ organizationId, publicKey: k.credential.publicKey } as never).catch(() => undefined))?.allowlist,
    })),
  );
  const accounts = await Promise.all(
    wallets.map(async (w) => ({ walletName: w.walletName, accounts: (await client.getWalletAccounts({ organizationId, walletId: w.walletId })).accounts })),
  );
  const raw = {
    users,
    userTags,
    policies,
    invitations: (organizationData as { invitations?: unknown[] }).invitations ?? [],
    rootQuorum: (organizationData as { rootQuorum?: unknown }).rootQuorum,
    webhookEndpoints: (webhooks as { webhookEndpoints?: unknown[] }).webhookEndpoints ?? [],
    allowlists: [
      { of: "organization", allowlist: orgAllowlist?.allowlist },
      ...keyAllowlists.filter((a) => a.allowlist !== undefined).map((a) => ({ of: a.key, allowlist: a.allowlist })),
    ],
    wallets: accounts,
    privateKeys,
    privateKeyTags,
    smartContractInterfaces: (contracts as { smartContractInterfaces?: unknown[] }).smartContractInterfaces ?? [],
    sessionProfiles: (sessions as { sessionProfiles?: unknown[] }).sessionProfiles ?? [],
    earn: ((earn as { enabledVaults?: Array<{ depositsDisabled?: boolean }> }).enabledVaults ?? []).map((v) => ({ depositsDisabled: v.depositsDisabled })),
  };
  return comparable(raw, symbols, VOLATILE);
}

/**
 * `raw` made comparable across runs: each id of `symbols` replaced by its symbol (longest first,
 * so an id that contains another is replaced whole), then `rename` applied to every string, the
 * `volatile` keys dropped, and lists and keys sorted.
 */
export function comparable(raw: unknown, symbols: ReadonlyMap<string, string>, volatile: ReadonlySet<string>, rename: (s: string) => string = (s) => s): unknown {
  const known = [...symbols.keys()].sort((a, b) => b.length - a.length);
  const text = (s: string) => rename(known.reduce((t, id) => t.split(id).join(symbols.get(id)!), s));
  const normalize = (value: unknown): unknown => {
    if (typeof value === "string") return text(value);
    if (Array.isArray(value)) return value.map(normalize).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value)
          .filter(([key]) => !volatile.has(key))
          .map(([key, v]) => [key, normalize(v)])
          .sort(([a], [b]) => (a as string).localeCompare(b as string)),
      );
    }
    return value;
  };
  return normalize(raw);
}

/**
 * How many user tags and policies of `organizationId` carry each name starting with `${prefix}-`,
 * read with the official client: a count above 1 is a duplicate, a missing name an object never made.
 */
export async function namedObjectCounts(official: TurnkeyClient, organizationId: string, prefix: string): Promise<Map<string, number>> {
  const { userTags } = await official.listUserTags({ organizationId });
  const { policies } = await official.getPolicies({ organizationId });
  const counts = new Map<string, number>();
  for (const name of [...userTags.map((t) => t.tagName), ...policies.map((p) => p.policyName)]) {
    if (name.startsWith(`${prefix}-`)) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}
