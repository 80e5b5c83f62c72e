/**
 * The hand-written HPKE, CBOR and WebAuthn code of sdk/crypto checked against well-kept
 * libraries that could not replace it (README.md, "Dependencies", says why): `@hpke/core`,
 * `cborg` and `@simplewebauthn/server`. They are asynchronous or ESM-only, which fits a test
 * but not the synchronous, CommonJS `keyform/crypto`; here each one is an independent oracle.
 */
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from "@hpke/core";
import { verifyAuthenticationResponse, verifyRegistrationResponse } from "@simplewebauthn/server";
import { HPKE_INFO, hpkeDecrypt, hpkeEncrypt } from "../../sdk/crypto/hpke";
import { decodeCbor, encodeCbor, type CborValue } from "../../sdk/crypto/cbor";
import { coseKeyToP256, parseWebAuthnRegistration, verifyWebAuthnStamp, webAuthnChallengeForBody, type WebAuthnStamp } from "../../sdk/crypto/webauthn";
import { base64UrlDecode, base64UrlEncode, bytesToHex, concatBytes, hexToBytes, utf8 } from "../../sdk/crypto/encoding";
import { generateP256KeyPair } from "../../sdk/crypto/p256";
import { SimulatedAuthenticator } from "../support/simulated-authenticator";

describe("hpke against @hpke/core (RFC 9180, with the service's info and additional data)", () => {
  const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
  const info = utf8(HPKE_INFO);

  it("the library opens what we seal, and only with enc || pkR as additional data", async () => {
    const recipient = generateP256KeyPair();
    const plaintext = new Uint8Array(randomBytes(77));
    const sealed = hpkeEncrypt({ plaintext, targetPublicKeyHex: recipient.publicKey });
    const recipientKey = await suite.kem.deserializePrivateKey(hexToBytes(recipient.privateKey));
    const aad = concatBytes(sealed.encappedPublicKey, hexToBytes(recipient.publicKeyUncompressed));
    const opened = await suite.open({ recipientKey, enc: sealed.encappedPublicKey, info }, sealed.ciphertext, aad);
    expect(bytesToHex(new Uint8Array(opened))).toBe(bytesToHex(plaintext));
    await expect(suite.open({ recipientKey, enc: sealed.encappedPublicKey, info }, sealed.ciphertext)).rejects.toThrow();
  });

  it("we open what the library seals to the same suite", async () => {
    const recipient = generateP256KeyPair();
    const plaintext = new Uint8Array(randomBytes(33));
    const pkR = hexToBytes(recipient.publicKeyUncompressed);
    const recipientPublicKey = await suite.kem.deserializePublicKey(pkR);
    // A sender context knows its encapsulated key before sealing, which the additional data needs.
    const sender = await suite.createSenderContext({ recipientPublicKey, info });
    const enc = new Uint8Array(sender.enc);
    const ciphertext = new Uint8Array(await sender.seal(plaintext, concatBytes(enc, pkR)));
    expect(bytesToHex(hpkeDecrypt({ ciphertext, encappedPublicKey: enc, privateKeyHex: recipient.privateKey }))).toBe(bytesToHex(plaintext));
    const plain = await suite.createSenderContext({ recipientPublicKey, info });
    const withoutAad = new Uint8Array(await plain.seal(plaintext));
    expect(() => hpkeDecrypt({ ciphertext: withoutAad, encappedPublicKey: new Uint8Array(plain.enc), privateKeyHex: recipient.privateKey })).toThrow(
      /does not authenticate/,
    );
  });
});

/** A small deterministic generator, so that a failure names a value that can be replayed. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** One to four UTF-8 bytes each (the emoji is two UTF-16 code units, so split by code point). */
const TEXT_CHARACTERS = Array.from("aé€😀z");

/** A random value of the WebAuthn subset, nested at most `depth` levels. */
function randomCbor(next: () => number, depth: number): CborValue {
  const kind = Math.floor(next() * (depth > 0 ? 9 : 7));
  const int = (): number => {
    const magnitude = [23, 255, 65535, 4294967295][Math.floor(next() * 4)] as number;
    const n = Math.floor(next() * (magnitude + 1));
    return next() < 0.5 ? n : -1 - Math.min(n, 4294967295);
  };
  switch (kind) {
    case 0:
      return int();
    case 1:
      return new Uint8Array(Array.from({ length: Math.floor(next() * 40) }, () => Math.floor(next() * 256)));
    case 2:
      return Array.from({ length: Math.floor(next() * 30) }, () => TEXT_CHARACTERS[Math.floor(next() * TEXT_CHARACTERS.length)] as string).join("");
    case 3:
      return next() < 0.5;
    case 4:
      return null;
    case 5:
      return undefined;
    case 6:
      return int();
    case 7:
      return Array.from({ length: Math.floor(next() * 5) }, () => randomCbor(next, depth - 1));
    default: {
      const map = new Map<CborValue, CborValue>();
      const size = Math.floor(next() * 5);
      for (let i = 0; i < size; i++) map.set(next() < 0.5 ? int() : `k${i}`, randomCbor(next, depth - 1));
      return map;
    }
  }
}

describe("cbor against cborg", () => {
  // cborg is ESM only: a dynamic import is the one way in from CommonJS (see README.md).
  let cborg: typeof import("cborg", { with: { "resolution-mode": "import" } });
  beforeAll(async () => {
    cborg = await import("cborg");
  });
  const cborgDecode = (bytes: Uint8Array, options?: Parameters<typeof cborg.decode>[1]): unknown => cborg.decode(bytes, options);
  const cborgEncode = (value: unknown): Uint8Array => cborg.encode(value);
  const cborgOptions = { useMaps: true, rejectDuplicateMapKeys: true, allowIndefinite: false } as const;

  it("agrees on 500 random values of the WebAuthn subset, in both directions", () => {
    const next = generator(39);
    for (let i = 0; i < 500; i++) {
      const value = randomCbor(next, 3);
      const ours = encodeCbor(value);
      expect(cborgDecode(ours, cborgOptions), `value ${i}`).toEqual(value);
      // cborg sorts map keys; decoding its bytes must give the same value back.
      expect(decodeCbor(cborgEncode(value)), `value ${i}`).toEqual(value);
    }
  });

  it("encodes with the same shortest-form heads as cborg", () => {
    const next = generator(7);
    for (let i = 0; i < 200; i++) {
      const value = randomCbor(next, 0);
      expect(bytesToHex(encodeCbor(value)), `value ${i}`).toBe(bytesToHex(cborgEncode(value)));
    }
  });

  it("rejects the malformed input cborg rejects", () => {
    // truncated, trailing byte, indefinite length, duplicate map key, truncated map
    for (const hex of ["5805", "0101", "9f01ff", "a201010102", "a201"]) {
      expect(() => cborgDecode(hexToBytes(hex), cborgOptions), hex).toThrow();
      expect(() => decodeCbor(hexToBytes(hex)), hex).toThrow();
    }
  });
});

describe("webauthn against @simplewebauthn/server", () => {
  const rpId = "keyform.local";
  const origin = "https://keyform.local";
  const body = JSON.stringify({ type: "ACTIVITY_TYPE_CREATE_USER_TAG", organizationId: "org-1", parameters: { userTagName: "ops" } });

  async function libraryRegistration(authenticator: SimulatedAuthenticator, challenge: string) {
    const attestation = authenticator.register(challenge);
    const result = await verifyRegistrationResponse({
      response: {
        id: attestation.credentialId,
        rawId: attestation.credentialId,
        type: "public-key",
        response: { clientDataJSON: attestation.clientDataJson, attestationObject: attestation.attestationObject },
        clientExtensionResults: {},
      },
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpId,
      requireUserVerification: false,
    });
    return { attestation, result };
  }

  async function libraryAccepts(stamp: WebAuthnStamp, signedBody: string, cosePublicKey: Uint8Array): Promise<boolean> {
    try {
      const result = await verifyAuthenticationResponse({
        response: {
          id: stamp.credentialId,
          rawId: stamp.credentialId,
          type: "public-key",
          response: { authenticatorData: stamp.authenticatorData, clientDataJSON: stamp.clientDataJson, signature: stamp.signature },
          clientExtensionResults: {},
        },
        expectedChallenge: base64UrlEncode(webAuthnChallengeForBody(signedBody)),
        expectedOrigin: origin,
        expectedRPID: rpId,
        credential: { id: stamp.credentialId, publicKey: cosePublicKey as Uint8Array<ArrayBuffer>, counter: 0 },
        requireUserVerification: false,
      });
      return result.verified;
    } catch {
      return false;
    }
  }

  function weAccept(stamp: WebAuthnStamp, signedBody: string, publicKeyHex: string): boolean {
    try {
      verifyWebAuthnStamp({ stamp, body: signedBody, publicKeyHex, expectedRpId: rpId, expectedOrigins: [origin] });
      return true;
    } catch {
      return false;
    }
  }

  it("reads the same credential out of a registration", async () => {
    const authenticator = new SimulatedAuthenticator({ rpId, origin });
    const challenge = base64UrlEncode(new Uint8Array(randomBytes(32)));
    const { attestation, result } = await libraryRegistration(authenticator, challenge);
    expect(result.verified).toBe(true);
    const ours = parseWebAuthnRegistration({ ...attestation, expectedChallenge: challenge, expectedRpId: rpId });
    const credential = result.registrationInfo!.credential;
    expect(credential.id).toBe(ours.credentialId);
    const coseKey = decodeCbor(credential.publicKey) as Map<CborValue, CborValue>;
    expect(bytesToHex(coseKeyToP256(coseKey))).toBe(ours.publicKeyUncompressed);
    expect(result.registrationInfo!.fmt).toBe(ours.fmt);
  });

  it("accepts and refuses the same assertions", async () => {
    const key = generateP256KeyPair();
    const credentialId = new Uint8Array(randomBytes(16));
    // The same credential as seen by another RP or origin: only the checked field differs.
    const sameCredential = (at: { rpId?: string; origin?: string }) =>
      new SimulatedAuthenticator({ rpId: at.rpId ?? rpId, origin: at.origin ?? origin, privateKeyHex: key.privateKey, credentialId });
    const authenticator = sameCredential({});
    const { result } = await libraryRegistration(authenticator, base64UrlEncode(new Uint8Array(randomBytes(32))));
    const cose = result.registrationInfo!.credential.publicKey;
    const other = new SimulatedAuthenticator({ rpId, origin });
    const signature = (stamp: WebAuthnStamp): Uint8Array => base64UrlDecode(stamp.signature);

    const good = authenticator.assert(webAuthnChallengeForBody(body));
    const tamperedSignature = { ...good, signature: base64UrlEncode(signature(good).map((b, i) => (i === 10 ? b ^ 1 : b))) };
    const cases: Array<{ name: string; stamp: WebAuthnStamp; signedBody: string; accepted: boolean }> = [
      { name: "a good assertion", stamp: good, signedBody: body, accepted: true },
      { name: "another body", stamp: good, signedBody: body.replace("ops", "oops"), accepted: false },
      { name: "a tampered signature", stamp: tamperedSignature, signedBody: body, accepted: false },
      { name: "another authenticator's key", stamp: { ...other.assert(webAuthnChallengeForBody(body)), credentialId: good.credentialId }, signedBody: body, accepted: false },
      { name: "another RP", stamp: sameCredential({ rpId: "other.local" }).assert(webAuthnChallengeForBody(body)), signedBody: body, accepted: false },
      { name: "another origin", stamp: sameCredential({ origin: "https://other.local" }).assert(webAuthnChallengeForBody(body)), signedBody: body, accepted: false },
    ];
    for (const c of cases) {
      expect(weAccept(c.stamp, c.signedBody, authenticator.publicKey), `ours: ${c.name}`).toBe(c.accepted);
      expect(await libraryAccepts(c.stamp, c.signedBody, cose), `library: ${c.name}`).toBe(c.accepted);
    }
  });
});
