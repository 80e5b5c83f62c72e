/**
 * @module test/support/simulated-authenticator
 * A software passkey for tests, kept out of the published package: it holds a private key in
 * memory and signs whatever it is asked to.
 */
import { randomBytes } from "node:crypto";
import { p256 } from "@noble/curves/nist";
import { sha256 } from "@noble/hashes/sha2";
import { encodeCbor, type CborValue } from "../../sdk/crypto/cbor";
import { base64UrlEncode, bytesToHex, concatBytes, utf8 } from "../../sdk/crypto/encoding";
import { generateP256KeyPair, parsePrivateKey, parsePublicKey, signSha256 } from "../../sdk/crypto/p256";
import { FLAG_AT, FLAG_UP, FLAG_UV, WEBAUTHN_STAMP_HEADER, webAuthnChallengeForBody, type WebAuthnAttestation, type WebAuthnStamp } from "../../sdk/crypto/webauthn";

/** Options of {@link SimulatedAuthenticator}. */
export interface SimulatedAuthenticatorOptions {
  /** Default `localhost`. */
  rpId?: string;
  /** Default `http://localhost`. */
  origin?: string;
  /** Credential private key, 32-byte hex; default a fresh key. */
  privateKeyHex?: string;
  /** Credential id bytes; default 16 random bytes. */
  credentialId?: Uint8Array;
  /** Whether assertions set the UV flag (default true). */
  userVerified?: boolean;
}

/**
 * A software passkey for tests: one P-256 credential that makes a real `none`-format
 * attestation and real assertions, with a sign counter that grows by one per assertion.
 * Its {@link stamp} method fits the client's `Stamper` interface.
 */
export class SimulatedAuthenticator {
  readonly rpId: string;
  readonly origin: string;
  /** base64url credential id. */
  readonly credentialId: string;
  /** Compressed public key, hex. */
  readonly publicKey: string;
  /** Uncompressed public key, hex. */
  readonly publicKeyUncompressed: string;
  /** The counter the next assertion reports. */
  signCount = 0;
  private readonly secret: Uint8Array;
  private readonly rawCredentialId: Uint8Array;
  private readonly userVerified: boolean;

  constructor(options: SimulatedAuthenticatorOptions = {}) {
    this.rpId = options.rpId ?? "localhost";
    this.origin = options.origin ?? "http://localhost";
    this.secret = parsePrivateKey(options.privateKeyHex ?? generateP256KeyPair().privateKey, "privateKeyHex");
    this.rawCredentialId = options.credentialId ?? new Uint8Array(randomBytes(16));
    this.userVerified = options.userVerified ?? true;
    this.credentialId = base64UrlEncode(this.rawCredentialId);
    this.publicKeyUncompressed = bytesToHex(p256.getPublicKey(this.secret, false));
    this.publicKey = bytesToHex(p256.getPublicKey(this.secret, true));
  }

  private clientData(type: string, challenge: Uint8Array | string): Uint8Array {
    const encoded = typeof challenge === "string" ? challenge : base64UrlEncode(challenge);
    return utf8(JSON.stringify({ type, challenge: encoded, origin: this.origin, crossOrigin: false }));
  }

  private flags(extra: number): number {
    return FLAG_UP | (this.userVerified ? FLAG_UV : 0) | extra;
  }

  /**
   * Creates the credential's registration.
   * @param challenge the registration challenge: base64url text (placed in clientDataJSON as
   *   is) or raw bytes (base64url-encoded first)
   */
  register(challenge: string | Uint8Array): WebAuthnAttestation {
    const point = parsePublicKey(this.publicKeyUncompressed, false);
    const coseKey = new Map<CborValue, CborValue>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, point.subarray(1, 33)],
      [-3, point.subarray(33, 65)],
    ]);
    const idLength = new Uint8Array([this.rawCredentialId.length >> 8, this.rawCredentialId.length & 0xff]);
    const authData = concatBytes(
      sha256(utf8(this.rpId)),
      new Uint8Array([this.flags(FLAG_AT)]),
      new Uint8Array(4), // registration counter 0
      new Uint8Array(16), // AAGUID: zero for `none` attestation
      idLength,
      this.rawCredentialId,
      encodeCbor(coseKey),
    );
    const attestationObject = encodeCbor(
      new Map<CborValue, CborValue>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]),
    );
    return {
      credentialId: this.credentialId,
      clientDataJson: base64UrlEncode(this.clientData("webauthn.create", challenge)),
      attestationObject: base64UrlEncode(attestationObject),
      transports: ["AUTHENTICATOR_TRANSPORT_INTERNAL"],
    };
  }

  /** Signs an assertion (`webauthn.get`) over raw challenge bytes. */
  assert(challenge: Uint8Array): WebAuthnStamp {
    this.signCount += 1;
    const counter = new Uint8Array(4);
    new DataView(counter.buffer).setUint32(0, this.signCount);
    const authData = concatBytes(sha256(utf8(this.rpId)), new Uint8Array([this.flags(0)]), counter);
    const clientData = this.clientData("webauthn.get", challenge);
    const signature = signSha256(concatBytes(authData, sha256(clientData)), this.secret, "der");
    return {
      authenticatorData: base64UrlEncode(authData),
      clientDataJson: base64UrlEncode(clientData),
      credentialId: this.credentialId,
      signature: base64UrlEncode(signature),
    };
  }

  /** Stamps a request body: the `X-Stamp-WebAuthn` header for it. */
  stamp(body: string): { name: string; value: string } {
    return { name: WEBAUTHN_STAMP_HEADER, value: JSON.stringify(this.assert(webAuthnChallengeForBody(body))) };
  }
}
