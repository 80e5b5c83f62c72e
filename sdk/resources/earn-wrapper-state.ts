/**
 * @module resources/earn-wrapper-state
 * `EarnWrapperState`: whether a deployed Earn wrapper accepts deposits.
 */
import * as pulumi from "@pulumi/pulumi";
import { dynamicResourceOptions, KeyformProvider } from "./provider";

/** Inputs of an {@link EarnWrapperState}. */
export interface EarnWrapperStateArgs {
  /** Address of a wrapper the organization has deployed. Changing it replaces the resource. */
  wrapperAddress: pulumi.Input<string>;
  /** True blocks new deposits; withdrawals are always allowed. */
  depositsDisabled: pulumi.Input<boolean>;
  /** The organization; defaults to the `keyform:organizationId` setting. */
  organizationId?: pulumi.Input<string>;
}
/** Inputs of an {@link EarnWrapperState} (same as {@link EarnWrapperStateArgs}). */
export type EarnWrapperStateInputs = EarnWrapperStateArgs;

/** The provider of {@link EarnWrapperState}; delegates to keyform's provider runtime. */
export class EarnWrapperStateProvider extends KeyformProvider {
  constructor() {
    super("EarnWrapperState");
  }
}

const provider = new EarnWrapperStateProvider();

/**
 * The deposit state of an existing Earn wrapper (`earn_set_wrapper_state`). Its id is the
 * wrapper address. Creating it takes over the wrapper's flag; `depositsDisabled` changes in
 * place. **Deleting the resource re-enables deposits** (the wrapper itself stays deployed).
 *
 * @example
 * new keyform.EarnWrapperState("pause-usdc", { wrapperAddress: "0x…", depositsDisabled: true });
 */
export class EarnWrapperState extends pulumi.dynamic.Resource {
  declare public readonly wrapperAddress: pulumi.Output<string>;
  declare public readonly depositsDisabled: pulumi.Output<boolean>;
  declare public readonly organizationId: pulumi.Output<string>;

  constructor(name: string, args: EarnWrapperStateArgs, opts?: pulumi.CustomResourceOptions) {
    super(provider, name, { ...args, organizationId: args.organizationId }, dynamicResourceOptions("EarnWrapperState", name, opts), "keyform", "EarnWrapperState");
  }
}
