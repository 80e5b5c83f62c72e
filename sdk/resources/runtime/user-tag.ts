/**
 * @module resources/runtime/user-tag
 * UserTag: a tag of users. The service has no get for tags and the tag record has no member
 * list, so a read lists the tags and takes the members from the users' `userTags` (fact
 * sheet 3.1). Rename and membership change in place through `update_user_tag`.
 */
import { operations } from "../../wire/registry";
import { firstSegment, schemaFailures, type CheckFailure } from "./check";
import type { Session } from "./client";
import { collections } from "./shared-reads";
import { createActivity } from "./earlier-activity";
import type { ListObjects } from "./listing";
import { defineResource, parametersFrom } from "./define";
import type { InputsOf, OutputsOf, ResourceDescription } from "./describe";
import { makeHandler } from "./framework";
import { minus, sortedSet } from "./values";

/** A user tag as read, in the names of its outputs. */
interface LiveTag {
  userTagId: string;
  userTagName: string;
  userIds: string[];
}

/** Reads one user tag and its members; `undefined` when no user tag has this id. */
export async function fetchUserTag(session: Session, id: string): Promise<LiveTag | undefined> {
  const { userTags } = await collections.userTags(session);
  const tag = userTags.find((t) => t.tagId === id && t.tagType === "TAG_TYPE_USER");
  if (!tag) return undefined;
  const { users } = await collections.users(session);
  return {
    userTagId: tag.tagId,
    userTagName: tag.tagName,
    userIds: sortedSet(users.filter((u) => u.userTags.includes(id)).map((u) => u.userId)),
  };
}

/** The create_user_tag parameters of `inputs`: its inputs of the same names. */
const createParameters = (inputs: UserTagInputs) => parametersFrom(operations.createUserTag.parameters, inputs);

/** Every user tag of the organization (private key tags are `PrivateKeyTag`'s). */
const listUserTags: ListObjects = async (session) =>
  (await collections.userTags(session)).userTags.filter((t) => t.tagType === "TAG_TYPE_USER").map((t) => ({ id: t.tagId, label: t.tagName }));

const describe = {
  description: "A user tag of the organization, with its members. Rename and membership change in place (`update_user_tag`).",
  example: { name: "admins", inputs: { userTagName: "admins", userIds: ["${alice.userId}"] } },
  guide: [
    "Rename and membership change **in place** (`update_user_tag`, adding and removing only the",
    "members that differ). Refresh reads the members from the users' tags, so members added or",
    "removed by hand show up as drift and the next `up` puts them back as declared.",
    "",
    "Tip: refer to a tag from other resources (invitations, policy expressions) with `tag.id`, which",
    "equals `userTagId`. Pulumi does not know the outputs of a resource that is being updated until",
    "the update runs, so a preview that changes a tag's members would show everything that uses",
    "`userTagId` as changing too; the resource id stays known, so with `tag.id` the plan shows",
    "exactly the tag's change.",
  ].join("\n"),
  importIdMeaning: "the tag's id, `userTagId`",
  inputs: {
    userTagName: { type: "string", description: "The tag's name.", required: true, defaultsToResourceName: true },
    userIds: {
      type: "array",
      items: { type: "string" },
      description: "The users that carry the tag (a set: order does not matter). Default: none.",
      references: { kind: "User" },
      set: true,
      default: [],
    },
  },
  outputs: {
    userTagId: { type: "string", description: "The tag's id." },
    userTagName: { type: "string", description: "The tag's name as the service holds it." },
    userIds: { type: "array", items: { type: "string" }, description: "The members as the service holds them, sorted." },
  },
} as const satisfies ResourceDescription;

/** Normalized inputs of a UserTag. */
export type UserTagInputs = InputsOf<typeof describe>;
/** Outputs of a UserTag. */
export type UserTagOutputs = OutputsOf<typeof describe>;

export const userTagSpec = defineResource<UserTagInputs, UserTagOutputs, LiveTag>({
  kind: "UserTag",
  list: listUserTags,
  describe,
  idProperty: "userTagId",
  validate(inputs): CheckFailure[] {
    const record = inputs as unknown as Record<string, unknown>;
    return schemaFailures(operations.createUserTag.parameters, createParameters(inputs), record, firstSegment);
  },
  label: (inputs) => JSON.stringify(inputs.userTagName ?? ""),
  fetch: (session, id) => fetchUserTag(session, id),
  createActivity: createActivity({
    operation: "createUserTag",
    parameters: createParameters,
    createdId: (result) => result.userTagId,
  }),
  async findExisting(session, inputs) {
    // Tag names are unique in an organization.
    const { userTags } = await collections.userTags(session);
    const tag = userTags.find((t) => t.tagName === inputs.userTagName && t.tagType === "TAG_TYPE_USER");
    const live = tag === undefined ? undefined : await fetchUserTag(session, tag.tagId);
    return live === undefined ? undefined : { id: live.userTagId, live };
  },
  async create(session, inputs) {
    const parameters = createParameters(inputs);
    const result = await session.client.createUserTag(parameters);
    // The service has no get for a tag: the completed activity made exactly this tag, so it
    // is known without reading every tag and every user.
    return { id: result.userTagId, live: { userTagId: result.userTagId, userTagName: parameters.userTagName, userIds: sortedSet(parameters.userIds) } };
  },
  async update(session, id, live, inputs) {
    await session.client.updateUserTag({
      userTagId: id,
      ...(inputs.userTagName !== live.userTagName ? { newUserTagName: inputs.userTagName } : {}),
      addUserIds: minus(inputs.userIds, live.userIds),
      removeUserIds: minus(live.userIds, inputs.userIds),
    });
  },
  async remove(session, id) {
    await session.client.deleteUserTags({ userTagIds: [id] });
  },
  batch: {
    // At most the organization's 100 user tags (docs "Resource limits").
    remove: {
      max: 100,
      async submit(session, items) {
        await session.client.deleteUserTags({ userTagIds: items.map((item) => item.id) });
        return items.map(() => undefined);
      },
    },
  },
});

/** The runtime handler the UserTag provider code in state delegates to. */
export const userTagHandler = makeHandler(userTagSpec);
