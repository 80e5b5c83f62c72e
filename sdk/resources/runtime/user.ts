/**
 * @module resources/runtime/user
 * User: `create_users` / `update_user` (name, email and phone number in place) /
 * `delete_users` (docs/service-facts.md#37-users). API keys and OAuth providers may be declared with the user:
 * when declared, the user's keys and providers are exactly those (keys are added and removed in
 * place; providers cannot be changed, so a change replaces the user); when not declared, they
 * are left alone (keys of `ApiKey` resources, providers linked by sign-in).
 *
 * Tags are `UserTag`'s job: a user is created without tags and its `userTags` are never read
 * or written here, so the two resources never undo each other's changes.
 *
 * A root quorum member cannot be deleted (the organization would lose its approvers): destroy
 * leaves such a user in place with a warning.
 */
import { ApiKeyCurve } from "../../wire/enums";
import type { User } from "../../wire/operations/users";
import { operations } from "../../wire/registry";
import { CURVE_BY_CREDENTIAL } from "./api-key";
import { rule, schemaFailures, type CheckFailure } from "./check";
import type { Session } from "./client";
import type { InputsOf, OutputsOf, ResourceDescription } from "./describe";
import { isOwnKey, type ListObjects } from "./listing";
import { createActivity } from "./earlier-activity";
import { warnEngine } from "./engine-log";
import { ProviderError } from "./errors";
import { defineResource } from "./define";
import { makeHandler } from "./framework";
import { collections } from "./shared-reads";
import { canonicalJson, compact, containsUnknown } from "./values";

/** The comparable identity of a key: everything the service cannot change in place. */
function keyIdentity(key: Partial<UserApiKey>): string {
  return canonicalJson([key.apiKeyName, String(key.publicKey ?? "").toLowerCase(), key.curveType ?? "API_KEY_CURVE_P256", key.expirationSeconds ?? null]);
}

function providerIdentity(p: Partial<UserOauthProvider>): string {
  return canonicalJson([p.providerName, p.oidcClaims?.iss, p.oidcClaims?.sub, p.oidcClaims?.aud]);
}

/** Same members by identity, ignoring order; `undefined` on the new side means "not managed". */
function sameMembers<T>(identity: (v: T) => string) {
  return (oldValue: unknown, newValue: unknown) => {
    if (newValue === undefined) return true;
    const a = ((oldValue ?? []) as T[]).map(identity).sort();
    const b = (newValue as T[]).map(identity).sort();
    return a.length === b.length && a.every((v, i) => v === b[i]);
  };
}

const sameText = (a: unknown, b: unknown) => (a ?? "") === (b ?? "");

function toWireKey(key: UserApiKey) {
  return compact({ apiKeyName: key.apiKeyName, publicKey: key.publicKey, curveType: key.curveType as ApiKeyCurve, expirationSeconds: key.expirationSeconds });
}

/** The create_users parameters of `inputs` (no tags: they are UserTag's). */
function createParameters(inputs: UserInputs) {
  return {
    users: [
      compact({
        userName: inputs.userName,
        userEmail: inputs.userEmail,
        userPhoneNumber: inputs.userPhoneNumber,
        apiKeys: (inputs.apiKeys ?? []).map(toWireKey),
        authenticators: [],
        oauthProviders: (inputs.oauthProviders ?? []).map((p) => ({ providerName: p.providerName, oidcClaims: p.oidcClaims })),
        userTags: [],
      }),
    ],
  };
}

function normalizeKeys(value: unknown): UserApiKey[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || containsUnknown(value)) return value as UserApiKey[];
  return value.map((k: Record<string, unknown>) => {
    const expiration = k.expirationSeconds;
    return compact({
      apiKeyName: k.apiKeyName as string,
      publicKey: k.publicKey as string,
      curveType: (k.curveType ?? "API_KEY_CURVE_P256") as ApiKeyCurve,
      expirationSeconds: typeof expiration === "number" ? String(expiration) : ((expiration ?? undefined) as string | undefined),
    });
  });
}

/**
 * Reads one user from the shared list: a refresh of many users costs one `list_users`, not
 * one `get_user` each (the list carries the same records).
 */
const fetchUser = async (session: Session, id: string): Promise<User | undefined> =>
  (await collections.users(session)).users.find((u) => u.userId === id);

const API_KEY_ITEM = {
  type: "object",
  description: "An API key of the user.",
  properties: {
    apiKeyName: { type: "string", description: "The key's name (unique per user).", required: true },
    publicKey: { type: "string", description: "The public key, hex: compressed SEC1 for P-256 and secp256k1, 32 bytes for Ed25519.", required: true },
    curveType: { type: "string", enum: ApiKeyCurve.options, description: "The key's curve; default `API_KEY_CURVE_P256`." },
    expirationSeconds: { type: "string", acceptsNumber: true, description: "Lifetime in seconds (a decimal string, or a number); unset: the key does not expire." },
  },
} as const;

const OAUTH_ITEM = {
  type: "object",
  description: "An OAuth (OIDC) provider linked to the user, identified by the claims of its tokens.",
  properties: {
    providerName: { type: "string", description: "A name for the provider link.", required: true },
    oidcClaims: {
      type: "object",
      description: "The OIDC claims that identify the account.",
      required: true,
      properties: {
        iss: { type: "string", description: "Issuer (`iss`).", required: true },
        sub: { type: "string", description: "Subject (`sub`).", required: true },
        aud: { type: "string", description: "Audience (`aud`): the client id.", required: true },
      },
    },
  },
} as const;

const describe = {
  description:
    "A user of the organization (`create_users`, `update_user`, `delete_users`). Name, e-mail and phone number change in place. " +
    "Tags are managed by `UserTag`, never here. When `apiKeys` or `oauthProviders` are declared they are the user's complete list; " +
    "when omitted, the user's keys and providers are left alone. A root quorum member is left in place by destroy, with a warning.",
  example: { name: "alice", inputs: { userName: "alice", userEmail: "alice@example.com" } },
  guide: [
    "Name, e-mail and phone number change **in place** (`update_user`); removing the e-mail clears",
    "it, an unset phone number is left as it is (the service cannot clear one). `apiKeys`, when",
    "declared, is the user's complete key list: keys are added and removed **in place** (a changed",
    "key is removed, then added), and removing the key keyform itself signs with is refused.",
    "`oauthProviders`, when declared, is the complete provider list; a change **replaces** the user.",
    "Leave either unset to manage keys with `ApiKey` resources or let users link providers",
    "themselves. **Tags are `UserTag`'s job**: a user is created without tags and keyform never reads",
    "or writes its `userTags`, so the two never undo each other. Destroy of a root quorum member",
    "**leaves the user in place** with a warning (change the quorum first).",
  ].join("\n"),
  importIdMeaning: "the user's id, `userId`",
  inputs: {
    userName: { type: "string", description: "The user's name, unique in the organization.", required: true, defaultsToResourceName: true },
    userEmail: { type: "string", description: "The user's e-mail address; removing it clears it." },
    userPhoneNumber: { type: "string", description: "The user's phone number in E.164 form (`+14155550123`); unset: left as it is (the service cannot clear it)." },
    apiKeys: { type: "array", items: API_KEY_ITEM, description: "The user's API keys; keys are added and removed in place. Unset: not managed here." },
    oauthProviders: { type: "array", items: OAUTH_ITEM, description: "The user's OAuth providers; a change replaces the user. Unset: not managed here.", replaceOnChange: true },
  },
  outputs: {
    userId: { type: "string", description: "The user's id." },
    userName: { type: "string", description: "The user's name as the service holds it." },
    userEmail: { type: "string", description: "The e-mail address, when set.", optional: true },
    userPhoneNumber: { type: "string", description: "The phone number, when set.", optional: true },
    apiKeys: {
      type: "array",
      description: "Every API key of the user, with its id.",
      items: { type: "object", properties: { ...API_KEY_ITEM.properties, apiKeyId: { type: "string", description: "The key's id.", required: true } } },
    },
    oauthProviders: {
      type: "array",
      description: "Every OAuth provider of the user, with its id.",
      items: { type: "object", properties: { ...OAUTH_ITEM.properties, providerId: { type: "string", description: "The provider link's id.", required: true } } },
    },
  },
} as const satisfies ResourceDescription;

/** Normalized inputs of a User. */
export type UserInputs = InputsOf<typeof describe>;
/** Outputs of a User. */
export type UserOutputs = OutputsOf<typeof describe>;
/** An API key declared with a user. */
export type UserApiKey = NonNullable<UserInputs["apiKeys"]>[number];
/** An OAuth provider declared with a user: the OIDC claims that identify the account. */
export type UserOauthProvider = NonNullable<UserInputs["oauthProviders"]>[number];

/** Every user but the one whose API key the session signs with. */
const listUsers: ListObjects = async (session) =>
  (await collections.users(session)).users
    .filter((u) => !u.apiKeys.some((k) => isOwnKey(session, k.credential.publicKey)))
    .map((u) => ({ id: u.userId, label: u.userName }));

export const userSpec = defineResource<UserInputs, UserOutputs, User>({
  kind: "User",
  describe,
  list: listUsers,
  idProperty: "userId",
  equal: {
    userEmail: sameText,
    // The service has no way to clear a phone number: unset means "leave it".
    userPhoneNumber: (a, b) => b === undefined || a === b,
    apiKeys: sameMembers<UserApiKey>(keyIdentity),
    oauthProviders: sameMembers<UserOauthProvider>(providerIdentity),
  },
  normalize: (inputs) => compact({ ...inputs, apiKeys: normalizeKeys(inputs.apiKeys) }),
  validate(inputs): CheckFailure[] {
    const record = inputs as unknown as Record<string, unknown>;
    const failures = schemaFailures(operations.createUsers.parameters, createParameters(inputs), record, (path) => String(path[2] ?? "userName"));
    const names = (inputs.apiKeys ?? []).map((k) => k.apiKeyName);
    failures.push(...rule(record, "apiKeys", () => !Array.isArray(inputs.apiKeys) || new Set(names).size === names.length, "lists an apiKeyName more than once"));
    return failures;
  },
  label: (inputs) => JSON.stringify(inputs.userName ?? ""),
  deleteBeforeReplace: (olds, news) => olds.userName === news.userName,
  fetch: (session, id) => fetchUser(session, id),
  flatten: (live) =>
    compact({
      userId: live.userId,
      userName: live.userName,
      userEmail: live.userEmail === "" ? undefined : live.userEmail,
      userPhoneNumber: live.userPhoneNumber === "" ? undefined : live.userPhoneNumber,
      apiKeys: live.apiKeys.map((k) =>
        compact({
          apiKeyId: k.apiKeyId,
          apiKeyName: k.apiKeyName,
          publicKey: k.credential.publicKey,
          // A user's API key credential is one of the three API key types.
          curveType: (CURVE_BY_CREDENTIAL[k.credential.type] ?? k.credential.type) as ApiKeyCurve,
          expirationSeconds: k.expirationSeconds,
        }),
      ),
      oauthProviders: live.oauthProviders.map((p) => ({
        providerId: p.providerId,
        providerName: p.providerName,
        oidcClaims: { iss: p.issuer, sub: p.subject, aud: p.audience },
      })),
    }),
  // Keys and providers are reported only when the program manages them, so a refresh does
  // not make the program's "not managed" look like a change.
  readInputs: (outs) => compact({ userName: outs.userName, userEmail: outs.userEmail, userPhoneNumber: outs.userPhoneNumber }),
  createActivity: createActivity({
    operation: "createUsers",
    parameters: createParameters,
    createdId: (result) => (result.userIds.length === 1 ? result.userIds[0] : undefined),
  }),
  async findExisting(session, inputs) {
    // User names are unique in an organization.
    const { users } = await collections.users(session);
    const live = users.find((u) => u.userName === inputs.userName);
    return live === undefined ? undefined : { id: live.userId, live };
  },
  async create(session, inputs) {
    const result = await session.client.createUsers(createParameters(inputs));
    const id = result.userIds[0];
    if (id === undefined) throw new Error("create_users returned no userIds");
    const live = asCreated(id, inputs);
    return live === undefined ? { id } : { id, live };
  },
  async update(session, id, live, inputs) {
    const fields = compact({
      userName: inputs.userName !== live.userName ? inputs.userName : undefined,
      userEmail: sameText(inputs.userEmail, live.userEmail) ? undefined : (inputs.userEmail ?? ""),
      userPhoneNumber: inputs.userPhoneNumber !== undefined && inputs.userPhoneNumber !== live.userPhoneNumber ? inputs.userPhoneNumber : undefined,
    });
    if (Object.keys(fields).length > 0) await session.client.updateUser({ userId: id, ...fields });
    if (inputs.apiKeys === undefined) return;
    const liveKeys = userSpec.flatten(live, {}).apiKeys;
    const declared = new Set(inputs.apiKeys.map(keyIdentity));
    const existing = new Set(liveKeys.map(keyIdentity));
    const stale = liveKeys.filter((k) => !declared.has(keyIdentity(k)));
    const ownKey = session.credentialPublicKey.toLowerCase();
    const locksOut = stale.find((k) => k.publicKey.toLowerCase() === ownKey);
    if (locksOut) {
      throw new ProviderError(
        `apiKeys: the key "${locksOut.apiKeyName}" (${locksOut.apiKeyId}) is the API key keyform itself signs with; declare it in apiKeys, or keyform would lock itself out`,
      );
    }
    // Removed first: a changed key keeps its name, which is unique per user.
    if (stale.length > 0) await session.client.deleteApiKeys({ userId: id, apiKeyIds: stale.map((k) => k.apiKeyId) });
    const added = inputs.apiKeys.filter((k) => !existing.has(keyIdentity(k)));
    if (added.length > 0) await session.client.createApiKeys({ userId: id, apiKeys: added.map(toWireKey) });
  },
  async remove(session, id, props) {
    const { organizationData } = await collections.organization(session);
    if (organizationData.rootQuorum?.userIds.includes(id)) {
      await warnEngine(
        `User ${JSON.stringify(props.userName ?? id)} (${id}) is a member of the root quorum of organization ${session.organizationId}: ` +
          `it is left in place and only removed from the stack. Change the root quorum first to delete it.`,
      );
      return;
    }
    await session.client.deleteUsers({ userIds: [id] });
  },
  batch: {
    // At most the organization's 100 users (docs "Resource limits").
    create: {
      max: 100,
      async submit(session, items) {
        const { userIds } = await session.client.createUsers({ users: items.flatMap((inputs) => createParameters(inputs).users) });
        // A user made without keys or providers is exactly what was sent: no read needed. Keys
        // and providers get ids only the service knows: one list reads those users back,
        // instead of one get_user each.
        const needRead = items.some((inputs, i) => userIds[i] !== undefined && asCreated(userIds[i]!, inputs) === undefined);
        const users = needRead ? (await collections.users(session)).users : [];
        return userIds.map((id, i) => {
          const live = (items[i] === undefined ? undefined : asCreated(id, items[i])) ?? users.find((u) => u.userId === id);
          return live === undefined ? { id } : { id, live };
        });
      },
    },
    remove: {
      max: 100,
      async submit(session, items) {
        // No read of the root quorum first: the service refuses a batch holding a member
        // (`userIds[i]: ... root quorum`), which is split, and that member takes the singular
        // path, which leaves it in place with a warning.
        await session.client.deleteUsers({ userIds: items.map((item) => item.id) });
        return items.map(() => undefined);
      },
    },
  },
});

/**
 * The user `create_users` just made from `inputs`, when the answer's id is all it needs: a user
 * declared without API keys and OAuth providers holds none, and the service keeps its name,
 * e-mail and phone number as sent. `undefined` when keys or providers were declared (their ids
 * are only in the service's record). The timestamps are left out: no output shows them.
 */
function asCreated(userId: string, inputs: UserInputs): User | undefined {
  if ((inputs.apiKeys ?? []).length > 0 || (inputs.oauthProviders ?? []).length > 0) return undefined;
  return compact({
    userId,
    userName: inputs.userName,
    userEmail: inputs.userEmail,
    userPhoneNumber: inputs.userPhoneNumber,
    authenticators: [],
    apiKeys: [],
    userTags: [],
    oauthProviders: [],
  }) as unknown as User;
}

/** The runtime handler the User provider code in state delegates to. */
export const userHandler = makeHandler(userSpec);
