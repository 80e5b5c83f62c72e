/**
 * @module resources/invitation
 * `Invitation`: an invitation of a new user. The service cannot change an invitation, so
 * every change replaces it.
 */
import * as pulumi from "@pulumi/pulumi";
import { dynamicResourceOptions, KeyformProvider } from "./provider";

/** Inputs of an {@link Invitation}. */
export interface InvitationInputs {
  receiverUserName: pulumi.Input<string>;
  receiverUserEmail: pulumi.Input<string>;
  /** Tag ids the new user receives (a set). Default: none. */
  receiverUserTags?: pulumi.Input<pulumi.Input<string>[]>;
  /** `ACCESS_TYPE_WEB`, `ACCESS_TYPE_API` or `ACCESS_TYPE_ALL`. */
  accessType: pulumi.Input<"ACCESS_TYPE_WEB" | "ACCESS_TYPE_API" | "ACCESS_TYPE_ALL" | string>;
  /** The inviting user. */
  senderUserId: pulumi.Input<string>;
  /** The organization; defaults to the `keyform:organizationId` setting. */
  organizationId?: pulumi.Input<string>;
  /** Adopt the existing invitation with this id; it must match the inputs. */
  importId?: pulumi.Input<string>;
}
/** Alias of {@link InvitationInputs}, in the usual Pulumi naming. */
export type InvitationArgs = InvitationInputs;

/** The provider of {@link Invitation}; delegates to keyform's provider runtime. */
export class InvitationProvider extends KeyformProvider {
  constructor() {
    super("Invitation");
  }
}

const provider = new InvitationProvider();

/**
 * An invitation. Every input change replaces it (the service has no update). A revoked
 * invitation counts as gone: refresh drops it and the next `up` invites again.
 *
 * @example
 * new keyform.Invitation("alice", {
 *   receiverUserName: "Alice", receiverUserEmail: "alice@example.com",
 *   accessType: "ACCESS_TYPE_WEB", senderUserId: rootUserId,
 * });
 */
export class Invitation extends pulumi.dynamic.Resource {
  declare public readonly invitationId: pulumi.Output<string>;
  /** `INVITATION_STATUS_CREATED` or `INVITATION_STATUS_ACCEPTED`. */
  declare public readonly status: pulumi.Output<string>;
  declare public readonly organizationId: pulumi.Output<string>;

  constructor(name: string, args: InvitationInputs, opts?: pulumi.CustomResourceOptions) {
    super(
      provider,
      name,
      { ...args, receiverUserTags: args.receiverUserTags ?? [], invitationId: undefined, status: undefined, organizationId: args.organizationId },
      dynamicResourceOptions("Invitation", name, opts),
      "keyform",
      "Invitation",
    );
  }
}
