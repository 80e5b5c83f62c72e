/**
 * @module crypto/bundles
 * The two encrypted bundles the service returns, in the formats the official client code
 * (`@turnkey/crypto`) reads:
 *
 * - **Credential bundle** (`otp_auth` result `credentialBundle`): base58check (Bitcoin style,
 *   4-byte double-SHA-256 checksum) of `compressed encapsulated key (33 bytes) || HPKE
 *   ciphertext`. The plaintext is the 32-byte private key of the new API key.
 * - **Export bundle** (`export_wallet_account` result `exportBundle`): the JSON text
 *   `{"version":"v1.0.0","data":<hex>,"dataSignature":<DER hex>,"enclaveQuorumPublic":<hex>}`
 *   where `data` is the hex of the UTF-8 JSON `{"encappedPublic":<65-byte hex>,
 *   "ciphertext":<hex>,"organizationId":<id>}`, `dataSignature` is ECDSA P-256 over
 *   SHA-256 of the bytes `data` encodes, and `enclaveQuorumPublic` is the signer's
 *   uncompressed public key (the emulator's `signerPublicKey`). The plaintext is the raw
 *   private key bytes for an account export, or the UTF-8 mnemonic for a wallet export.
 *
 * Both use {@link hpkeEncrypt} / {@link hpkeDecrypt} (see `hpke.ts` for the suite).
 */
import { createBase58check } from "@scure/base";
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex, concatBytes, fromUtf8, hexToBytes, utf8 } from "./encoding";
import { CryptoError } from "./errors";
import { hpkeDecrypt, hpkeEncrypt } from "./hpke";
import { parsePrivateKey, parsePublicKey, publicKeyOf, signSha256, verifySha256 } from "./p256";

const base58check = createBase58check(sha256);

/** The `version` the export-bundle envelope carries. */
export const EXPORT_BUNDLE_VERSION = "v1.0.0";

/**
 * Encrypts a private key into a credential bundle for `targetPublicKeyHex` (the `otp_auth`
 * caller's `targetPublicKey`).
 * @param privateKeyHex the 32-byte private key to deliver, hex
 * @param targetPublicKeyHex recipient P-256 public key, hex, compressed or uncompressed
 * @returns the base58check bundle text
 * @throws {TypeError} on wrong argument types
 * @throws {CryptoError} if a key is malformed (the message never shows the private key)
 */
export function encryptCredentialBundle(privateKeyHex: string, targetPublicKeyHex: string): string {
  const secret = parsePrivateKey(privateKeyHex, "privateKeyHex");
  const sealed = hpkeEncrypt({ plaintext: secret, targetPublicKeyHex });
  const compressedEnc = parsePublicKey(sealed.encappedPublicKey, true, "encappedPublicKey");
  return base58check.encode(concatBytes(compressedEnc, sealed.ciphertext));
}

/**
 * Decrypts a credential bundle; the counterpart of {@link encryptCredentialBundle} and of the
 * official `decryptCredentialBundle`.
 * @param bundle base58check bundle text
 * @param privateKeyHex recipient private key (the one behind `targetPublicKey`), hex
 * @returns the delivered plaintext as lowercase hex (a private key for `otp_auth`)
 * @throws {TypeError} on wrong argument types
 * @throws {CryptoError} if the bundle is malformed, its checksum fails or it does not decrypt
 */
export function decryptCredentialBundle(bundle: string, privateKeyHex: string): string {
  if (typeof bundle !== "string") throw new TypeError("bundle must be a base58check string");
  let bytes: Uint8Array;
  try {
    bytes = base58check.decode(bundle);
  } catch {
    throw new CryptoError("bundle is not valid base58check (bad alphabet or checksum)", "bundle");
  }
  if (bytes.length <= 33) {
    throw new CryptoError(`bundle is too short (${bytes.length} bytes; expected a 33-byte key and a ciphertext)`, "bundle");
  }
  const plaintext = hpkeDecrypt({
    encappedPublicKey: bytes.subarray(0, 33),
    ciphertext: bytes.subarray(33),
    privateKeyHex,
  });
  return bytesToHex(plaintext);
}

/** Parameters of {@link encryptExportBundle}. */
export interface EncryptExportBundleParams {
  /** What to export: raw private key bytes, or the UTF-8 bytes of a mnemonic. */
  plaintext: Uint8Array;
  /** The caller's `targetPublicKey`, hex, compressed or uncompressed. */
  targetPublicKeyHex: string;
  /** Organization the bundle is bound to; the official decrypt checks it. */
  organizationId: string;
  /** The enclave signing key (emulator signer), 32-byte hex. */
  signerPrivateKeyHex: string;
}

/** The JSON envelope of an export bundle. */
export interface ExportBundleEnvelope {
  version: string;
  data: string;
  dataSignature: string;
  enclaveQuorumPublic: string;
}

/**
 * Encrypts and signs an export bundle.
 * @returns the JSON envelope text, as the `exportBundle` result field carries it
 * @throws {TypeError} on wrong argument types
 * @throws {CryptoError} if a key is malformed
 */
export function encryptExportBundle(params: EncryptExportBundleParams): string {
  const { plaintext, targetPublicKeyHex, organizationId, signerPrivateKeyHex } = params;
  if (typeof organizationId !== "string" || organizationId === "") {
    throw new TypeError("organizationId must be a non-empty string");
  }
  const signer = parsePrivateKey(signerPrivateKeyHex, "signerPrivateKeyHex");
  const sealed = hpkeEncrypt({ plaintext, targetPublicKeyHex });
  // Key order as the service emits it; the signature covers these exact bytes.
  const signedData = utf8(
    JSON.stringify({
      encappedPublic: bytesToHex(sealed.encappedPublicKey),
      ciphertext: bytesToHex(sealed.ciphertext),
      organizationId,
    }),
  );
  const envelope: ExportBundleEnvelope = {
    version: EXPORT_BUNDLE_VERSION,
    data: bytesToHex(signedData),
    dataSignature: bytesToHex(signSha256(signedData, signer, "der")),
    enclaveQuorumPublic: bytesToHex(publicKeyOf(signerPrivateKeyHex, false, "signerPrivateKeyHex")),
  };
  return JSON.stringify(envelope);
}

/** Parameters of {@link decryptExportBundle}. */
export interface DecryptExportBundleParams {
  /** The envelope JSON text. */
  exportBundle: string;
  /** Recipient private key (behind `targetPublicKey`), hex. */
  privateKeyHex: string;
  /** The organization the bundle must be bound to. */
  organizationId: string;
  /** The trusted signer public key (hex, compressed or uncompressed). */
  signerPublicKeyHex: string;
}

function envelopeField(obj: Record<string, unknown>, name: string, prefix = "exportBundle"): string {
  const value = obj[name];
  if (typeof value !== "string" || value === "") {
    throw new CryptoError(`${prefix}.${name} is missing or not a string`, `${prefix}.${name}`);
  }
  return value;
}

/**
 * Verifies and decrypts an export bundle: the signer must be `signerPublicKeyHex`, the
 * signature must hold, and the signed organization must be `organizationId`.
 * @returns the plaintext bytes (raw private key or mnemonic UTF-8)
 * @throws {TypeError} on wrong argument types
 * @throws {CryptoError} if the envelope is malformed, signed by another key, bound to another
 *   organization, or does not decrypt
 */
export function decryptExportBundle(params: DecryptExportBundleParams): Uint8Array {
  const { exportBundle, privateKeyHex, organizationId, signerPublicKeyHex } = params;
  if (typeof exportBundle !== "string") throw new TypeError("exportBundle must be a JSON string");
  if (typeof organizationId !== "string") throw new TypeError("organizationId must be a string");
  let parsed: unknown;
  try {
    parsed = JSON.parse(exportBundle);
  } catch {
    throw new CryptoError("exportBundle is not valid JSON", "exportBundle");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new CryptoError("exportBundle is not a JSON object", "exportBundle");
  }
  const envelope = parsed as Record<string, unknown>;
  const trusted = parsePublicKey(signerPublicKeyHex, false, "signerPublicKeyHex");
  const claimed = parsePublicKey(envelopeField(envelope, "enclaveQuorumPublic"), false, "exportBundle.enclaveQuorumPublic");
  if (bytesToHex(claimed) !== bytesToHex(trusted)) {
    throw new CryptoError("exportBundle is signed by an untrusted key (enclaveQuorumPublic differs from the signer)", "exportBundle.enclaveQuorumPublic");
  }
  const signedData = hexToBytes(envelopeField(envelope, "data"), "exportBundle.data");
  const signature = hexToBytes(envelopeField(envelope, "dataSignature"), "exportBundle.dataSignature");
  if (!verifySha256(signature, signedData, trusted, "der")) {
    throw new CryptoError("exportBundle.dataSignature does not verify", "exportBundle.dataSignature");
  }
  let inner: unknown;
  try {
    inner = JSON.parse(fromUtf8(signedData, "exportBundle.data"));
  } catch {
    throw new CryptoError("exportBundle.data is not hex of a JSON object", "exportBundle.data");
  }
  if (typeof inner !== "object" || inner === null) {
    throw new CryptoError("exportBundle.data is not hex of a JSON object", "exportBundle.data");
  }
  const data = inner as Record<string, unknown>;
  if (data.organizationId !== organizationId) {
    throw new CryptoError("exportBundle is bound to a different organization", "exportBundle.data.organizationId");
  }
  const enc = envelopeField(data, "encappedPublic", "exportBundle.data");
  const ciphertext = hexToBytes(envelopeField(data, "ciphertext", "exportBundle.data"), "exportBundle.data.ciphertext");
  return hpkeDecrypt({ ciphertext, encappedPublicKey: enc, privateKeyHex });
}
