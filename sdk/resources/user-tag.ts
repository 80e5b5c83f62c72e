/**
 * @module resources/user-tag
 * `UserTag`: a tag of users, with its members. Rename and membership change in place.
 */
import * as pulumi from "@pulumi/pulumi";
import { dynamicResourceOptions, KeyformProvider } from "./provider";

/** Inputs of a {@link UserTag}. */
export interface UserTagInputs {
  /** The tag's name; defaults to the resource name. */
  userTagName?: pulumi.Input<string>;
  /** The users that carry the tag (a set: order does not matter). Default: none. */
  userIds?: pulumi.Input<pulumi.Input<string>[]>;
  /** The organization; defaults to the `keyform:organizationId` setting. Changing it replaces the tag. */
  organizationId?: pulumi.Input<string>;
  /** Adopt the existing tag with this id instead of creating one; it is updated to match. */
  importId?: pulumi.Input<string>;
}
/** Alias of {@link UserTagInputs}, in the usual Pulumi naming. */
export type UserTagArgs = UserTagInputs;

/** The provider of {@link UserTag}; delegates to keyform's provider runtime. */
export class UserTagProvider extends KeyformProvider {
  constructor() {
    super("UserTag");
  }
}

const provider = new UserTagProvider();

/**
 * A user tag of the organization. In-place updates (`update_user_tag`): `userTagName`,
 * `userIds`. Replacement: `organizationId`.
 *
 * @example
 * const admins = new keyform.UserTag("admins", { userIds: [rootUserId] });
 */
export class UserTag extends pulumi.dynamic.Resource {
  /** The tag's id. */
  declare public readonly userTagId: pulumi.Output<string>;
  /** The tag's name as the service holds it. */
  declare public readonly userTagName: pulumi.Output<string>;
  /** The members as the service holds them, sorted. */
  declare public readonly userIds: pulumi.Output<string[]>;
  /** The organization the tag lives in. */
  declare public readonly organizationId: pulumi.Output<string>;

  constructor(name: string, args: UserTagInputs = {}, opts?: pulumi.CustomResourceOptions) {
    super(
      provider,
      name,
      { ...args, userTagName: args.userTagName ?? name, userIds: args.userIds ?? [], userTagId: undefined, organizationId: args.organizationId },
      dynamicResourceOptions("UserTag", name, opts),
      "keyform",
      "UserTag",
    );
  }
}
