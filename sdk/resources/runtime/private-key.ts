/**
 * @module resources/runtime/private-key
 * PrivateKey: a standalone private key. The service has no update for keys, so every change
 * but `deleteWithoutExport` replaces it. Tags are `PrivateKeyTag`'s job: a key is created
 * without tags and its `privateKeyTags` are never compared. Deletion
 * (`delete_private_keys`) happens only with `deleteWithoutExport: true` (`key-material.ts`).
 */
import { ADDRESS_FORMATS, Curve } from "../../wire/enums";
import type { PrivateKey } from "../../wire/operations/private-keys";
import { operations } from "../../wire/registry";
import { schemaFailures } from "./check";
import type { Session } from "./client";
import type { InputsOf, OutputsOf, ResourceDescription } from "./describe";
import type { ListObjects } from "./listing";
import { createActivity } from "./earlier-activity";
import { defineResource, parametersFrom } from "./define";
import { makeHandler } from "./framework";
import { carriedDeletionChoice, deleteWithoutExportDescription, sameDeletionChoice } from "./key-material";
import { unlessNotFound } from "./lookups";
import { collections } from "./shared-reads";

const fetchKey = (session: Session, id: string): Promise<PrivateKey | undefined> =>
  unlessNotFound(async () => (await session.client.getPrivateKey({ privateKeyId: id })).privateKey);

/** The create_private_keys parameters of `inputs`: one key, its fields the inputs of the same names; tags are PrivateKeyTag's. */
function createParameters(inputs: PrivateKeyInputs) {
  return { privateKeys: [{ ...parametersFrom(operations.createPrivateKeys.parameters.shape.privateKeys.element, inputs), privateKeyTags: [] }] };
}

const describe = {
  description:
    "A standalone private key (`create_private_keys`). The service cannot change a key, so every change but `deleteWithoutExport` " +
    "replaces it. Tags are managed by `PrivateKeyTag`. Key material is never deleted by accident: without `deleteWithoutExport: true` " +
    "the key is retained on destroy and replacement (the new one then needs a new `privateKeyName`).",
  example: { name: "signer", inputs: { privateKeyName: "signer", curve: "CURVE_SECP256K1", addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] } },
  guide: [
    "The service cannot change a key: **every change replaces it** (the old one first when the name",
    "stays); it is retained on destroy and replacement unless `deleteWithoutExport: true`, as for",
    "`Wallet`.",
  ].join("\n"),
  importIdMeaning: "the key's id, `privateKeyId`",
  retainedUnless: "deleteWithoutExport",
  inputs: {
    privateKeyName: { type: "string", description: "The key's name, unique in the organization.", required: true, replaceOnChange: true, defaultsToResourceName: true },
    curve: { type: "string", enum: Curve.options, description: "The key's curve.", required: true, replaceOnChange: true },
    addressFormats: { type: "array", items: { type: "string", enum: ADDRESS_FORMATS }, description: "Address formats to derive, e.g. `ADDRESS_FORMAT_ETHEREUM` (order does not matter).", replaceOnChange: true, set: true, default: [] },
    deleteWithoutExport: { ...deleteWithoutExportDescription("private key"), default: false },
  },
  outputs: {
    privateKeyId: { type: "string", description: "The key's id." },
    privateKeyName: { type: "string", description: "The name as the service holds it." },
    curve: { type: "string", enum: Curve.options, description: "The key's curve." },
    addressFormats: { type: "array", items: { type: "string" }, description: "The derived address formats, sorted." },
    publicKey: { type: "string", description: "The public key, hex." },
    addresses: {
      type: "array",
      description: "The derived addresses.",
      items: { type: "object", properties: { format: { type: "string", description: "The address format.", required: true }, address: { type: "string", description: "The address.", required: true } } },
    },
    exported: { type: "boolean", description: "Whether the key has been exported." },
    deleteWithoutExport: deleteWithoutExportDescription("private key"),
  },
} as const satisfies ResourceDescription;

/** Normalized inputs of a PrivateKey. */
export type PrivateKeyInputs = InputsOf<typeof describe>;
/** Outputs of a PrivateKey. */
export type PrivateKeyOutputs = OutputsOf<typeof describe>;

/** Every standalone private key of the organization. */
const listPrivateKeys: ListObjects = async (session) =>
  (await collections.privateKeys(session)).privateKeys.map((k) => ({ id: k.privateKeyId, label: k.privateKeyName }));

export const privateKeySpec = defineResource<PrivateKeyInputs, PrivateKeyOutputs, PrivateKey>({
  kind: "PrivateKey",
  describe,
  list: listPrivateKeys,
  idProperty: "privateKeyId",
  equal: { deleteWithoutExport: sameDeletionChoice },
  validate(inputs) {
    return schemaFailures(operations.createPrivateKeys.parameters, createParameters(inputs), inputs as unknown as Record<string, unknown>, (path) =>
      String(path[2] ?? "privateKeyName"),
    );
  },
  label: (inputs) => JSON.stringify(inputs.privateKeyName ?? ""),
  // The name is unique: a replacement that keeps it has to remove the old key first (which a
  // retained key does not: the new one then fails naming the name, instead of taking it over).
  deleteBeforeReplace: (olds, news) => olds.privateKeyName === news.privateKeyName,
  fetch: (session, id) => fetchKey(session, id),
  // The address formats are the formats of the key's addresses; the deletion choice is not the service's.
  flatten: (live, carry) => ({
    addressFormats: [...new Set(live.addresses.flatMap((a) => (a.format ? [a.format] : [])))].sort(),
    addresses: live.addresses.flatMap((a) => (a.format && a.address ? [{ format: a.format, address: a.address }] : [])),
    deleteWithoutExport: carry.deleteWithoutExport ?? false,
  }),
  carriedInputs: carriedDeletionChoice,
  createActivity: createActivity({
    operation: "createPrivateKeys",
    parameters: createParameters,
    createdId: (result) => (result.privateKeys.length === 1 ? result.privateKeys[0]!.privateKeyId : undefined),
  }),
  async findExisting(session, inputs) {
    // Private key names are unique in an organization.
    const { privateKeys } = await collections.privateKeys(session);
    const live = privateKeys.find((k) => k.privateKeyName === inputs.privateKeyName);
    return live === undefined ? undefined : { id: live.privateKeyId, live };
  },
  async create(session, inputs) {
    const result = await session.client.createPrivateKeys(createParameters(inputs));
    const id = result.privateKeys[0]?.privateKeyId;
    if (id === undefined) throw new Error("create_private_keys returned no privateKeyId");
    return { id };
  },
  async remove(session, id, props) {
    await session.client.deletePrivateKeys({ privateKeyIds: [id], deleteWithoutExport: props.deleteWithoutExport === true });
  },
  batch: {
    // One activity per deleteWithoutExport choice; at most 100 keys each.
    remove: {
      max: 100,
      group: (item) => String(item.props.deleteWithoutExport === true),
      async submit(session, items) {
        await session.client.deletePrivateKeys({ privateKeyIds: items.map((item) => item.id), deleteWithoutExport: items[0]!.props.deleteWithoutExport === true });
        return items.map(() => undefined);
      },
    },
  },
});

/** The runtime handler the PrivateKey provider code in state delegates to. */
export const privateKeyHandler = makeHandler(privateKeySpec);
