/**
 * @module wire/operations/users
 * Users (spec 4.4 update_user / update_user_name; docs/service-facts.md#37-users for list, get, create and
 * delete). The user record is `v1User` of the official type definitions.
 */
import { z } from "zod";
import { defineActivity, defineQuery } from "../define";
import { AuthenticatorTransport } from "../enums";
import { E164PhoneNumber, Id, opt, Timestamp } from "../shared";
import { ApiKey, ApiKeyParams, Credential } from "./api-keys";

/** A WebAuthn authenticator registered to a user (`v1Authenticator`). */
export const Authenticator = z.object({
  transports: z.array(AuthenticatorTransport),
  attestationType: z.string(),
  aaguid: z.string(),
  credentialId: z.string(),
  model: z.string(),
  credential: Credential,
  authenticatorId: z.string(),
  authenticatorName: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Authenticator = z.infer<typeof Authenticator>;

/** An OIDC provider linked to a user (`v1OauthProvider`). */
export const OauthProvider = z.object({
  providerId: z.string(),
  providerName: z.string(),
  issuer: z.string(),
  audience: z.string(),
  subject: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type OauthProvider = z.infer<typeof OauthProvider>;

/** An MFA policy of a user (`v1MfaPolicy`); kept loose, the interface never writes it. */
export const MfaPolicy = z.object({
  mfaPolicyId: z.string(),
  mfaPolicyName: z.string(),
  condition: opt(z.string()),
  requiredAuthenticationMethods: opt(z.array(z.unknown())),
  order: opt(z.number()),
  notes: opt(z.string()),
  createdAt: opt(Timestamp),
  updatedAt: opt(Timestamp),
});
export type MfaPolicy = z.infer<typeof MfaPolicy>;

/** docs/service-facts.md#shared-object-shapes `v1User`: `userTags` holds tag IDs, the only record of tag membership. */
export const User = z.object({
  userId: z.string(),
  userName: z.string(),
  userEmail: opt(z.string()),
  userPhoneNumber: opt(z.string()),
  authenticators: z.array(Authenticator),
  apiKeys: z.array(ApiKey),
  userTags: z.array(z.string()),
  oauthProviders: z.array(OauthProvider),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  // Required in the generated types but recent; tolerated when absent.
  mfaPolicies: opt(z.array(MfaPolicy)),
});
export type User = z.infer<typeof User>;

/** Spec 4.2: the attestation of a new WebAuthn authenticator (`v1Attestation`). */
export const Attestation = z.object({
  credentialId: Id,
  clientDataJson: Id,
  attestationObject: Id,
  transports: z.array(AuthenticatorTransport),
});
export type Attestation = z.infer<typeof Attestation>;

/** Spec 4.2: one authenticator to register (`v1AuthenticatorParamsV2`). */
export const AuthenticatorParams = z.object({
  authenticatorName: Id,
  challenge: Id,
  attestation: Attestation,
});
export type AuthenticatorParams = z.infer<typeof AuthenticatorParams>;

/** Spec 4.2: OIDC claims of an OAuth provider. */
export const OidcClaims = z.object({ iss: Id, sub: Id, aud: Id });
export type OidcClaims = z.infer<typeof OidcClaims>;

/** Spec 4.2: one OAuth provider to link (`v1OauthProviderParamsV2`). */
export const OauthProviderParams = z.object({
  providerName: Id,
  /** A base64-encoded OIDC token. */
  oidcToken: opt(z.string()),
  oidcClaims: opt(OidcClaims),
});
export type OauthProviderParams = z.infer<typeof OauthProviderParams>;

/** docs/service-facts.md#37-users: one user to create (`v1UserParamsV4`). */
export const UserParams = z.object({
  userName: Id,
  userEmail: opt(z.string()),
  userPhoneNumber: opt(E164PhoneNumber),
  apiKeys: z.array(ApiKeyParams),
  authenticators: z.array(AuthenticatorParams),
  oauthProviders: z.array(OauthProviderParams),
  userTags: z.array(Id),
});
export type UserParams = z.infer<typeof UserParams>;

export const listUsers = defineQuery("list_users", {
  request: z.object({ organizationId: Id }),
  response: z.object({ users: z.array(User) }),
});

export const getUser = defineQuery("get_user", {
  request: z.object({ organizationId: Id, userId: Id }),
  response: z.object({ user: User }),
});

export const createUsers = defineActivity("create_users", {
  type: "ACTIVITY_TYPE_CREATE_USERS_V4",
  intentKey: "createUsersIntentV4",
  // The result key carries no version suffix, unlike the intent.
  resultKey: "createUsersResult",
  parameters: z.object({ users: z.array(UserParams).min(1, "must hold at least one user") }),
  result: z.object({ userIds: z.array(z.string()) }),
});

export const deleteUsers = defineActivity("delete_users", {
  type: "ACTIVITY_TYPE_DELETE_USERS",
  intentKey: "deleteUsersIntent",
  resultKey: "deleteUsersResult",
  parameters: z.object({ userIds: z.array(Id).min(1, "must name at least one user") }),
  result: z.object({ userIds: z.array(z.string()) }),
});

export const updateUser = defineActivity("update_user", {
  type: "ACTIVITY_TYPE_UPDATE_USER",
  intentKey: "updateUserIntent",
  resultKey: "updateUserResult",
  parameters: z.object({
    userId: Id,
    userName: opt(Id),
    userEmail: opt(z.string()),
    /** The full new tag list; it replaces the user's tags. */
    userTagIds: opt(z.array(Id)),
    userPhoneNumber: opt(E164PhoneNumber),
  }),
  result: z.object({ userId: z.string() }),
});

export const updateUserName = defineActivity("update_user_name", {
  type: "ACTIVITY_TYPE_UPDATE_USER_NAME",
  intentKey: "updateUserNameIntent",
  resultKey: "updateUserNameResult",
  parameters: z.object({ userId: Id, userName: Id }),
  result: z.object({ userId: z.string() }),
});

export const userOperations = { listUsers, getUser, createUsers, deleteUsers, updateUser, updateUserName };
