/**
 * @module wire/operations/private-keys
 * Standalone private keys (spec 4.4 delete_private_keys; `v1CreatePrivateKeysIntentV2` and
 * `v1PrivateKey` of the official types for create and the record).
 */
import { z } from "zod";
import { defineActivity, defineQuery } from "../define";
import { AddressFormat, Curve } from "../enums";
import { Id, opt, Timestamp } from "../shared";

/** An address derived from a key (`externaldatav1Address`). */
export const KeyAddress = z.object({ format: opt(AddressFormat), address: opt(z.string()) });
export type KeyAddress = z.infer<typeof KeyAddress>;

/** `v1PrivateKey`: a private key record, as listed in `get_organization`. */
export const PrivateKey = z.object({
  privateKeyId: z.string(),
  publicKey: z.string(),
  privateKeyName: z.string(),
  curve: Curve,
  addresses: z.array(KeyAddress),
  privateKeyTags: z.array(z.string()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  exported: z.boolean(),
  imported: z.boolean(),
});
export type PrivateKey = z.infer<typeof PrivateKey>;

/** `v1PrivateKeyParams`: one private key to create. */
export const PrivateKeyParams = z.object({
  privateKeyName: Id,
  curve: Curve,
  privateKeyTags: z.array(Id),
  addressFormats: z.array(AddressFormat),
});
export type PrivateKeyParams = z.infer<typeof PrivateKeyParams>;

export const createPrivateKeys = defineActivity("create_private_keys", {
  type: "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2",
  intentKey: "createPrivateKeysIntentV2",
  // Unlike create_policy and create_api_keys, this result key keeps the version suffix.
  resultKey: "createPrivateKeysResultV2",
  parameters: z.object({ privateKeys: z.array(PrivateKeyParams).min(1, "must hold at least one private key") }),
  result: z.object({
    privateKeys: z.array(z.object({ privateKeyId: opt(z.string()), addresses: opt(z.array(KeyAddress)) })),
  }),
});

export const deletePrivateKeys = defineActivity("delete_private_keys", {
  type: "ACTIVITY_TYPE_DELETE_PRIVATE_KEYS",
  intentKey: "deletePrivateKeysIntent",
  resultKey: "deletePrivateKeysResult",
  parameters: z.object({
    privateKeyIds: z.array(Id).min(1, "must name at least one private key"),
    /** Allows deleting keys that were never exported; ignored for exported keys. */
    deleteWithoutExport: opt(z.boolean()),
  }),
  result: z.object({ privateKeyIds: z.array(z.string()) }),
});

/**
 * docs/service-facts.md#8-wallets-private-keys-and-other-operations (`v1ExportPrivateKeyIntent`): the private key, HPKE-encrypted to
 * `targetPublicKey` in an export bundle; marks the key exported.
 */
export const exportPrivateKey = defineActivity("export_private_key", {
  type: "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY",
  intentKey: "exportPrivateKeyIntent",
  resultKey: "exportPrivateKeyResult",
  parameters: z.object({
    privateKeyId: Id,
    /** Client public key the export bundle is encrypted to. */
    targetPublicKey: Id,
  }),
  result: z.object({ privateKeyId: z.string(), exportBundle: z.string() }),
});

/** docs/service-facts.md#8-wallets-private-keys-and-other-operations: one private key record. */
export const getPrivateKey = defineQuery("get_private_key", {
  request: z.object({ organizationId: Id, privateKeyId: Id }),
  response: z.object({ privateKey: PrivateKey }),
});

/** docs/service-facts.md#8-wallets-private-keys-and-other-operations: every private key of the organization (not paginated). */
export const listPrivateKeys = defineQuery("list_private_keys", {
  request: z.object({ organizationId: Id }),
  response: z.object({ privateKeys: z.array(PrivateKey) }),
});

export const privateKeyOperations = { createPrivateKeys, deletePrivateKeys, exportPrivateKey, getPrivateKey, listPrivateKeys };
