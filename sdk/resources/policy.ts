/**
 * @module resources/policy
 * `Policy`: an allow or deny rule of the organization's policy engine. Every property changes
 * in place (`update_policy`).
 */
import * as pulumi from "@pulumi/pulumi";
import { warnAboutPolicyExpressions } from "./policy-warnings";
import { dynamicResourceOptions, KeyformProvider } from "./provider";

/** Inputs of a {@link Policy}. */
export interface PolicyInputs {
  policyName: pulumi.Input<string>;
  /** `EFFECT_ALLOW` or `EFFECT_DENY`. */
  effect: pulumi.Input<"EFFECT_ALLOW" | "EFFECT_DENY" | string>;
  /** Expression on the activity that makes the policy apply. */
  condition?: pulumi.Input<string>;
  /** Expression on the approvals that satisfies the policy. */
  consensus?: pulumi.Input<string>;
  /** Free text; default "". */
  notes?: pulumi.Input<string>;
  /** The policy's `time` field (create_policy V3, update_policy V2), passed as given; unset: none. */
  time?: pulumi.Input<string>;
  /** The organization; defaults to the `keyform:organizationId` setting. Changing it replaces the policy. */
  organizationId?: pulumi.Input<string>;
  /** Adopt the existing policy with this id instead of creating one; it is updated to match. */
  importId?: pulumi.Input<string>;
}
/** Alias of {@link PolicyInputs}, in the usual Pulumi naming. */
export type PolicyArgs = PolicyInputs;

/** The provider of {@link Policy}; delegates to keyform's provider runtime. */
export class PolicyProvider extends KeyformProvider {
  constructor() {
    super("Policy");
  }
}

const provider = new PolicyProvider();

/**
 * A policy. In-place updates (`update_policy`): `policyName`, `effect`, `condition`,
 * `consensus`, `notes`, `time`. Replacement: `organizationId`.
 *
 * @example
 * new keyform.Policy("allow-ops", {
 *   policyName: "ops may sign",
 *   effect: "EFFECT_ALLOW",
 *   consensus: "approvers.any(user, user.tags.contains('<tag id>'))",
 * });
 */
export class Policy extends pulumi.dynamic.Resource {
  declare public readonly policyId: pulumi.Output<string>;
  declare public readonly policyName: pulumi.Output<string>;
  declare public readonly effect: pulumi.Output<string>;
  /** The condition as the service holds it ("" when none). */
  declare public readonly condition: pulumi.Output<string>;
  /** The consensus expression as the service holds it ("" when none). */
  declare public readonly consensus: pulumi.Output<string>;
  declare public readonly notes: pulumi.Output<string>;
  /** The `time` field as the service holds it ("" when none). */
  declare public readonly time: pulumi.Output<string>;
  declare public readonly organizationId: pulumi.Output<string>;

  constructor(name: string, args: PolicyInputs, opts?: pulumi.CustomResourceOptions) {
    super(
      provider,
      name,
      { ...args, policyId: undefined, condition: args.condition, consensus: args.consensus, notes: args.notes, time: args.time, organizationId: args.organizationId },
      dynamicResourceOptions("Policy", name, opts),
      "keyform",
      "Policy",
    );
    warnAboutPolicyExpressions(`Policy ${JSON.stringify(name)}`, {
      effect: args.effect,
      condition: args.condition,
      consensus: args.consensus,
      time: args.time,
    });
  }
}
