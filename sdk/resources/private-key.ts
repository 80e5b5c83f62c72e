/**
 * @module resources/private-key
 * `PrivateKey`: a standalone private key. Every change replaces it; never deleted unless
 * `deleteWithoutExport: true`. Tags are `PrivateKeyTag`'s job.
 */
import * as pulumi from "@pulumi/pulumi";
import { dynamicResourceOptions, KeyformProvider } from "./provider";

/** Inputs of a {@link PrivateKey}. */
export interface PrivateKeyInputs {
  /** The key's name (unique in the organization); defaults to the resource name. */
  privateKeyName?: pulumi.Input<string>;
  /** `CURVE_SECP256K1`, `CURVE_ED25519` or `CURVE_P256`. */
  curve: pulumi.Input<string>;
  /** Address formats to derive, e.g. `ADDRESS_FORMAT_ETHEREUM`. Default: none. */
  addressFormats?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * Delete the key on destroy or replacement even though it was never exported. Default
   * false: the key is retained (`retainOnDelete`). A plain value, since it decides the
   * resource options.
   */
  deleteWithoutExport?: boolean;
  /** The organization; defaults to the `keyform:organizationId` setting. Changing it replaces the key. */
  organizationId?: pulumi.Input<string>;
  /** Adopt the existing private key with this id instead of creating one. */
  importId?: pulumi.Input<string>;
}
/** Alias of {@link PrivateKeyInputs}, in the usual Pulumi naming. */
export type PrivateKeyArgs = PrivateKeyInputs;

/** The provider of {@link PrivateKey}; delegates to keyform's provider runtime. */
export class PrivateKeyProvider extends KeyformProvider {
  constructor() {
    super("PrivateKey");
  }
}

const provider = new PrivateKeyProvider();

/**
 * A private key. In-place updates: `deleteWithoutExport` only. Replacement: `privateKeyName`,
 * `curve`, `addressFormats`, `organizationId`. Retained on destroy unless `deleteWithoutExport: true`.
 *
 * @example
 * new keyform.PrivateKey("signer", { curve: "CURVE_SECP256K1", addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] });
 */
export class PrivateKey extends pulumi.dynamic.Resource {
  /** The key's id. */
  declare public readonly privateKeyId: pulumi.Output<string>;
  declare public readonly privateKeyName: pulumi.Output<string>;
  declare public readonly curve: pulumi.Output<string>;
  declare public readonly addressFormats: pulumi.Output<string[]>;
  /** The public key, hex. */
  declare public readonly publicKey: pulumi.Output<string>;
  declare public readonly addresses: pulumi.Output<Array<{ format: string; address: string }>>;
  declare public readonly exported: pulumi.Output<boolean>;
  declare public readonly deleteWithoutExport: pulumi.Output<boolean>;
  declare public readonly organizationId: pulumi.Output<string>;

  constructor(name: string, args: PrivateKeyInputs, opts?: pulumi.CustomResourceOptions) {
    super(
      provider,
      name,
      { ...args, privateKeyName: args.privateKeyName ?? name, addressFormats: args.addressFormats ?? [], privateKeyId: undefined, publicKey: undefined, addresses: undefined, exported: undefined, organizationId: args.organizationId },
      // Key material is never deleted by accident.
      dynamicResourceOptions("PrivateKey", name, { retainOnDelete: args.deleteWithoutExport !== true, ...opts }),
      "keyform",
      "PrivateKey",
    );
  }
}
