/**
 * @module resources/api-key
 * `ApiKey`: an API key of a user. The service cannot change a key, so every change replaces
 * it. Without `publicKey`, keyform generates a key pair and returns the private key as a
 * secret output.
 */
import * as pulumi from "@pulumi/pulumi";
import { dynamicResourceOptions, KeyformProvider } from "./provider";

/** Inputs of an {@link ApiKey}. */
export interface ApiKeyInputs {
  /** The user the key belongs to. */
  userId: pulumi.Input<string>;
  apiKeyName: pulumi.Input<string>;
  /** Public key hex (compressed for P-256 and secp256k1). Omit it to have keyform generate a pair. */
  publicKey?: pulumi.Input<string>;
  /** `API_KEY_CURVE_P256` (default), `API_KEY_CURVE_SECP256K1` or `API_KEY_CURVE_ED25519`. */
  curveType?: pulumi.Input<"API_KEY_CURVE_P256" | "API_KEY_CURVE_SECP256K1" | "API_KEY_CURVE_ED25519" | string>;
  /** Validity in seconds (a decimal string or a number). Default: no expiry. */
  expirationSeconds?: pulumi.Input<string | number>;
  /** The organization; defaults to the `keyform:organizationId` setting. */
  organizationId?: pulumi.Input<string>;
  /** Adopt the existing key with this id; it must match the inputs (declare its `publicKey`). */
  importId?: pulumi.Input<string>;
}
/** Alias of {@link ApiKeyInputs}, in the usual Pulumi naming. */
export type ApiKeyArgs = ApiKeyInputs;

/** The provider of {@link ApiKey}; delegates to keyform's provider runtime. */
export class ApiKeyProvider extends KeyformProvider {
  constructor() {
    super("ApiKey");
  }
}

const provider = new ApiKeyProvider();

/**
 * An API key. Every input change replaces the key (the service has no update); when the
 * declared `publicKey` stays the same, the old key is deleted before the new one is created.
 *
 * @example
 * const ci = new keyform.ApiKey("ci", { userId: botUserId, apiKeyName: "ci" });
 * export const ciPrivateKey = ci.privateKey; // secret
 */
export class ApiKey extends pulumi.dynamic.Resource {
  declare public readonly apiKeyId: pulumi.Output<string>;
  declare public readonly apiKeyName: pulumi.Output<string>;
  declare public readonly publicKey: pulumi.Output<string>;
  /** The generated private key hex (secret); undefined when the program supplied `publicKey` or the key was imported. */
  declare public readonly privateKey: pulumi.Output<string | undefined>;
  declare public readonly userId: pulumi.Output<string>;
  declare public readonly curveType: pulumi.Output<string>;
  declare public readonly organizationId: pulumi.Output<string>;

  constructor(name: string, args: ApiKeyInputs, opts?: pulumi.CustomResourceOptions) {
    super(
      provider,
      name,
      { ...args, apiKeyId: undefined, publicKey: args.publicKey, privateKey: undefined, curveType: args.curveType, organizationId: args.organizationId },
      pulumi.mergeOptions(dynamicResourceOptions("ApiKey", name, opts), { additionalSecretOutputs: ["privateKey"] }),
      "keyform",
      "ApiKey",
    );
  }
}
