/**
 * @module resources/root-quorum
 * `RootQuorum`: the organization's root quorum, a singleton. Threshold and members change in
 * place; destroy leaves the quorum as it is.
 */
import * as pulumi from "@pulumi/pulumi";
import { dynamicResourceOptions, KeyformProvider } from "./provider";

/** Inputs of a {@link RootQuorum}. */
export interface RootQuorumInputs {
  /** How many members must approve (1 to the number of `userIds`). */
  threshold: pulumi.Input<number>;
  /** The members (a set). Keep the user keyform's API key belongs to among them. */
  userIds: pulumi.Input<pulumi.Input<string>[]>;
  /** The organization; defaults to the `keyform:organizationId` setting. */
  organizationId?: pulumi.Input<string>;
  /** The organization id, to adopt its quorum explicitly (creating the resource adopts it anyway). */
  importId?: pulumi.Input<string>;
}
/** Alias of {@link RootQuorumInputs}, in the usual Pulumi naming. */
export type RootQuorumArgs = RootQuorumInputs;

/** The provider of {@link RootQuorum}; delegates to keyform's provider runtime. */
export class RootQuorumProvider extends KeyformProvider {
  constructor() {
    super("RootQuorum");
  }
}

const provider = new RootQuorumProvider();

/**
 * The root quorum (`update_root_quorum`). In-place updates: `threshold`, `userIds`. Declare it
 * once per organization. The current quorum must approve a change; destroy leaves it as it is,
 * with a warning.
 *
 * @example
 * new keyform.RootQuorum("root-quorum", { threshold: 1, userIds: [me.userId, alice.userId] });
 */
export class RootQuorum extends pulumi.dynamic.Resource {
  /** The quorum's id: its organization's id. */
  declare public readonly rootQuorumId: pulumi.Output<string>;
  declare public readonly threshold: pulumi.Output<number>;
  /** The members as the service holds them, sorted. */
  declare public readonly userIds: pulumi.Output<string[]>;
  declare public readonly organizationId: pulumi.Output<string>;

  constructor(name: string, args: RootQuorumInputs, opts?: pulumi.CustomResourceOptions) {
    super(
      provider,
      name,
      { ...args, rootQuorumId: undefined, organizationId: args.organizationId },
      dynamicResourceOptions("RootQuorum", name, opts),
      "keyform",
      "RootQuorum",
    );
  }
}
