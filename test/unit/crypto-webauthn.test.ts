import { createPublicKey, createVerify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256 } from "@noble/hashes/sha2";
import { decodeCbor, encodeCbor } from "../../sdk/crypto/cbor";
import {
  WEBAUTHN_STAMP_HEADER,
  parseWebAuthnRegistration,
  parseWebAuthnStamp,
  verifyWebAuthnStamp,
  type WebAuthnStamp,
} from "../../sdk/crypto/webauthn";
import { base64UrlDecode, base64UrlEncode, bytesToHex, concatBytes, hexToBytes, utf8 } from "../../sdk/crypto/encoding";
import { CryptoError } from "../../sdk/crypto/errors";
import { SimulatedAuthenticator } from "../support/simulated-authenticator";

const BODY = JSON.stringify({
  type: "ACTIVITY_TYPE_CREATE_USER_TAG",
  timestampMs: "1700000000000",
  organizationId: "org-1",
  parameters: { userTagName: "admins", userIds: [] },
});

describe("cbor", () => {
  it("round-trips the WebAuthn subset and rejects what it does not support", () => {
    const value = new Map<unknown, unknown>([
      [1, 2],
      [-7, -300],
      ["k", [true, false, null, "é", new Uint8Array([1, 2, 3])]],
      [70000, 4294967295],
    ]);
    const decoded = decodeCbor(encodeCbor(value as never));
    expect(decoded).toEqual(value);
    expect(bytesToHex(encodeCbor(-7))).toBe("26");
    expect(bytesToHex(encodeCbor(new Uint8Array(24)))).toBe("5818" + "00".repeat(24));
    expect(() => decodeCbor(hexToBytes("f93c00"))).toThrow(/floats/); // half-precision 1.0
    expect(() => decodeCbor(hexToBytes("9f01ff"))).toThrow(/indefinite/);
    expect(() => decodeCbor(hexToBytes("5805"))).toThrow(/truncated/);
    expect(() => decodeCbor(hexToBytes("0101"))).toThrow(/trailing/);
    expect(() => decodeCbor(hexToBytes("a20101" + "0102"))).toThrow(/duplicate/);
  });
});

describe("WebAuthn registration", () => {
  it("parses the simulated attestation to the authenticator's public key", () => {
    const authenticator = new SimulatedAuthenticator({ rpId: "keyform.local" });
    const challenge = base64UrlEncode(utf8("registration-challenge"));
    const attestation = authenticator.register(challenge);
    expect(attestation.transports).toEqual(["AUTHENTICATOR_TRANSPORT_INTERNAL"]);

    const parsed = parseWebAuthnRegistration({
      ...attestation,
      expectedChallenge: challenge,
      expectedRpId: "keyform.local",
    });
    expect(parsed.publicKey).toBe(authenticator.publicKey);
    expect(parsed.publicKey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(parsed.publicKeyUncompressed).toBe(authenticator.publicKeyUncompressed);
    expect(parsed.credentialId).toBe(authenticator.credentialId);
    expect(parsed.fmt).toBe("none");
    expect(parsed.signCount).toBe(0);

    // The attestation object really is CBOR {fmt, attStmt, authData}.
    const object = decodeCbor(base64UrlDecode(attestation.attestationObject)) as Map<unknown, unknown>;
    expect([...object.keys()]).toEqual(["fmt", "attStmt", "authData"]);
  });

  it("refuses a wrong challenge, RP id, credential id, or ceremony type", () => {
    const authenticator = new SimulatedAuthenticator();
    const attestation = authenticator.register(new Uint8Array([1, 2, 3]));
    expect(() => parseWebAuthnRegistration({ ...attestation, expectedChallenge: base64UrlEncode(new Uint8Array([1, 2, 4])) })).toThrow(/challenge/);
    expect(() => parseWebAuthnRegistration({ ...attestation, expectedRpId: "evil.example" })).toThrow(/RP id/);
    expect(() => parseWebAuthnRegistration({ ...attestation, credentialId: new SimulatedAuthenticator().credentialId })).toThrow(/credentialId/);
    const assertion = authenticator.assert(new Uint8Array([1, 2, 3]));
    expect(() => parseWebAuthnRegistration({ ...attestation, clientDataJson: assertion.clientDataJson })).toThrow(/webauthn.create/);
  });

  it("refuses a COSE key that is not ES256 on P-256", () => {
    const authenticator = new SimulatedAuthenticator();
    const attestation = authenticator.register("abc");
    const object = decodeCbor(base64UrlDecode(attestation.attestationObject)) as Map<unknown, unknown>;
    const authData = object.get("authData") as Uint8Array;
    // COSE key starts after rpIdHash(32) flags(1) counter(4) aaguid(16) idLen(2) id(16).
    const coseStart = 32 + 1 + 4 + 16 + 2 + 16;
    const cose = decodeCbor(authData.subarray(coseStart)) as Map<unknown, unknown>;
    cose.set(3, -8); // EdDSA
    const badAuthData = concatBytes(authData.subarray(0, coseStart), encodeCbor(cose as never));
    const badObject = encodeCbor(new Map<unknown, unknown>([["fmt", "none"], ["attStmt", new Map()], ["authData", badAuthData]]) as never);
    expect(() => parseWebAuthnRegistration({ ...attestation, attestationObject: base64UrlEncode(badObject) })).toThrow(/ES256/);
  });
});

describe("WebAuthn stamp", () => {
  const authenticator = new SimulatedAuthenticator({ rpId: "keyform.local", origin: "https://keyform.local" });
  const { publicKey } = parseWebAuthnRegistration(authenticator.register("c2lnbnVw"));

  it("is plain JSON whose challenge is the hex SHA-256 of the body", () => {
    const header = authenticator.stamp(BODY);
    expect(header.name).toBe(WEBAUTHN_STAMP_HEADER);
    const stamp = parseWebAuthnStamp(header.value);
    expect(Object.keys(stamp)).toEqual(["authenticatorData", "clientDataJson", "credentialId", "signature"]);
    const clientData = JSON.parse(Buffer.from(base64UrlDecode(stamp.clientDataJson)).toString("utf8"));
    expect(clientData.type).toBe("webauthn.get");
    expect(Buffer.from(base64UrlDecode(clientData.challenge)).toString("utf8")).toBe(bytesToHex(sha256(utf8(BODY))));
  });

  it("verifies over the body, with a signature that node:crypto also accepts", () => {
    const before = authenticator.signCount;
    const header = authenticator.stamp(BODY);
    const result = verifyWebAuthnStamp({
      stamp: header.value,
      body: BODY,
      publicKeyHex: publicKey,
      expectedCredentialId: authenticator.credentialId,
      expectedRpId: "keyform.local",
      expectedOrigins: ["https://keyform.local"],
      requireUserVerification: true,
    });
    expect(result).toEqual({ credentialId: authenticator.credentialId, signCount: before + 1, userVerified: true });

    // Independent check of the signed bytes and DER encoding.
    const stamp = parseWebAuthnStamp(header.value);
    const point = hexToBytes(authenticator.publicKeyUncompressed);
    const key = createPublicKey({
      key: { kty: "EC", crv: "P-256", x: base64UrlEncode(point.subarray(1, 33)), y: base64UrlEncode(point.subarray(33)) },
      format: "jwk",
    });
    const verifier = createVerify("SHA256");
    verifier.update(concatBytes(base64UrlDecode(stamp.authenticatorData), sha256(base64UrlDecode(stamp.clientDataJson))));
    expect(verifier.verify(key, Buffer.from(base64UrlDecode(stamp.signature)))).toBe(true);
  });

  it("fails for a tampered body, another credential, or a tampered signature", () => {
    const value = authenticator.stamp(BODY).value;
    const base = { stamp: value, body: BODY, publicKeyHex: publicKey, expectedCredentialId: authenticator.credentialId };
    expect(() => verifyWebAuthnStamp({ ...base, body: BODY.replace("admins", "admin5") })).toThrow(/challenge/);

    const other = new SimulatedAuthenticator({ rpId: "keyform.local" });
    // Stamp by another credential, checked against the registered one.
    expect(() => verifyWebAuthnStamp({ ...base, stamp: other.stamp(BODY).value })).toThrow(/another credential/);
    // Right credential id, wrong key (or a key swap on the server side).
    expect(() => verifyWebAuthnStamp({ ...base, publicKeyHex: other.publicKey })).toThrow(/signature does not verify/);

    const stamp = parseWebAuthnStamp(value);
    const sig = base64UrlDecode(stamp.signature);
    for (const index of [8, sig.length - 1]) {
      const bad = new Uint8Array(sig);
      bad[index] = (bad[index] as number) ^ 0x01;
      const tampered: WebAuthnStamp = { ...stamp, signature: base64UrlEncode(bad) };
      expect(() => verifyWebAuthnStamp({ ...base, stamp: tampered })).toThrow(/signature/);
    }
    // Tampering the authenticator data (the counter) breaks the signature too.
    const authData = base64UrlDecode(stamp.authenticatorData);
    authData[36] = (authData[36] as number) ^ 0x01;
    expect(() => verifyWebAuthnStamp({ ...base, stamp: { ...stamp, authenticatorData: base64UrlEncode(authData) } })).toThrow(
      /signature does not verify/,
    );
  });

  it("checks RP id, origin, user presence and the header format", () => {
    const value = authenticator.stamp(BODY).value;
    const base = { stamp: value, body: BODY, publicKeyHex: publicKey };
    expect(() => verifyWebAuthnStamp({ ...base, expectedRpId: "other.local" })).toThrow(/RP id/);
    expect(() => verifyWebAuthnStamp({ ...base, expectedOrigins: ["https://other.local"] })).toThrow(/origin/);
    const lazy = new SimulatedAuthenticator({ userVerified: false });
    expect(() =>
      verifyWebAuthnStamp({ stamp: lazy.stamp(BODY).value, body: BODY, publicKeyHex: lazy.publicKey, requireUserVerification: true }),
    ).toThrow(/user-verified/);
    expect(() => parseWebAuthnStamp("not json")).toThrow(CryptoError);
    expect(() => parseWebAuthnStamp(JSON.stringify({ authenticatorData: "AA" }))).toThrow(/clientDataJson/);
  });
});
