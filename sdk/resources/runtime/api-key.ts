/**
 * @module resources/runtime/api-key
 * ApiKey: the service has no update for API keys (docs/service-facts.md#33-api-keys), so every change is a new
 * key. Without a `publicKey` input, a key pair of `curveType` is generated at create; the
 * private key is only ever an output (marked secret by the resource class).
 */
import { ConflictError } from "../../client/errors";
import { generateApiKeyPair } from "../../protocol/keys";
import type { Activity } from "../../wire/activity";
import type { ActivityDef } from "../../wire/define";
import { ApiKeyCurve } from "../../wire/enums";
import type { ResultOf } from "../../wire/registry";
import { operations } from "../../wire/registry";
import { rule, schemaFailures, type CheckFailure } from "./check";
import type { Session } from "./client";
import { createActivity, LOOKUP_WINDOW_MS } from "./earlier-activity";
import { isClaimed, recentCreates } from "./earlier-work";
import { isOwnKey, type ListObjects } from "./listing";
import type { InputsOf, OutputsOf, ResourceDescription } from "./describe";
import { defineResource } from "./define";
import { makeHandler } from "./framework";
import { collections } from "./shared-reads";
import { compact, containsUnknown, isUnknown } from "./values";

interface LiveApiKey {
  apiKeyId: string;
  apiKeyName: string;
  publicKey: string;
  curveType: ApiKeyCurve;
  expirationSeconds?: string | undefined;
  userId: string;
}

/** The API key curve of each credential type (a key's `credential.type`). */
export const CURVE_BY_CREDENTIAL: Readonly<Record<string, string>> = {
  CREDENTIAL_TYPE_API_KEY_P256: "API_KEY_CURVE_P256",
  CREDENTIAL_TYPE_API_KEY_SECP256K1: "API_KEY_CURVE_SECP256K1",
  CREDENTIAL_TYPE_API_KEY_ED25519: "API_KEY_CURVE_ED25519",
};

/** Public key encodings the service accepts, per curve (compressed SEC1, or raw ed25519). */
const PUBLIC_KEY_FORM: Readonly<Record<string, RegExp>> = {
  API_KEY_CURVE_P256: /^0[23][0-9a-fA-F]{64}$/,
  API_KEY_CURVE_SECP256K1: /^0[23][0-9a-fA-F]{64}$/,
  API_KEY_CURVE_ED25519: /^[0-9a-fA-F]{64}$/,
};

/**
 * The user holding API key `id`, found through the users' key lists: for an import, which
 * knows only the key's id.
 */
async function ownerOfApiKey(session: Session, id: string): Promise<string | undefined> {
  const { users } = await session.client.listUsers({});
  return users.find((u) => u.apiKeys.some((k) => k.apiKeyId === id))?.userId;
}

async function fetchApiKey(session: Session, id: string, knownUserId: string | undefined): Promise<LiveApiKey | undefined> {
  const userId = knownUserId ?? (await ownerOfApiKey(session, id));
  if (userId === undefined) return undefined;
  // The users list carries every user's keys: one shared read serves every ApiKey.
  const { users } = await collections.users(session);
  // A user that is gone took its keys with it.
  const key = users.find((u) => u.userId === userId)?.apiKeys.find((k) => k.apiKeyId === id);
  return key === undefined ? undefined : liveApiKey(key, userId);
}

/** An API key as the service describes it. */
type ApiKeyRecord = ResultOf<"getApiKey">["apiKey"];

/** The live form of an API key record of user `userId`. */
function liveApiKey(key: ApiKeyRecord, userId: string): LiveApiKey {
  return {
    apiKeyId: key.apiKeyId,
    apiKeyName: key.apiKeyName,
    publicKey: key.credential.publicKey,
    // An API key's credential is one of the three API key types, so the curve is one of ApiKeyCurve's.
    curveType: (CURVE_BY_CREDENTIAL[key.credential.type] ?? key.credential.type) as ApiKeyCurve,
    expirationSeconds: key.expirationSeconds,
    userId,
  };
}

const sameHex = (a: unknown, b: unknown) =>
  typeof a === "string" && typeof b === "string" ? a.toLowerCase() === b.toLowerCase() : a === b;

/** The create_api_keys parameters of `inputs` with the public key `publicKey`. */
function createParameters(inputs: ApiKeyInputs, publicKey: string) {
  const curveType = inputs.curveType as ApiKeyCurve;
  return {
    userId: inputs.userId,
    apiKeys: [compact({ apiKeyName: inputs.apiKeyName, publicKey, curveType, expirationSeconds: inputs.expirationSeconds })],
  };
}

const createApiKeyActivity = createActivity({
  operation: "createApiKeys",
  // A key pair generated at create is new each time, and its private key exists only in the
  // run that generated it: such a create is never matched with an earlier one (see
  // `orphanedGeneratedKey` for what happens to the key such a run left behind).
  parameters: (inputs: ApiKeyInputs) => (inputs.publicKey === undefined ? undefined : createParameters(inputs, inputs.publicKey)),
  createdId: (result) => (result.apiKeyIds.length === 1 ? result.apiKeyIds[0] : undefined),
  // A batched create made this key as one item of several (batch.ts).
  items: { key: "apiKeys", createdIdAt: (result, index) => result.apiKeyIds[index] },
});

/**
 * Whether `activity` is the create of API key `key` by this run's own credential, with the
 * declared name, curve and expiration: what a keyform create of a generated pair submits.
 */
function isOwnGeneratedCreate(activity: Activity, key: LiveApiKey, inputs: ApiKeyInputs, credentialPublicKey: string, nowMs: number): boolean {
  const def = operations.createApiKeys as ActivityDef;
  if (activity.type !== def.type || activity.status !== "ACTIVITY_STATUS_COMPLETED") return false;
  if (nowMs - Number(activity.createdAt) > LOOKUP_WINDOW_MS) return false;
  const intent = def.parameters.safeParse(activity.intent[def.intentKey]);
  const result = def.result.safeParse(activity.result[def.resultKey]);
  if (!intent.success || !result.success) return false;
  const { userId, apiKeys } = intent.data as ReturnType<typeof createParameters>;
  const { apiKeyIds } = result.data as { apiKeyIds: string[] };
  const [sent] = apiKeys;
  return (
    apiKeys.length === 1 &&
    apiKeyIds.length === 1 &&
    apiKeyIds[0] === key.apiKeyId &&
    userId === inputs.userId &&
    sent?.apiKeyName === inputs.apiKeyName &&
    sent.curveType === inputs.curveType &&
    (sent.expirationSeconds ?? undefined) === (inputs.expirationSeconds ?? undefined) &&
    sameHex(sent.publicKey, key.publicKey) &&
    // Votes name the credential that submitted; the service records them on requests that went
    // through consensus, so an activity without votes cannot be told apart by its submitter.
    (activity.votes.length === 0 ||
      activity.votes.some((vote) => vote.selection === "VOTE_SELECTION_APPROVED" && sameHex(vote.publicKey, credentialPublicKey)))
  );
}

/**
 * After a 409 on a generated key's name: the key holding the name when an earlier run of
 * keyform registered it and never recorded it (killed, or its answer lost), `undefined`
 * otherwise. Such a key is an orphan nobody can use: its private key existed only in the
 * memory of the run that generated it. It counts as that run's only when a completed
 * create_api_keys activity of the last 7 days registered exactly it, for this user, name,
 * curve and expiration (and, when the activity records votes, was submitted by the credential
 * this run uses), and no other resource of this run holds it. Replacing it is what the
 * declaration asks for anyway: a key this stack did not generate, adopted by `importId`, is
 * replaced by a generated one too. A key that differs in curve or expiration is left alone.
 */
async function orphanedGeneratedKey(session: Session, inputs: ApiKeyInputs): Promise<LiveApiKey | undefined> {
  const holder = (await collections.users(session)).users
    .find((u) => u.userId === inputs.userId)
    ?.apiKeys.find((k) => k.apiKeyName === inputs.apiKeyName);
  if (holder === undefined || isClaimed(session, apiKeySpec.kind, holder.apiKeyId)) return undefined;
  const key = await fetchApiKey(session, holder.apiKeyId, inputs.userId);
  if (key === undefined) return undefined;
  const nowMs = Date.now();
  const history = await recentCreates(session, createApiKeyActivity);
  return history.some((activity) => isOwnGeneratedCreate(activity, key, inputs, session.credentialPublicKey, nowMs)) ? key : undefined;
}

/** Every API key of every user, but the one the session signs with. */
const listApiKeys: ListObjects = async (session) =>
  (await collections.users(session)).users.flatMap((u) =>
    u.apiKeys
      .filter((k) => !isOwnKey(session, k.credential.publicKey))
      .map((k) => ({ id: k.apiKeyId, hint: { userId: u.userId }, label: `${u.userName}-${k.apiKeyName}` })),
  );

const describe = {
  description:
    "An API key of a user. Every input change replaces the key (the service has no update). Without `publicKey`, keyform generates a key pair and returns the private key as a secret output.",
  example: [
    { kind: "User", name: "ci-bot", inputs: { userName: "ci-bot" } },
    { name: "ci", inputs: { userId: "${ci-bot.userId}", apiKeyName: "ci", curveType: "API_KEY_CURVE_P256" } },
  ],
  guide: [
    "Without `publicKey`, keyform generates a key pair of the curve and returns the private key as",
    "`privateKey`, a **secret** output: it is encrypted in state and shown only with `pulumi stack",
    "output --show-secrets`. With `publicKey`, `privateKey` is undefined. The service cannot change",
    "an API key, so **every change replaces it**. When the new key keeps the name or the public key",
    "of the old one, the old key is deleted first (the service allows a name once per user and a",
    "public key once per organization).",
  ].join("\n"),
  importIdMeaning: "the key's id, `apiKeyId`; declare its `publicKey`",
  inputs: {
    userId: { type: "string", description: "The user the key belongs to.", required: true, replaceOnChange: true, references: { kind: "User" } },
    apiKeyName: { type: "string", description: "The key's name.", required: true, replaceOnChange: true },
    publicKey: {
      type: "string",
      description: "Public key hex (compressed for P-256 and secp256k1). Omit it to have keyform generate a pair.",
      replaceOnChange: true,
    },
    curveType: {
      type: "string",
      enum: ApiKeyCurve.options,
      description: "`API_KEY_CURVE_P256` (default), `API_KEY_CURVE_SECP256K1` or `API_KEY_CURVE_ED25519`.",
      replaceOnChange: true,
      default: "API_KEY_CURVE_P256",
    },
    expirationSeconds: { type: "string", acceptsNumber: true, description: "Validity in seconds, as a decimal string (or a number). Default: no expiry.", replaceOnChange: true },
  },
  outputs: {
    apiKeyId: { type: "string", description: "The key's id." },
    apiKeyName: { type: "string", description: "The key's name." },
    publicKey: { type: "string", description: "The public key hex." },
    privateKey: {
      type: "string",
      description: "The generated private key hex; only when keyform generated the pair.",
      secret: true,
      optional: true,
    },
    userId: { type: "string", description: "The user the key belongs to." },
    curveType: { type: "string", enum: ApiKeyCurve.options, description: "The key's curve." },
    expirationSeconds: { type: "string", description: "Validity in seconds, when the key expires.", optional: true },
  },
} as const satisfies ResourceDescription;

/** Normalized inputs of an ApiKey. */
export type ApiKeyInputs = InputsOf<typeof describe>;
/** Outputs of an ApiKey. */
export type ApiKeyOutputs = OutputsOf<typeof describe>;

export const apiKeySpec = defineResource<ApiKeyInputs, ApiKeyOutputs, LiveApiKey>({
  kind: "ApiKey",
  list: listApiKeys,
  describe,
  idProperty: "apiKeyId",
  equal: {
    // An expiration recorded as null (older state) is no expiration.
    expirationSeconds: (a, b) => (a ?? undefined) === (b ?? undefined),
    publicKey: (oldValue, newValue, olds) =>
      // No declared key: keep the one keyform generated (the private key is in the outputs);
      // a key that came from the program or an import has to be replaced by a generated one.
      newValue === undefined ? olds.privateKey !== undefined : sameHex(oldValue, newValue),
  },
  validate(inputs) {
    const record = inputs as unknown as Record<string, unknown>;
    const payload = {
      userId: inputs.userId,
      // A placeholder stands for the key keyform will generate.
      apiKeys: [compact({ apiKeyName: inputs.apiKeyName, publicKey: inputs.publicKey ?? "generated", curveType: inputs.curveType, expirationSeconds: inputs.expirationSeconds })],
    };
    const failures: CheckFailure[] = schemaFailures(operations.createApiKeys.parameters, payload, record, (path) =>
      path[0] === "apiKeys" ? String(path[2] ?? "apiKeys") : String(path[0] ?? ""),
    );
    failures.push(
      ...rule(record, "expirationSeconds", (v) => typeof v !== "string" || !/^\d+$/.test(v) || Number(v) > 0, "must be at least 1 second (the service refuses 0)"),
    );
    const form = PUBLIC_KEY_FORM[inputs.curveType];
    if (form && !isUnknown(inputs.curveType)) {
      failures.push(
        ...rule(record, "publicKey", (v) => v === undefined || (typeof v === "string" && form.test(v)),
          `is not a ${inputs.curveType} public key (expected ${inputs.curveType === "API_KEY_CURVE_ED25519" ? "64 hex digits" : "66 hex digits of a compressed point, starting 02 or 03"})`),
      );
    }
    return failures;
  },
  label: (inputs) => JSON.stringify(inputs.apiKeyName ?? ""),
  deleteBeforeReplace: (olds, news) =>
    // A public key is registered once per organization, and a name once per user: when the
    // new key keeps either, the old one has to go first.
    (news.publicKey !== undefined && !containsUnknown(news.publicKey) && sameHex(olds.publicKey, news.publicKey)) ||
    (olds.userId === news.userId && olds.apiKeyName === news.apiKeyName),
  fetch: (session, id, hint) => fetchApiKey(session, id, hint.userId),
  flatten: (live, carry) => ({
    // Keep a generated private key only while the key on the service is still that pair's.
    privateKey: carry.privateKey !== undefined && sameHex(carry.publicKey ?? live.publicKey, live.publicKey) ? carry.privateKey : undefined,
  }),
  readInputs: (outs) =>
    compact({
      userId: outs.userId,
      apiKeyName: outs.apiKeyName,
      curveType: outs.curveType,
      expirationSeconds: outs.expirationSeconds,
      publicKey: outs.privateKey === undefined ? outs.publicKey : undefined,
    }),
  createActivity: createApiKeyActivity,
  async findExisting(session, inputs) {
    // A name is unique per user, a public key per organization: the key holding either.
    const apiKeys = (await collections.users(session)).users.find((u) => u.userId === inputs.userId)?.apiKeys ?? [];
    const key =
      apiKeys.find((k) => k.apiKeyName === inputs.apiKeyName) ??
      (inputs.publicKey === undefined ? undefined : apiKeys.find((k) => sameHex(k.credential.publicKey, inputs.publicKey)));
    const live = key === undefined ? undefined : await fetchApiKey(session, key.apiKeyId, inputs.userId);
    return live === undefined ? undefined : { id: live.apiKeyId, live };
  },
  async create(session, inputs) {
    const pair = inputs.publicKey === undefined ? generateApiKeyPair(inputs.curveType as ApiKeyCurve) : undefined;
    const publicKey = pair?.publicKey ?? (inputs.publicKey as string);
    const parameters = createParameters(inputs, publicKey);
    const submit = () => session.client.createApiKeys(parameters);
    let result: Awaited<ReturnType<typeof submit>>;
    try {
      result = await submit();
    } catch (error) {
      // An earlier run generated a pair under this name and died before recording it: that
      // key can never be used, so it is replaced by this run's pair instead of blocking it.
      const orphan = pair !== undefined && error instanceof ConflictError ? await orphanedGeneratedKey(session, inputs) : undefined;
      if (orphan === undefined) throw error;
      await session.client.deleteApiKeys({ userId: orphan.userId, apiKeyIds: [orphan.apiKeyId] });
      result = await submit();
    }
    const id = result.apiKeyIds[0];
    if (id === undefined) throw new Error("create_api_keys returned no apiKeyIds");
    // The service keeps a key's name, public key, curve and expiry as sent: the completed
    // activity made exactly this key, so no read of it is needed.
    const live: LiveApiKey = { apiKeyId: id, userId: parameters.userId, ...parameters.apiKeys[0]! };
    return { id, carry: pair ? { privateKey: pair.privateKey, publicKey: pair.publicKey } : {}, live };
  },
  async remove(session, id, props) {
    if (props.userId === undefined) throw new Error(`cannot delete API key ${id}: its userId is not in state`);
    await session.client.deleteApiKeys({ userId: props.userId, apiKeyIds: [id] });
  },
  batch: {
    // The keys of one user per activity, at most the 10 long-lived keys a user may hold
    // (docs "Resource limits").
    create: {
      max: 10,
      group: (inputs) => String(inputs.userId),
      // A pair generated at create is never journaled (its private key is a secret): such a key
      // is not taken from a batch sent again, but made anew (its orphan replaced, see create).
      replayable: (inputs) => inputs.publicKey !== undefined,
      async submit(session, items) {
        const pairs = items.map((inputs) => (inputs.publicKey === undefined ? generateApiKeyPair(inputs.curveType as ApiKeyCurve) : undefined));
        const keys = items.map((inputs, i) => createParameters(inputs, pairs[i]?.publicKey ?? (inputs.publicKey as string)).apiKeys[0]!);
        const userId = items[0]!.userId;
        const { apiKeyIds } = await session.client.createApiKeys({ userId, apiKeys: keys });
        return apiKeyIds.map((id, i) => {
          const pair = pairs[i];
          const live: LiveApiKey = { apiKeyId: id, userId, ...keys[i]! };
          return { id, carry: pair ? { privateKey: pair.privateKey, publicKey: pair.publicKey } : {}, live };
        });
      },
    },
    remove: {
      max: 10,
      group: (item) => String(item.props.userId),
      async submit(session, items) {
        const userId = items[0]!.props.userId;
        if (userId === undefined) throw new Error(`cannot delete API key ${items[0]!.id}: its userId is not in state`);
        await session.client.deleteApiKeys({ userId, apiKeyIds: items.map((item) => item.id) });
        return items.map(() => undefined);
      },
    },
  },
});

/** The runtime handler the ApiKey provider code in state delegates to. */
export const apiKeyHandler = makeHandler(apiKeySpec);
