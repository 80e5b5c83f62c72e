/**
 * @module resources/ip-allowlist
 * `IpAllowlist`: the organization-level IP allowlist, or one API key's own. Everything but
 * `publicKey` changes in place (`set_ip_allowlist` replaces the rules whole).
 */
import * as pulumi from "@pulumi/pulumi";
import { dynamicResourceOptions, KeyformProvider } from "./provider";

/** One rule of an {@link IpAllowlist}. */
export interface IpAllowlistRuleArgs {
  /** CIDR block (`10.0.0.0/8`, `2001:db8::/32`) or a single address. */
  cidr: pulumi.Input<string>;
  label?: pulumi.Input<string>;
}

/** Inputs of an {@link IpAllowlist}. */
export interface IpAllowlistInputs {
  /** The API key (public key, hex) the list belongs to; unset: the organization-level list. A change replaces it. */
  publicKey?: pulumi.Input<string>;
  /** Organization-level list only: whether it is enforced. Default true. */
  enabled?: pulumi.Input<boolean>;
  /** The allowed blocks (order does not matter); at most 10 IPv4 and 10 IPv6. */
  rules: pulumi.Input<pulumi.Input<IpAllowlistRuleArgs>[]>;
  /** `ALLOW` or `DENY` (default) when an address cannot be evaluated. */
  onEvaluationError?: pulumi.Input<"ALLOW" | "DENY" | string>;
  /** The organization; defaults to the `keyform:organizationId` setting. */
  organizationId?: pulumi.Input<string>;
  /** Adopt the existing list: `organization`, or the API key's public key. */
  importId?: pulumi.Input<string>;
}
/** Alias of {@link IpAllowlistInputs}, in the usual Pulumi naming. */
export type IpAllowlistArgs = IpAllowlistInputs;

/** The provider of {@link IpAllowlist}; delegates to keyform's provider runtime. */
export class IpAllowlistProvider extends KeyformProvider {
  constructor() {
    super("IpAllowlist");
  }
}

const provider = new IpAllowlistProvider();

/**
 * An IP allowlist. In-place updates (`set_ip_allowlist`): `rules`, `enabled`,
 * `onEvaluationError`. Replacement: `publicKey`, `organizationId`. Destroy:
 * `remove_ip_allowlist`. Per-key lists apply only while the organization-level list is enabled.
 *
 * @example
 * new keyform.IpAllowlist("ci-key-ips", { publicKey: ciKey.publicKey, rules: [{ cidr: "203.0.113.0/24", label: "CI runners" }] });
 */
export class IpAllowlist extends pulumi.dynamic.Resource {
  /** `organization`, or the API key's public key. */
  declare public readonly allowlistId: pulumi.Output<string>;
  declare public readonly publicKey: pulumi.Output<string | undefined>;
  declare public readonly enabled: pulumi.Output<boolean | undefined>;
  /** The rules as the service holds them, sorted by block. */
  declare public readonly rules: pulumi.Output<Array<{ cidr: string; label?: string }>>;
  declare public readonly onEvaluationError: pulumi.Output<string>;
  declare public readonly organizationId: pulumi.Output<string>;

  constructor(name: string, args: IpAllowlistInputs, opts?: pulumi.CustomResourceOptions) {
    super(
      provider,
      name,
      { ...args, allowlistId: undefined, publicKey: args.publicKey, enabled: args.enabled, onEvaluationError: args.onEvaluationError, organizationId: args.organizationId },
      dynamicResourceOptions("IpAllowlist", name, opts),
      "keyform",
      "IpAllowlist",
    );
  }
}
