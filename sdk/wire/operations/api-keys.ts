/**
 * @module wire/operations/api-keys
 * API keys (spec 2.4, 4.3 get_api_keys, 4.4 create_api_keys; docs/service-facts.md#33-api-keys for delete and
 * get_api_key). There is no update: a changed key is a new key.
 */
import { z } from "zod";
import { defineActivity, defineQuery } from "../define";
import { ApiKeyCurve, CredentialType } from "../enums";
import { Id, opt, optId, Timestamp, Uint64String } from "../shared";

/** Spec 2.4: the credential of an API key (or authenticator). */
export const Credential = z.object({
  publicKey: z.string(),
  type: CredentialType,
  /** Only meaningful when `type` is `CREDENTIAL_TYPE_LOGIN`. */
  sessionProfileId: opt(z.string()),
});
export type Credential = z.infer<typeof Credential>;

/** Spec 2.4 / docs/service-facts.md#shared-object-shapes `v1ApiKey`: an API key record. */
export const ApiKey = z.object({
  credential: Credential,
  apiKeyId: z.string(),
  apiKeyName: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  /** Validity window in seconds; the key expires at `createdAt.seconds + expirationSeconds`. */
  expirationSeconds: opt(z.string()),
});
export type ApiKey = z.infer<typeof ApiKey>;

/** Spec 4.4 create_api_keys / 4.2 signup_v2: one API key to register (`v1ApiKeyParamsV2`). */
export const ApiKeyParams = z.object({
  apiKeyName: Id,
  publicKey: Id,
  curveType: ApiKeyCurve,
  expirationSeconds: opt(Uint64String),
});
export type ApiKeyParams = z.infer<typeof ApiKeyParams>;

export const createApiKeys = defineActivity("create_api_keys", {
  type: "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
  intentKey: "createApiKeysIntentV2",
  // The result key carries no version suffix, unlike the intent (docs/service-facts.md#33-api-keys).
  resultKey: "createApiKeysResult",
  parameters: z.object({
    apiKeys: z.array(ApiKeyParams).min(1, "must hold at least one API key"),
    userId: Id,
  }),
  result: z.object({ apiKeyIds: z.array(z.string()) }),
});

export const deleteApiKeys = defineActivity("delete_api_keys", {
  type: "ACTIVITY_TYPE_DELETE_API_KEYS",
  intentKey: "deleteApiKeysIntent",
  resultKey: "deleteApiKeysResult",
  parameters: z.object({
    userId: Id,
    apiKeyIds: z.array(Id).min(1, "must name at least one API key"),
  }),
  result: z.object({ apiKeyIds: z.array(z.string()) }),
});

export const getApiKeys = defineQuery("get_api_keys", {
  request: z.object({ organizationId: Id, userId: optId() }),
  response: z.object({ apiKeys: z.array(ApiKey) }),
});

export const getApiKey = defineQuery("get_api_key", {
  request: z.object({ organizationId: Id, apiKeyId: Id }),
  response: z.object({ apiKey: ApiKey }),
});

export const apiKeyOperations = { createApiKeys, deleteApiKeys, getApiKeys, getApiKey };
