/**
 * @module resources/private-key-tag
 * `PrivateKeyTag`: a tag of private keys, with its members. Rename and membership change in place.
 */
import * as pulumi from "@pulumi/pulumi";
import { dynamicResourceOptions, KeyformProvider } from "./provider";

/** Inputs of a {@link PrivateKeyTag}. */
export interface PrivateKeyTagInputs {
  /** The tag's name; defaults to the resource name. */
  privateKeyTagName?: pulumi.Input<string>;
  /** The private keys that carry the tag (a set). Default: none. */
  privateKeyIds?: pulumi.Input<pulumi.Input<string>[]>;
  /** The organization; defaults to the `keyform:organizationId` setting. Changing it replaces the tag. */
  organizationId?: pulumi.Input<string>;
  /** Adopt the existing tag with this id instead of creating one; it is updated to match. */
  importId?: pulumi.Input<string>;
}
/** Alias of {@link PrivateKeyTagInputs}, in the usual Pulumi naming. */
export type PrivateKeyTagArgs = PrivateKeyTagInputs;

/** The provider of {@link PrivateKeyTag}; delegates to keyform's provider runtime. */
export class PrivateKeyTagProvider extends KeyformProvider {
  constructor() {
    super("PrivateKeyTag");
  }
}

const provider = new PrivateKeyTagProvider();

/**
 * A private key tag. In-place updates (`update_private_key_tag`): `privateKeyTagName`,
 * `privateKeyIds`. Replacement: `organizationId`.
 *
 * @example
 * new keyform.PrivateKeyTag("hot-keys", { privateKeyIds: [signer.privateKeyId] });
 */
export class PrivateKeyTag extends pulumi.dynamic.Resource {
  /** The tag's id. */
  declare public readonly privateKeyTagId: pulumi.Output<string>;
  declare public readonly privateKeyTagName: pulumi.Output<string>;
  /** The members as the service holds them, sorted. */
  declare public readonly privateKeyIds: pulumi.Output<string[]>;
  declare public readonly organizationId: pulumi.Output<string>;

  constructor(name: string, args: PrivateKeyTagInputs = {}, opts?: pulumi.CustomResourceOptions) {
    super(
      provider,
      name,
      { ...args, privateKeyTagName: args.privateKeyTagName ?? name, privateKeyIds: args.privateKeyIds ?? [], privateKeyTagId: undefined, organizationId: args.organizationId },
      dynamicResourceOptions("PrivateKeyTag", name, opts),
      "keyform",
      "PrivateKeyTag",
    );
  }
}
