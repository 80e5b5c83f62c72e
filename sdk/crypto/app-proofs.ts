/**
 * @module crypto/app-proofs
 * App Proofs (spec 2.1): a statement by the service, signed by an ephemeral key, that a
 * client can check offline. The format is the one the official verifier
 * (`@turnkey/crypto` `verifyAppProofSignature`) checks:
 *
 * - `scheme`: `SIGNATURE_SCHEME_EPHEMERAL_KEY_P256`;
 * - `publicKey`: hex of 130 bytes, an enclave-style key pair = encryption public key
 *   (65-byte uncompressed P-256) || signing public key (65-byte uncompressed P-256);
 * - `proofPayload`: a JSON text; `type` and `timestampMs` (decimal string of epoch ms) at top
 *   level, the statement under a type-specific key (see {@link policyOutcomePayload} and
 *   {@link addressDerivationPayload});
 * - `signature`: hex of the 64-byte raw `r||s` ECDSA P-256 signature over SHA-256 of the UTF-8
 *   bytes of `proofPayload` (S not normalised).
 *
 * Each proof gets its own fresh key pair unless the caller passes one.
 */
import { p256 } from "@noble/curves/nist";
import { bytesToHex, concatBytes, hexToBytes, utf8 } from "./encoding";
import { parsePrivateKey, parsePublicKey, signSha256, verifySha256 } from "./p256";

/** The only App Proof scheme. */
export const APP_PROOF_SCHEME = "SIGNATURE_SCHEME_EPHEMERAL_KEY_P256";

/** One App Proof, as the wire carries it (spec 2.1 `appProofs` item). */
export interface AppProof {
  scheme: typeof APP_PROOF_SCHEME;
  publicKey: string;
  proofPayload: string;
  signature: string;
}

/** The top level every proof payload has. */
export interface AppProofPayload {
  /** e.g. `APP_PROOF_TYPE_POLICY_OUTCOME`, `APP_PROOF_TYPE_ADDRESS_DERIVATION`. */
  type: string;
  /** Epoch milliseconds as a decimal string. */
  timestampMs: string;
  [key: string]: unknown;
}

/** Inputs of {@link policyOutcomePayload}. */
export interface PolicyOutcomeInput {
  organizationId: string;
  /** What the decision was about; the emulator passes the activity fingerprint (`sha256:<hex>`). */
  decisionContextDigest: string;
  /** The activity the decision was made for. */
  activityId?: string;
  /** Default `OUTCOME_ALLOW`. */
  outcome?: string;
  /** Default now. */
  timestampMs?: number;
}

/**
 * Payload of an `APP_PROOF_TYPE_POLICY_OUTCOME` proof: the policy engine allowed (or denied)
 * an activity of an organization.
 */
export function policyOutcomePayload(input: PolicyOutcomeInput): AppProofPayload {
  return {
    type: "APP_PROOF_TYPE_POLICY_OUTCOME",
    timestampMs: String(input.timestampMs ?? Date.now()),
    policyOutcomeProof: {
      organizationId: input.organizationId,
      outcome: input.outcome ?? "OUTCOME_ALLOW",
      decisionContextDigest: input.decisionContextDigest,
      ...(input.activityId === undefined ? {} : { activityId: input.activityId }),
    },
  };
}

/** Inputs of {@link addressDerivationPayload}. */
export interface AddressDerivationInput {
  organizationId: string;
  walletId: string;
  derivationPath: string;
  address: string;
  /** Default now. */
  timestampMs?: number;
}

/** Payload of an `APP_PROOF_TYPE_ADDRESS_DERIVATION` proof: a wallet path derives an address. */
export function addressDerivationPayload(input: AddressDerivationInput): AppProofPayload {
  return {
    type: "APP_PROOF_TYPE_ADDRESS_DERIVATION",
    timestampMs: String(input.timestampMs ?? Date.now()),
    addressDerivationProof: {
      organizationId: input.organizationId,
      walletId: input.walletId,
      derivationPath: input.derivationPath,
      address: input.address,
    },
  };
}

/** Options of {@link createAppProof}. */
export interface CreateAppProofOptions {
  /** Signing key, 32-byte hex; default a fresh key for this proof. */
  signingPrivateKeyHex?: string;
  /** Encryption half of `publicKey`, 65-byte uncompressed hex; default a fresh key's. */
  encryptionPublicKeyHex?: string;
}

/**
 * Signs a payload into an App Proof.
 * @param payload an object (serialised once with `JSON.stringify`) or the exact JSON text
 * @throws {TypeError} if `payload` is neither an object with string `type` and `timestampMs`
 *   nor a string holding such JSON
 * @throws {CryptoError} if a given key is malformed (`encryptionPublicKeyHex` may be compressed;
 *   it is written uncompressed)
 */
export function createAppProof(payload: AppProofPayload | string, options: CreateAppProofOptions = {}): AppProof {
  const proofPayload = typeof payload === "string" ? payload : JSON.stringify(payload);
  let parsed: unknown;
  try {
    parsed = JSON.parse(proofPayload);
  } catch {
    throw new TypeError("payload must be JSON text");
  }
  if (
    typeof parsed !== "object" || parsed === null ||
    typeof (parsed as AppProofPayload).type !== "string" ||
    typeof (parsed as AppProofPayload).timestampMs !== "string"
  ) {
    throw new TypeError("payload must be a JSON object with string fields type and timestampMs");
  }
  const signing = options.signingPrivateKeyHex === undefined
    ? p256.utils.randomPrivateKey()
    : parsePrivateKey(options.signingPrivateKeyHex, "signingPrivateKeyHex");
  const encryptionPublic = options.encryptionPublicKeyHex === undefined
    ? p256.getPublicKey(p256.utils.randomPrivateKey(), false)
    : parsePublicKey(options.encryptionPublicKeyHex, false, "encryptionPublicKeyHex");
  return {
    scheme: APP_PROOF_SCHEME,
    publicKey: bytesToHex(concatBytes(encryptionPublic, p256.getPublicKey(signing, false))),
    proofPayload,
    signature: bytesToHex(signSha256(utf8(proofPayload), signing, "raw")),
  };
}

/**
 * Checks an App Proof's signature. Returns false for anything that does not verify: another
 * scheme, a malformed key or signature, a tampered payload or signature.
 * @throws {TypeError} only if `proof` is not an object with four string fields
 */
export function verifyAppProof(proof: AppProof): boolean {
  if (typeof proof !== "object" || proof === null) throw new TypeError("proof must be an object");
  for (const field of ["scheme", "publicKey", "proofPayload", "signature"] as const) {
    if (typeof proof[field] !== "string") throw new TypeError(`proof.${field} must be a string`);
  }
  if (proof.scheme !== APP_PROOF_SCHEME) return false;
  let publicKey: Uint8Array;
  let signature: Uint8Array;
  try {
    publicKey = hexToBytes(proof.publicKey, "proof.publicKey");
    signature = hexToBytes(proof.signature, "proof.signature");
  } catch {
    return false;
  }
  if (publicKey.length !== 130 || signature.length !== 64) return false;
  const signingKey = publicKey.subarray(65);
  if (signingKey[0] !== 0x04) return false;
  return verifySha256(signature, utf8(proof.proofPayload), signingKey, "raw");
}
