/**
 * @module resources/runtime/private-key-tag
 * PrivateKeyTag: a tag of private keys, like UserTag. The service has no get for tags and the
 * tag record has no member list, so a read lists the tags and takes the members from the keys'
 * `privateKeyTags`. Rename and membership change in place (`update_private_key_tag`).
 */
import { operations } from "../../wire/registry";
import { schemaFailures } from "./check";
import type { Session } from "./client";
import type { InputsOf, OutputsOf, ResourceDescription } from "./describe";
import type { ListObjects } from "./listing";
import { createActivity } from "./earlier-activity";
import { collections } from "./shared-reads";
import { defineResource, parametersFrom } from "./define";
import { makeHandler } from "./framework";
import { minus, sortedSet } from "./values";

/** A private key tag as read, in the names of its outputs. */
interface LiveTag {
  privateKeyTagId: string;
  privateKeyTagName: string;
  privateKeyIds: string[];
}

async function fetchTag(session: Session, id: string): Promise<LiveTag | undefined> {
  const { privateKeyTags } = await collections.privateKeyTags(session);
  const tag = privateKeyTags.find((t) => t.tagId === id);
  if (!tag) return undefined;
  const { privateKeys } = await collections.privateKeys(session);
  return { privateKeyTagId: tag.tagId, privateKeyTagName: tag.tagName, privateKeyIds: sortedSet(privateKeys.filter((k) => k.privateKeyTags.includes(id)).map((k) => k.privateKeyId)) };
}

/** The create_private_key_tag parameters of `inputs`: its inputs of the same names. */
const createParameters = (inputs: PrivateKeyTagInputs) => parametersFrom(operations.createPrivateKeyTag.parameters, inputs);

const describe = {
  description:
    "A tag of private keys, with its members (`create_private_key_tag`). Rename and membership change in place " +
    "(`update_private_key_tag`); policies refer to keys by tag.",
  example: { name: "hot-keys", inputs: { privateKeyTagName: "hot-keys", privateKeyIds: ["${signer.privateKeyId}"] } },
  guide: [
    "Like `UserTag`: rename and membership change **in place** (`update_private_key_tag`); refresh",
    "reads the members from the keys.",
  ].join("\n"),
  importIdMeaning: "the tag's id, `privateKeyTagId`",
  inputs: {
    privateKeyTagName: { type: "string", description: "The tag's name.", required: true, defaultsToResourceName: true },
    privateKeyIds: { type: "array", items: { type: "string" }, description: "The private keys that carry the tag (a set). Default: none.", references: { kind: "PrivateKey" }, set: true, default: [] },
  },
  outputs: {
    privateKeyTagId: { type: "string", description: "The tag's id." },
    privateKeyTagName: { type: "string", description: "The name as the service holds it." },
    privateKeyIds: { type: "array", items: { type: "string" }, description: "The members as the service holds them, sorted." },
  },
} as const satisfies ResourceDescription;

/** Normalized inputs of a PrivateKeyTag. */
export type PrivateKeyTagInputs = InputsOf<typeof describe>;
/** Outputs of a PrivateKeyTag. */
export type PrivateKeyTagOutputs = OutputsOf<typeof describe>;

/** Every private key tag of the organization. */
const listPrivateKeyTags: ListObjects = async (session) =>
  (await collections.privateKeyTags(session)).privateKeyTags.map((t) => ({ id: t.tagId, label: t.tagName }));

export const privateKeyTagSpec = defineResource<PrivateKeyTagInputs, PrivateKeyTagOutputs, LiveTag>({
  kind: "PrivateKeyTag",
  describe,
  list: listPrivateKeyTags,
  idProperty: "privateKeyTagId",
  validate: (inputs) => schemaFailures(operations.createPrivateKeyTag.parameters, createParameters(inputs), inputs as unknown as Record<string, unknown>),
  label: (inputs) => JSON.stringify(inputs.privateKeyTagName ?? ""),
  fetch: (session, id) => fetchTag(session, id),
  createActivity: createActivity({
    operation: "createPrivateKeyTag",
    parameters: createParameters,
    createdId: (result) => result.privateKeyTagId,
  }),
  async findExisting(session, inputs) {
    // Private key tag names are unique in an organization.
    const { privateKeyTags } = await collections.privateKeyTags(session);
    const tag = privateKeyTags.find((t) => t.tagName === inputs.privateKeyTagName);
    const live = tag === undefined ? undefined : await fetchTag(session, tag.tagId);
    return live === undefined ? undefined : { id: live.privateKeyTagId, live };
  },
  async create(session, inputs) {
    const parameters = createParameters(inputs);
    const { privateKeyTagId } = await session.client.createPrivateKeyTag(parameters);
    // No get for a tag: the completed activity made exactly this tag, so it is known without
    // reading every tag and every private key.
    return { id: privateKeyTagId, live: { privateKeyTagId, privateKeyTagName: parameters.privateKeyTagName, privateKeyIds: sortedSet(parameters.privateKeyIds) } };
  },
  async update(session, id, live, inputs) {
    await session.client.updatePrivateKeyTag({
      privateKeyTagId: id,
      ...(inputs.privateKeyTagName !== live.privateKeyTagName ? { newPrivateKeyTagName: inputs.privateKeyTagName } : {}),
      addPrivateKeyIds: minus(inputs.privateKeyIds, live.privateKeyIds),
      removePrivateKeyIds: minus(live.privateKeyIds, inputs.privateKeyIds),
    });
  },
  async remove(session, id) {
    await session.client.deletePrivateKeyTags({ privateKeyTagIds: [id] });
  },
  batch: {
    remove: {
      max: 100,
      async submit(session, items) {
        await session.client.deletePrivateKeyTags({ privateKeyTagIds: items.map((item) => item.id) });
        return items.map(() => undefined);
      },
    },
  },
});

/** The runtime handler the PrivateKeyTag provider code in state delegates to. */
export const privateKeyTagHandler = makeHandler(privateKeyTagSpec);
