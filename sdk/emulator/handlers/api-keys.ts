/**
 * @module emulator/handlers/api-keys
 * API keys (docs/service-facts.md#33-api-keys). A key stamps requests as soon as the activity that created it
 * committed. Names are unique per user; a public key is registered once per organization.
 *
 * Not modelled: the service's rule that every user keeps one long-lived credential
 * ("user missing valid credential"); the emulator lets the last key of a user be deleted.
 */
import { ed25519 } from "@noble/curves/ed25519";
import { p256 } from "@noble/curves/p256";
import { secp256k1 } from "@noble/curves/secp256k1";
import { credentialTypeForCurve } from "keyform/protocol/keys";
import type { ApiKeyParams } from "keyform/wire/operations/api-keys";
import { alreadyExists, invalidArgument, notFound } from "../errors";
import { newId, requireName, requireDistinct, requireUser } from "./common";
import type { ActivityContext, EmulatorModule } from "./types";
import { apiKeyView } from "./views";

const COMPRESSED_POINT = /^0[23][0-9a-fA-F]{64}$/;
const ED25519_POINT = /^[0-9a-fA-F]{64}$/;

/** @throws 400 naming `field` unless `publicKey` is a valid key on `curve`, encoded as stamps send it. */
export function validatePublicKey(publicKey: string, curve: ApiKeyParams["curveType"], field: string): void {
  try {
    switch (curve) {
      case "API_KEY_CURVE_P256":
      case "API_KEY_CURVE_SECP256K1":
        if (!COMPRESSED_POINT.test(publicKey)) {
          throw invalidArgument(`${field}: expected a compressed public key (66 hex characters starting with 02 or 03)`);
        }
        (curve === "API_KEY_CURVE_P256" ? p256 : secp256k1).ProjectivePoint.fromHex(publicKey).assertValidity();
        return;
      case "API_KEY_CURVE_ED25519":
        if (!ED25519_POINT.test(publicKey)) throw invalidArgument(`${field}: expected a 32-byte ed25519 public key (64 hex characters)`);
        ed25519.ExtendedPoint.fromHex(publicKey).assertValidity();
        return;
    }
  } catch (error) {
    if (error instanceof Error && error.name === "EmulatorError") throw error;
    throw invalidArgument(`${field}: not a valid point on ${curve}`);
  }
}

/**
 * Registers API keys for a user inside the running activity (shared by create_api_keys and
 * create_users). `field` prefixes error messages, e.g. `apiKeys` or `users[0].apiKeys`.
 * @returns the new key ids, in request order
 */
export function insertApiKeys(ctx: ActivityContext, userId: string, keys: readonly ApiKeyParams[], field: string): string[] {
  const names = new Set<string>();
  const publicKeys = new Set<string>();
  return keys.map((key, i) => {
    const at = `${field}[${i}]`;
    validatePublicKey(key.publicKey, key.curveType, `${at}.publicKey`);
    requireName(key.apiKeyName, `${at}.apiKeyName`);
    if (key.expirationSeconds !== undefined && !(BigInt(key.expirationSeconds) > 0n)) {
      throw invalidArgument(`${at}.expirationSeconds: must be at least 1 (seconds), got ${key.expirationSeconds}`);
    }
    if (names.has(key.apiKeyName) || ctx.store.apiKeys.findByName(userId, key.apiKeyName)) {
      throw alreadyExists(`${at}.apiKeyName: the user already has an API key named ${JSON.stringify(key.apiKeyName)}`);
    }
    if (publicKeys.has(key.publicKey) || ctx.store.apiKeys.findInOrg(ctx.organizationId, key.publicKey)) {
      throw alreadyExists(`${at}.publicKey: this public key is already registered in the organization`);
    }
    names.add(key.apiKeyName);
    publicKeys.add(key.publicKey);
    const id = newId();
    ctx.store.apiKeys.insert({
      id,
      org_id: ctx.organizationId,
      user_id: userId,
      name: key.apiKeyName,
      public_key: key.publicKey,
      credential_type: credentialTypeForCurve(key.curveType),
      expiration_seconds: key.expirationSeconds ?? null,
      created_ms: ctx.nowMs,
      updated_ms: ctx.nowMs,
    });
    return id;
  });
}

export const apiKeysModule: EmulatorModule = {
  name: "api-keys",
  setup: () => ({
    createApiKeys(ctx, p) {
      requireUser(ctx, p.userId, "userId");
      return { apiKeyIds: insertApiKeys(ctx, p.userId, p.apiKeys, "apiKeys") };
    },

    deleteApiKeys(ctx, p) {
      requireUser(ctx, p.userId, "userId");
      requireDistinct(p.apiKeyIds, "apiKeyIds");
      p.apiKeyIds.forEach((id, i) => {
        const key = ctx.store.apiKeys.get(ctx.organizationId, id);
        if (!key || key.user_id !== p.userId) throw notFound(`apiKeyIds[${i}]: user ${p.userId} has no API key with id ${id}`);
      });
      for (const id of p.apiKeyIds) ctx.store.apiKeys.delete(id);
      return { apiKeyIds: p.apiKeyIds };
    },

    getApiKeys(ctx, req) {
      if (req.userId !== undefined) {
        requireUser(ctx, req.userId, "userId");
        return { apiKeys: ctx.store.apiKeys.listForUser(ctx.organizationId, req.userId).map(apiKeyView) };
      }
      // Undocumented on the service; the emulator answers with every key of the organization.
      return { apiKeys: ctx.store.apiKeys.listForOrg(ctx.organizationId).map(apiKeyView) };
    },

    getApiKey(ctx, req) {
      const key = ctx.store.apiKeys.get(ctx.organizationId, req.apiKeyId);
      if (!key) throw notFound(`apiKeyId: no API key with id ${req.apiKeyId} in organization ${ctx.organizationId}`);
      return { apiKey: apiKeyView(key) };
    },
  }),
};
