/**
 * @module resources/user
 * `User`: a user of the organization. Name, e-mail and phone number change in place; tags are
 * `UserTag`'s job.
 */
import * as pulumi from "@pulumi/pulumi";
import { dynamicResourceOptions, KeyformProvider } from "./provider";

/** An API key declared with a {@link User}. */
export interface UserApiKeyInput {
  apiKeyName: pulumi.Input<string>;
  /** Hex: compressed SEC1 (P-256, secp256k1) or 32 bytes (Ed25519). */
  publicKey: pulumi.Input<string>;
  /** Default `API_KEY_CURVE_P256`. */
  curveType?: pulumi.Input<"API_KEY_CURVE_P256" | "API_KEY_CURVE_SECP256K1" | "API_KEY_CURVE_ED25519" | string>;
  /** Lifetime in seconds (string or number); unset: no expiry. */
  expirationSeconds?: pulumi.Input<string | number>;
}

/** An OAuth provider declared with a {@link User}: the OIDC claims of the account. */
export interface UserOauthProviderInput {
  providerName: pulumi.Input<string>;
  oidcClaims: pulumi.Input<{ iss: pulumi.Input<string>; sub: pulumi.Input<string>; aud: pulumi.Input<string> }>;
}

/** Inputs of a {@link User}. */
export interface UserInputs {
  /** The user's name (unique in the organization); defaults to the resource name. */
  userName?: pulumi.Input<string>;
  /** E-mail address; removing it clears it. */
  userEmail?: pulumi.Input<string>;
  /** Phone number in E.164 form; unset leaves it as it is (the service cannot clear it). */
  userPhoneNumber?: pulumi.Input<string>;
  /** The user's complete list of API keys (added and removed in place); unset: not managed here. */
  apiKeys?: pulumi.Input<pulumi.Input<UserApiKeyInput>[]>;
  /** The user's complete list of OAuth providers (a change replaces the user); unset: not managed here. */
  oauthProviders?: pulumi.Input<pulumi.Input<UserOauthProviderInput>[]>;
  /** The organization; defaults to the `keyform:organizationId` setting. Changing it replaces the user. */
  organizationId?: pulumi.Input<string>;
  /** Adopt the existing user with this id instead of creating one; it is updated to match. */
  importId?: pulumi.Input<string>;
}
/** Alias of {@link UserInputs}, in the usual Pulumi naming. */
export type UserArgs = UserInputs;

/** The provider of {@link User}; delegates to keyform's provider runtime. */
export class UserProvider extends KeyformProvider {
  constructor() {
    super("User");
  }
}

const provider = new UserProvider();

/**
 * A user. In-place updates (`update_user`, `create_api_keys`, `delete_api_keys`): `userName`,
 * `userEmail`, `userPhoneNumber`, `apiKeys`. Replacement: `oauthProviders`, `organizationId`.
 * Tags are managed by {@link UserTag}. Destroy leaves a root quorum member in place, with a warning.
 *
 * @example
 * const alice = new keyform.User("alice", { userEmail: "alice@example.com" });
 */
export class User extends pulumi.dynamic.Resource {
  /** The user's id. */
  declare public readonly userId: pulumi.Output<string>;
  declare public readonly userName: pulumi.Output<string>;
  declare public readonly userEmail: pulumi.Output<string | undefined>;
  declare public readonly userPhoneNumber: pulumi.Output<string | undefined>;
  /** Every API key of the user, with its id. */
  declare public readonly apiKeys: pulumi.Output<Array<{ apiKeyId: string; apiKeyName: string; publicKey: string; curveType: string; expirationSeconds?: string }>>;
  /** Every OAuth provider of the user, with its id. */
  declare public readonly oauthProviders: pulumi.Output<Array<{ providerId: string; providerName: string; oidcClaims: { iss: string; sub: string; aud: string } }>>;
  declare public readonly organizationId: pulumi.Output<string>;

  constructor(name: string, args: UserInputs = {}, opts?: pulumi.CustomResourceOptions) {
    super(
      provider,
      name,
      { ...args, userName: args.userName ?? name, userId: undefined, userEmail: args.userEmail, userPhoneNumber: args.userPhoneNumber, apiKeys: args.apiKeys, oauthProviders: args.oauthProviders, organizationId: args.organizationId },
      dynamicResourceOptions("User", name, opts),
      "keyform",
      "User",
    );
  }
}
