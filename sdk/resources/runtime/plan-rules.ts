/**
 * @module resources/runtime/plan-rules
 * What the service refuses across objects, per resource class, as data: which declared values
 * must be unique (and within what), and how many objects of a class an organization (or a
 * user) may hold. `plan-census.ts` applies these rules to the whole plan at preview.
 *
 * Sources: the service's 409 "already exists" rules that each resource's `findExisting`
 * follows, and the resource limits of `reference/service-api-facts.md` ("Resource limits per
 * organization"): 100 users, policies, wallets, invitations and user tags, 1,000 private keys;
 * 10 long-lived and 10 expiring API keys per user (over the expiring limit the service deletes
 * the oldest expiring key without a word, so a plan that exceeds it is refused too).
 */
import { isClaimed } from "./earlier-work";
import { perRun } from "./run-state";
import type { Session } from "./client";
import { before, collections } from "./shared-reads";
import { containsUnknown } from "./values";

/** One value the service keeps unique, and the property it comes from. */
export interface UniqueValue {
  /** The input property, for the failure. */
  readonly property: string;
  /** The value, canonical (e.g. an address in lower case), prefixed with what it is unique within. */
  readonly key: string;
  /** How to show it in a message. */
  readonly shown: string;
}

/** A cap on how many objects of a class one container (the organization, a user) holds. */
export interface Limit {
  /** The cap. */
  readonly max: number;
  /** What the cap counts, for messages (e.g. "user tags"). */
  readonly noun: string;
  /** The input property a failure is reported on (the declared name). */
  readonly property: string;
  /** The container and bucket a declared object counts in (e.g. per user, expiring or not); `undefined`: not counted. */
  bucket(inputs: Record<string, unknown>): string | undefined;
  /** The objects that existed before this run (`before` in `shared-reads.ts`), by the same key as `counted`, in each bucket. */
  existing(session: Session): Promise<Map<string, Map<string, string>>>;
  /**
   * The objects in a bucket that `existing` does not hold, when that may not mean none: a
   * container (a user) made after the census read. Default: none.
   */
  unseen?(session: Session, inputs: Record<string, unknown>, bucket: string): Promise<Map<string, string>>;
  /** The key a declared object is counted under (the same object found existing has the same key). */
  counted(inputs: Record<string, unknown>): string | undefined;
}

/** The rules of one resource class. */
export interface PlanRule {
  unique(inputs: Record<string, unknown>): UniqueValue[];
  limit?: Limit;
}

const str = (value: unknown): string | undefined => (typeof value === "string" && value.length > 0 ? value : undefined);

/** A unique name within the organization. */
function orgName(property: string): (inputs: Record<string, unknown>) => UniqueValue[] {
  return (inputs) => {
    const value = str(inputs[property]);
    return value === undefined ? [] : [{ property, key: `name:${value}`, shown: JSON.stringify(value) }];
  };
}

/** An organization-wide limit over a list of names read from the service. */
function orgLimit(max: number, noun: string, property: string, read: (s: Session) => Promise<Array<[string, string]>>): Limit {
  return {
    max,
    noun,
    property,
    bucket: () => "organization",
    counted: (inputs) => str(inputs[property]),
    existing: async (s) => new Map([["organization", new Map(await read(s))]]),
  };
}

const API_KEY_LIMIT = 10;

/** The API keys of `users` by bucket (long-lived or expiring, per user), by name. */
function apiKeyBuckets(users: ReadonlyArray<{ userId: string; apiKeys: ReadonlyArray<{ apiKeyName: string; apiKeyId: string; expirationSeconds?: string }> }>): Map<string, Map<string, string>> {
  const buckets = new Map<string, Map<string, string>>();
  for (const user of users) {
    for (const key of user.apiKeys) {
      const bucket = `${key.expirationSeconds === undefined || key.expirationSeconds === "" ? "long-lived" : "expiring"} API keys of user ${user.userId}`;
      if (!buckets.has(bucket)) buckets.set(bucket, new Map());
      buckets.get(bucket)!.set(key.apiKeyName, key.apiKeyId);
    }
  }
  return buckets;
}

/** org → URN → whether a User resource of the plan creates its user with API keys of its own; part of the "census" group. */
const usersWithKeysOfRun = perRun(() => new Map<string, Map<string, boolean>>(), "census");

/** Records whether a User resource of the plan creates its user with API keys (`apiKeys` declared, or unknown yet). */
export function noteUserKeys(session: Session, urn: string, inputs: Record<string, unknown>): void {
  const usersWithKeys = usersWithKeysOfRun.of(session.context);
  let byUrn = usersWithKeys.get(session.organizationId);
  if (byUrn === undefined) usersWithKeys.set(session.organizationId, (byUrn = new Map()));
  const keys = inputs.apiKeys;
  byUrn.set(urn, containsUnknown(keys) || (Array.isArray(keys) && keys.length > 0));
}

/** Whether some User resource of the plan creates its user with API keys of its own. */
function usersMadeWithKeys(session: Session): boolean {
  return [...(usersWithKeysOfRun.of(session.context).get(session.organizationId)?.values() ?? [])].some(Boolean);
}

/** The rules by resource class name; a class not listed has none. */
export const PLAN_RULES: Readonly<Record<string, PlanRule>> = {
  UserTag: {
    unique: orgName("userTagName"),
    limit: orgLimit(100, "user tags", "userTagName", async (s) =>
      (await before.userTags(s)).map((t) => [t.tagName, t.tagId]),
    ),
  },
  Policy: {
    unique: orgName("policyName"),
    limit: orgLimit(100, "policies", "policyName", async (s) => (await before.policies(s)).map((p) => [p.policyName, p.policyId])),
  },
  User: {
    unique: orgName("userName"),
    limit: orgLimit(100, "users", "userName", async (s) => (await before.users(s)).map((u) => [u.userName, u.userId])),
  },
  Wallet: {
    unique: orgName("walletName"),
    limit: orgLimit(100, "wallets", "walletName", async (s) => (await collections.wallets(s)).wallets.map((w) => [w.walletName, w.walletId])),
  },
  PrivateKey: {
    unique: orgName("privateKeyName"),
    limit: orgLimit(1000, "private keys", "privateKeyName", async (s) =>
      (await collections.privateKeys(s)).privateKeys.map((k) => [k.privateKeyName, k.privateKeyId]),
    ),
  },
  PrivateKeyTag: { unique: orgName("privateKeyTagName") },
  SessionProfile: { unique: orgName("sessionProfileName") },
  SmartContractInterface: {
    unique: (inputs) => {
      const address = str(inputs.smartContractAddress);
      const type = str(inputs.type) ?? "";
      if (address === undefined) return [];
      return [{ property: "smartContractAddress", key: `address:${address.toLowerCase()}|${type.replace(/^.*_/, "")}`, shown: `${address} (${type})` }];
    },
  },
  ApiKey: {
    unique: (inputs) => {
      const out: UniqueValue[] = [];
      const user = str(inputs.userId);
      const name = str(inputs.apiKeyName);
      const publicKey = str(inputs.publicKey);
      // A name is unique per user, a public key per organization.
      if (user !== undefined && name !== undefined) out.push({ property: "apiKeyName", key: `user:${user}|name:${name}`, shown: `${JSON.stringify(name)} of user ${user}` });
      if (publicKey !== undefined) out.push({ property: "publicKey", key: `publicKey:${publicKey.toLowerCase()}`, shown: publicKey });
      return out;
    },
    limit: {
      max: API_KEY_LIMIT,
      noun: "API keys",
      property: "apiKeyName",
      bucket: (inputs) => {
        const user = str(inputs.userId);
        if (user === undefined) return undefined;
        return `${inputs.expirationSeconds === undefined ? "long-lived" : "expiring"} API keys of user ${user}`;
      },
      counted: (inputs) => str(inputs.apiKeyName),
      existing: async (s) => apiKeyBuckets(await before.users(s)),
      unseen: async (s, inputs, bucket) => {
        const userId = str(inputs.userId);
        // A user the census read saw, with no key in this bucket.
        if ((await before.users(s)).some((u) => u.userId === userId)) return new Map();
        // Made after the census read by this run, with no API key of its own: it holds none but the ones this plan declares.
        if (userId !== undefined && isClaimed(s, "User", userId) && !usersMadeWithKeys(s)) return new Map();
        // Else (made with keys, or not by this run): what it holds now.
        return apiKeyBuckets((await collections.users(s)).users.filter((u) => u.userId === userId)).get(bucket) ?? new Map();
      },
    },
  },
  Invitation: {
    unique: () => [],
    limit: orgLimit(100, "invitations", "receiverUserEmail", async (s) =>
      ((await before.organization(s)).organizationData.invitations ?? [])
        .filter((i) => i.status !== "INVITATION_STATUS_REVOKED")
        .map((i) => [i.receiverEmail, i.invitationId]),
    ),
  },
};
