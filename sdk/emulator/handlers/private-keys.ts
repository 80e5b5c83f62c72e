/**
 * @module emulator/handlers/private-keys
 * Standalone private keys (spec 3 and 4.4 delete_private_keys; docs/service-facts.md#8-wallets-private-keys-and-other-operations:
 * create_private_keys V2, export_private_key, get_private_key, list_private_keys), plus the
 * `privateKeys` of get_organization.
 *
 * The deletion rule (spec 3): a key that was never exported is deleted only with
 * `deleteWithoutExport: true`; exported keys are deleted either way. A request naming a key
 * that may not be deleted fails as a whole (400 code 9 naming the entry) and deletes nothing.
 */
import { randomUUID } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519";
import { p256 } from "@noble/curves/nist";
import { secp256k1 } from "@noble/curves/secp256k1";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils";
import type { AddressFormat, Curve } from "keyform/wire/enums";
import type { PrivateKey } from "keyform/wire/operations/private-keys";
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from "../errors";
import { timestampOf } from "../store";
import { PRIVATE_KEY_MIGRATIONS, privateKeyStoreOf, type PrivateKeyRow } from "../store/private-keys";
import { openSecret, sealSecret } from "../store/secret-box";
import { encodeAddress, WalletDerivationError } from "../wallets";
import { exportBundleFor, requireDistinct } from "./common";
import type { EmulatorModule, QueryContext } from "./types";

/** A new key pair of `curve`: private scalar/seed and public key (compressed SEC1 or 32-byte ed25519). */
function generateKeyPair(curve: Curve): { privateKey: Uint8Array; publicKey: Uint8Array } {
  if (curve === "CURVE_ED25519") {
    const privateKey = ed25519.utils.randomPrivateKey();
    return { privateKey, publicKey: ed25519.getPublicKey(privateKey) };
  }
  const lib = curve === "CURVE_P256" ? p256 : secp256k1;
  const privateKey = lib.utils.randomPrivateKey();
  return { privateKey, publicKey: lib.getPublicKey(privateKey, true) };
}

/** `v1PrivateKey` of a stored key. */
export function privateKeyView(ctx: QueryContext, row: PrivateKeyRow): PrivateKey {
  return {
    privateKeyId: row.id,
    publicKey: row.public_key,
    privateKeyName: row.name,
    curve: row.curve as Curve,
    addresses: privateKeyStoreOf(ctx.db)
      .addresses(row.id)
      .map((a) => ({ format: a.format as AddressFormat, address: a.address })),
    privateKeyTags: JSON.parse(row.tags_json) as string[],
    createdAt: timestampOf(row.created_ms),
    updatedAt: timestampOf(row.updated_ms),
    exported: row.exported === 1,
    imported: row.imported === 1,
  };
}

function requireKey(ctx: QueryContext, id: string, field: string): PrivateKeyRow {
  const row = privateKeyStoreOf(ctx.db).get(ctx.organizationId, id);
  if (!row) throw notFound(`${field}: no private key with id ${id} in organization ${ctx.organizationId}`);
  return row;
}

/** The private key of the organization with on-chain address `address`, if any. */
export function findPrivateKeyByAddress(ctx: QueryContext, address: string): PrivateKeyRow | undefined {
  const store = privateKeyStoreOf(ctx.db);
  const hit = store.findByAddress(ctx.organizationId, address);
  return hit ? store.get(ctx.organizationId, hit.private_key_id) : undefined;
}

export const privateKeysModule: EmulatorModule = {
  name: "private-keys",
  migrations: PRIVATE_KEY_MIGRATIONS,
  setup: () => ({
    createPrivateKeys(ctx, p) {
      const store = privateKeyStoreOf(ctx.db);
      requireDistinct(
        p.privateKeys.map((k) => k.privateKeyName),
        "privateKeys[].privateKeyName",
      );
      const created = p.privateKeys.map((params, i) => {
        const field = `privateKeys[${i}]`;
        if (store.getByName(ctx.organizationId, params.privateKeyName)) {
          throw alreadyExists(`${field}.privateKeyName: a private key named ${JSON.stringify(params.privateKeyName)} already exists in organization ${ctx.organizationId}`);
        }
        params.privateKeyTags.forEach((tagId, j) => {
          const tag = ctx.store.tags.get(ctx.organizationId, tagId);
          if (!tag || tag.tag_type !== "TAG_TYPE_PRIVATE_KEY") {
            throw notFound(`${field}.privateKeyTags[${j}]: no private key tag with id ${tagId} in organization ${ctx.organizationId}`);
          }
        });
        const pair = generateKeyPair(params.curve);
        const addresses = params.addressFormats.map((format, j) => {
          try {
            return { format, address: encodeAddress(pair.publicKey, params.curve, format) };
          } catch (error) {
            if (error instanceof WalletDerivationError) throw invalidArgument(`${field}.addressFormats[${j}]: ${error.message}`);
            throw error;
          }
        });
        const row: PrivateKeyRow = {
          id: randomUUID(),
          org_id: ctx.organizationId,
          name: params.privateKeyName,
          curve: params.curve,
          public_key: bytesToHex(pair.publicKey),
          private_key_sealed: sealSecret(ctx.signer, bytesToHex(pair.privateKey)),
          tags_json: JSON.stringify(params.privateKeyTags),
          exported: 0,
          imported: 0,
          created_ms: ctx.nowMs,
          updated_ms: ctx.nowMs,
        };
        store.insert(row, addresses);
        return { privateKeyId: row.id, addresses };
      });
      return { privateKeys: created };
    },

    deletePrivateKeys(ctx, p) {
      const store = privateKeyStoreOf(ctx.db);
      requireDistinct(p.privateKeyIds, "privateKeyIds");
      const rows = p.privateKeyIds.map((id, i) => requireKey(ctx, id, `privateKeyIds[${i}]`));
      rows.forEach((row, i) => {
        if (row.exported !== 1 && p.deleteWithoutExport !== true) {
          throw failedPrecondition(
            `privateKeyIds[${i}]: private key ${row.id} was never exported; set deleteWithoutExport to true to delete it anyway`,
          );
        }
      });
      for (const row of rows) store.delete(row.id);
      return { privateKeyIds: rows.map((row) => row.id) };
    },

    exportPrivateKey(ctx, p) {
      const row = requireKey(ctx, p.privateKeyId, "privateKeyId");
      // The stored secret is opened first: a failure to open it is not the caller's key's fault.
      const exportBundle = exportBundleFor(ctx, hexToBytes(openSecret(ctx.signer, row.private_key_sealed)), p.targetPublicKey);
      privateKeyStoreOf(ctx.db).markExported(row.id, ctx.nowMs);
      return { privateKeyId: row.id, exportBundle };
    },

    getPrivateKey(ctx, req) {
      return { privateKey: privateKeyView(ctx, requireKey(ctx, req.privateKeyId, "privateKeyId")) };
    },

    listPrivateKeys(ctx) {
      return { privateKeys: privateKeyStoreOf(ctx.db).list(ctx.organizationId).map((row) => privateKeyView(ctx, row)) };
    },
  }),

  organizationData(ctx) {
    return { privateKeys: privateKeyStoreOf(ctx.db).list(ctx.organizationId).map((row) => privateKeyView(ctx, row)) };
  },
};
