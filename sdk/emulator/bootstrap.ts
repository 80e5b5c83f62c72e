/**
 * @module emulator/bootstrap
 * First-start setup of a data directory: a root organization, a root user with a P-256 API
 * key, the auth proxy config id and the emulator's signing key, all stored in the database
 * (one transaction) and reused by every later start. `bootstrap.json` is rewritten at every
 * start because the URL (port) can change.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { randomUUID } from "node:crypto";
import { p256 } from "@noble/curves/p256";
import { bytesToHex } from "@noble/hashes/utils";
import { generateApiKeyPair } from "keyform/protocol/keys";
import type { SignerKey } from "./handlers/types";
import type { Store } from "./store";

/** The contents of `<dataDir>/bootstrap.json` (team contract), declared with the public types. */
export type { Bootstrap } from "keyform/emulator-contract";
import type { Bootstrap } from "keyform/emulator-contract";

/** What the database keeps of the bootstrap (everything but the URLs). */
export type StoredBootstrap = Omit<Bootstrap, "baseUrl" | "authProxyUrl" | "signerPublicKey">;

/** File name of the bootstrap file inside the data directory. */
export const BOOTSTRAP_FILE = "bootstrap.json";

const ROOT_ORGANIZATION_NAME = "keyform emulator";
const ROOT_USER_NAME = "root";
const ROOT_API_KEY_NAME = "bootstrap";

/**
 * Creates the root organization, user, key and signing key on first start; returns what is
 * stored (first or later start).
 */
export function ensureBootstrap(store: Store): { stored: StoredBootstrap; signer: SignerKey } {
  return store.db.transaction(() => {
    const existing = store.meta.get("bootstrap");
    const signerPrivate = store.meta.get("signer_private_key");
    if (existing && signerPrivate) {
      return { stored: JSON.parse(existing) as StoredBootstrap, signer: signerOf(signerPrivate) };
    }
    const pair = generateApiKeyPair("API_KEY_CURVE_P256");
    const stored: StoredBootstrap = {
      organizationId: randomUUID(),
      userId: randomUUID(),
      apiPublicKey: pair.publicKey,
      apiPrivateKey: pair.privateKey,
      authProxyConfigId: randomUUID(),
    };
    seedRootOrganization(store, stored, Date.now());
    const signerKey = bytesToHex(p256.utils.randomSecretKey());
    store.meta.set("bootstrap", JSON.stringify(stored));
    store.meta.set("signer_private_key", signerKey);
    return { stored, signer: signerOf(signerKey) };
  })();
}

/**
 * Writes the root organization as the first start made it: the organization, its root user
 * (alone the root quorum) and the bootstrap API key. Also what a reset of the data restores.
 */
export function seedRootOrganization(store: Store, stored: StoredBootstrap, nowMs: number): void {
  store.organizations.insert({
    id: stored.organizationId,
    name: ROOT_ORGANIZATION_NAME,
    parent_id: null,
    root_quorum_json: JSON.stringify({ threshold: 1, userIds: [stored.userId] }),
    created_ms: nowMs,
  });
  store.users.insert({ id: stored.userId, org_id: stored.organizationId, name: ROOT_USER_NAME, email: null, phone_number: null, created_ms: nowMs, updated_ms: nowMs });
  store.apiKeys.insert({
    id: randomUUID(),
    org_id: stored.organizationId,
    user_id: stored.userId,
    name: ROOT_API_KEY_NAME,
    public_key: stored.apiPublicKey,
    credential_type: "CREDENTIAL_TYPE_API_KEY_P256",
    expiration_seconds: null,
    created_ms: nowMs,
    updated_ms: nowMs,
  });
}

function signerOf(privateKey: string): SignerKey {
  return { privateKey, publicKey: bytesToHex(p256.getPublicKey(privateKey, false)) };
}

/**
 * Writes `bootstrap.json` atomically (temp file, fsync, rename) with mode 0600: it holds the
 * root API private key.
 */
export function writeBootstrapFile(dataDir: string, bootstrap: Bootstrap): void {
  const target = path.join(dataDir, BOOTSTRAP_FILE);
  const temp = `${target}.${process.pid}.tmp`;
  const fd = fs.openSync(temp, "w", 0o600);
  try {
    fs.writeSync(fd, `${JSON.stringify(bootstrap, null, 2)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.chmodSync(temp, 0o600);
  fs.renameSync(temp, target);
}
