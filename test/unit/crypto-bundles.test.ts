import { describe, expect, it } from "vitest";
import {
  decryptCredentialBundle as officialDecryptCredentialBundle,
  decryptExportBundle as officialDecryptExportBundle,
  hpkeDecrypt as officialHpkeDecrypt,
  hpkeEncrypt as officialHpkeEncrypt,
} from "@turnkey/crypto";
import { hpkeDecrypt, hpkeEncrypt } from "../../sdk/crypto/hpke";
import {
  decryptCredentialBundle,
  decryptExportBundle,
  encryptCredentialBundle,
  encryptExportBundle,
} from "../../sdk/crypto/bundles";
import { generateP256KeyPair } from "../../sdk/crypto/p256";
import { bytesToHex, hexToBytes, utf8 } from "../../sdk/crypto/encoding";
import { CryptoError } from "../../sdk/crypto/errors";

const ORG = "7a1a1a1a-0000-4000-8000-000000000001";

describe("hpke", () => {
  it("interoperates with the official implementation in both directions", () => {
    const recipient = generateP256KeyPair();
    const message = utf8("hello from the enclave");

    const ours = hpkeEncrypt({ plaintext: message, targetPublicKeyHex: recipient.publicKeyUncompressed });
    const officialOpened = officialHpkeDecrypt({
      ciphertextBuf: ours.ciphertext,
      encappedKeyBuf: ours.encappedPublicKey,
      receiverPriv: recipient.privateKey,
    });
    expect(bytesToHex(officialOpened)).toBe(bytesToHex(message));

    const theirs = officialHpkeEncrypt({ plainTextBuf: message, targetKeyBuf: hexToBytes(recipient.publicKeyUncompressed) });
    // Official output: compressed encapsulated key (33 bytes) || ciphertext.
    const opened = hpkeDecrypt({
      encappedPublicKey: theirs.subarray(0, 33),
      ciphertext: theirs.subarray(33),
      privateKeyHex: recipient.privateKey,
    });
    expect(bytesToHex(opened)).toBe(bytesToHex(message));
  });

  it("accepts a compressed target key and refuses a wrong key or a flipped bit", () => {
    const recipient = generateP256KeyPair();
    const sealed = hpkeEncrypt({ plaintext: utf8("x"), targetPublicKeyHex: recipient.publicKey });
    expect(sealed.encappedPublicKey.length).toBe(65);
    expect(bytesToHex(hpkeDecrypt({ ...sealed, privateKeyHex: recipient.privateKey }))).toBe("78");

    expect(() => hpkeDecrypt({ ...sealed, privateKeyHex: generateP256KeyPair().privateKey })).toThrow(CryptoError);
    const tampered = new Uint8Array(sealed.ciphertext);
    tampered[0] = (tampered[0] as number) ^ 1;
    expect(() => hpkeDecrypt({ ...sealed, ciphertext: tampered, privateKeyHex: recipient.privateKey })).toThrow(
      /does not authenticate/,
    );
  });

  it("names the bad argument and never echoes a private key", () => {
    expect(() => hpkeEncrypt({ plaintext: utf8("x"), targetPublicKeyHex: "04abcd" })).toThrow(/targetPublicKeyHex/);
    const badKey = "ff".repeat(32); // above the curve order
    try {
      hpkeDecrypt({ ciphertext: new Uint8Array(40), encappedPublicKey: generateP256KeyPair().publicKey, privateKeyHex: badKey });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toMatch(/privateKeyHex/);
      expect((error as Error).message).not.toContain(badKey);
    }
  });
});

describe("credential bundle", () => {
  it("decrypts with the official decryptCredentialBundle to the same private key", () => {
    const embedded = generateP256KeyPair(); // the client's target key
    const apiKey = generateP256KeyPair(); // what otp_auth delivers
    for (const target of [embedded.publicKeyUncompressed, embedded.publicKey]) {
      const bundle = encryptCredentialBundle(apiKey.privateKey, target);
      expect(officialDecryptCredentialBundle(bundle, embedded.privateKey)).toBe(apiKey.privateKey);
      expect(decryptCredentialBundle(bundle, embedded.privateKey)).toBe(apiKey.privateKey);
    }
  });

  it("refuses a wrong recipient key and a corrupted checksum", () => {
    const embedded = generateP256KeyPair();
    const bundle = encryptCredentialBundle(generateP256KeyPair().privateKey, embedded.publicKey);
    expect(() => decryptCredentialBundle(bundle, generateP256KeyPair().privateKey)).toThrow(CryptoError);
    const last = bundle.at(-1) === "1" ? "2" : "1";
    expect(() => decryptCredentialBundle(bundle.slice(0, -1) + last, embedded.privateKey)).toThrow(/base58check/);
  });
});

describe("export bundle", () => {
  const signer = generateP256KeyPair();

  it("decrypts with the official decryptExportBundle (signer override) to the same key", async () => {
    const embedded = generateP256KeyPair();
    const exported = generateP256KeyPair();
    const exportBundle = encryptExportBundle({
      plaintext: hexToBytes(exported.privateKey),
      targetPublicKeyHex: embedded.publicKeyUncompressed,
      organizationId: ORG,
      signerPrivateKeyHex: signer.privateKey,
    });
    const envelope = JSON.parse(exportBundle) as Record<string, string>;
    expect(Object.keys(envelope)).toEqual(["version", "data", "dataSignature", "enclaveQuorumPublic"]);
    expect(envelope.enclaveQuorumPublic).toBe(signer.publicKeyUncompressed);

    const official = await officialDecryptExportBundle({
      exportBundle,
      embeddedKey: embedded.privateKey,
      organizationId: ORG,
      dangerouslyOverrideSignerPublicKey: signer.publicKeyUncompressed,
      returnMnemonic: false,
    });
    expect(official).toBe(exported.privateKey);

    const ours = decryptExportBundle({
      exportBundle,
      privateKeyHex: embedded.privateKey,
      organizationId: ORG,
      signerPublicKeyHex: signer.publicKey,
    });
    expect(bytesToHex(ours)).toBe(exported.privateKey);
  });

  it("carries a mnemonic that the official code returns as text", async () => {
    const embedded = generateP256KeyPair();
    const mnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
    const exportBundle = encryptExportBundle({
      plaintext: utf8(mnemonic),
      targetPublicKeyHex: embedded.publicKey,
      organizationId: ORG,
      signerPrivateKeyHex: signer.privateKey,
    });
    const official = await officialDecryptExportBundle({
      exportBundle,
      embeddedKey: embedded.privateKey,
      organizationId: ORG,
      dangerouslyOverrideSignerPublicKey: signer.publicKeyUncompressed,
      returnMnemonic: true,
    });
    expect(official).toBe(mnemonic);
  });

  it("is refused when signed by another key, forged, or bound to another organization", async () => {
    const embedded = generateP256KeyPair();
    const other = generateP256KeyPair();
    const params = {
      plaintext: hexToBytes(generateP256KeyPair().privateKey),
      targetPublicKeyHex: embedded.publicKeyUncompressed,
      organizationId: ORG,
    };
    const official = (exportBundle: string, organizationId = ORG) =>
      officialDecryptExportBundle({
        exportBundle,
        embeddedKey: embedded.privateKey,
        organizationId,
        dangerouslyOverrideSignerPublicKey: signer.publicKeyUncompressed,
        returnMnemonic: false,
      });
    const ours = (exportBundle: string, organizationId = ORG) =>
      decryptExportBundle({ exportBundle, privateKeyHex: embedded.privateKey, organizationId, signerPublicKeyHex: signer.publicKeyUncompressed });

    // Signed by a different key, which it names honestly.
    const byOther = encryptExportBundle({ ...params, signerPrivateKeyHex: other.privateKey });
    await expect(official(byOther)).rejects.toThrow(/does not match signer key/);
    expect(() => ours(byOther)).toThrow(/untrusted key/);

    // Signed by a different key but claiming to be the trusted signer.
    const forged = JSON.stringify({ ...JSON.parse(byOther), enclaveQuorumPublic: signer.publicKeyUncompressed });
    await expect(official(forged)).rejects.toThrow(/failed to verify enclave signature/);
    expect(() => ours(forged)).toThrow(/dataSignature does not verify/);

    const good = encryptExportBundle({ ...params, signerPrivateKeyHex: signer.privateKey });
    await expect(official(good, "another-org")).rejects.toThrow(/organization id does not match/);
    expect(() => ours(good, "another-org")).toThrow(/different organization/);
  });
});
