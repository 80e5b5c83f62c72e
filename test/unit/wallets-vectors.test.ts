/**
 * Known-answer tests of wallet derivation and address encoding against vectors published by
 * independent sources (test/vectors/wallets-*.json, each entry names its source).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ed25519 } from "@noble/curves/ed25519";
import { p256 } from "@noble/curves/nist";
import { secp256k1 } from "@noble/curves/secp256k1";
import { bech32m } from "@scure/base";
import { Address } from "@ton/core";
import { describe, expect, it } from "vitest";
import {
  deriveAccount,
  deriveHdKey,
  encodeAddress,
  mnemonicToSeed,
  parseDerivationPath,
} from "../../sdk/emulator/wallets";
import { ADDRESS_FORMATS, type AddressFormat, type Curve } from "../../sdk/wire/enums";

const vectorsDir = join(__dirname, "..", "vectors");
const load = <T>(name: string): T => JSON.parse(readFileSync(join(vectorsDir, name), "utf8")) as T;
const hex = (value: string): Uint8Array => Uint8Array.from(Buffer.from(value, "hex"));
const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

/** A wallet secret is either a BIP-39 mnemonic or, as some sources publish it, the BIP-39 seed. */
interface MnemonicVector {
  id: string;
  mnemonic?: string;
  seed?: string;
  curve: Curve;
  path: string;
  addressFormat: AddressFormat;
  address: string;
  publicKey?: string;
  source: string;
}
interface PubkeyVector {
  id: string;
  curve: Curve;
  publicKey?: string;
  publicKeyBase64?: string;
  privateKey?: string;
  addressFormat: AddressFormat;
  address: string;
  compare: "exact" | "ton-hash";
  source: string;
}
interface Slip10Vector {
  name: string;
  curve: Curve;
  seed: string;
  path: string;
  privateKey: string;
  publicKey: string;
}

const mnemonicFile = load<{ bip39TestMnemonic: string; bip39TestSeed: string; vectors: MnemonicVector[] }>(
  "wallets-mnemonic-addresses.json",
);
const mnemonicVectors = mnemonicFile.vectors;
const crossConsistency = load<{ withoutVector: AddressFormat[] }>("wallets-cross-consistency.json");
const pubkeyFile = load<{ vectors: PubkeyVector[]; roundTrips: { id: string; addressFormat: AddressFormat; address: string }[] }>(
  "wallets-pubkey-addresses.json",
);
const slip10 = load<{ vectors: Slip10Vector[] }>("wallets-slip10.json").vectors;

/** Public key in the form `encodeAddress` takes (compressed SEC1, or raw ed25519) of a published private key. */
function publicKeyOf(privateKey: Uint8Array, curve: Curve): Uint8Array {
  if (curve === "CURVE_ED25519") return ed25519.getPublicKey(privateKey);
  return (curve === "CURVE_P256" ? p256 : secp256k1).getPublicKey(privateKey, true);
}

describe("SLIP-10 / BIP-32 derivation vectors", () => {
  it.each(slip10.map((v) => [v.name, v] as const))("%s", (_name, vector) => {
    const key = deriveHdKey(hex(vector.seed), vector.curve, parseDerivationPath(vector.path));
    expect(toHex(key.privateKey)).toBe(vector.privateKey);
    expect(toHex(key.publicKey)).toBe(vector.publicKey);
  });

  it("covers all three curves, including both P-256 retry rules", () => {
    const names = slip10.map((v) => v.name);
    expect(new Set(slip10.map((v) => v.curve))).toEqual(new Set(["CURVE_SECP256K1", "CURVE_P256", "CURVE_ED25519"]));
    expect(names.some((n) => n.includes("derivation retry"))).toBe(true);
    expect(names.some((n) => n.includes("seed retry"))).toBe(true);
  });
});

describe("mnemonic -> address vectors", () => {
  it.each(mnemonicVectors.map((v) => [v.id, v] as const))("%s", (_id, vector) => {
    const params = { curve: vector.curve, pathFormat: "PATH_FORMAT_BIP32", path: vector.path, addressFormat: vector.addressFormat } as const;
    const account = vector.seed !== undefined ? deriveAccount({ ...params, seed: vector.seed }) : deriveAccount({ ...params, mnemonic: vector.mnemonic as string });
    expect(account.address).toBe(vector.address);
    if (vector.publicKey) expect(account.publicKey).toBe(vector.publicKey);
  });

  it("every vector names its source and exactly one wallet secret", () => {
    for (const vector of [...mnemonicVectors, ...pubkeyFile.vectors]) expect(vector.source.length, vector.id).toBeGreaterThan(10);
    for (const vector of mnemonicVectors) expect((vector.mnemonic === undefined) !== (vector.seed === undefined), vector.id).toBe(true);
  });

  it("the seed-based vectors share the BIP-39 test mnemonic's seed", () => {
    // bip_utils publishes its vectors for this seed; the BIP-84 vectors tie the mnemonic to the same root key.
    expect(Buffer.from(mnemonicToSeed(mnemonicFile.bip39TestMnemonic)).toString("hex")).toBe(mnemonicFile.bip39TestSeed);
  });
});

describe("public key -> address vectors", () => {
  it.each(pubkeyFile.vectors.map((v) => [v.id, v] as const))("%s", (_id, vector) => {
    const publicKey = vector.publicKey
      ? hex(vector.publicKey)
      : vector.publicKeyBase64
        ? Uint8Array.from(Buffer.from(vector.publicKeyBase64, "base64"))
        : publicKeyOf(hex(vector.privateKey as string), vector.curve);
    const address = encodeAddress(publicKey, vector.curve, vector.addressFormat);
    if (vector.compare === "ton-hash") {
      // The source shows the bounceable form; ours is non-bounceable: same account, other flag.
      expect(Address.parse(address).equals(Address.parse(vector.address))).toBe(true);
      expect(address.startsWith("UQ")).toBe(true);
    } else {
      expect(address).toBe(vector.address);
    }
  });

  it.each(pubkeyFile.roundTrips.map((v) => [v.id, v] as const))("round trip %s", (_id, vector) => {
    const decoded = bech32m.decode(vector.address as `${string}1${string}`, 200);
    const payload = bech32m.fromWords(decoded.words);
    expect([payload[0], payload[1]]).toEqual([0x0a, 33]);
    expect(encodeAddress(payload.slice(2), "CURVE_SECP256K1", vector.addressFormat)).toBe(vector.address);
  });
});

describe("coverage of the address formats", () => {
  const vectored = new Set<AddressFormat>([
    ...mnemonicVectors.map((v) => v.addressFormat),
    ...pubkeyFile.vectors.map((v) => v.addressFormat),
  ]);

  it("every format has an independent vector, except the ones wallets-cross-consistency.json lists", () => {
    const missing = ADDRESS_FORMATS.filter((format) => !vectored.has(format));
    expect(missing.sort()).toEqual([...crossConsistency.withoutVector].sort());
  });

  it("the formats without a vector equal their testnet counterparts (signet shares testnet's encodings)", () => {
    const key = deriveHdKey(mnemonicToSeed(mnemonicFile.bip39TestMnemonic), "CURVE_SECP256K1", parseDerivationPath("m/84'/1'/0'/0/0"));
    for (const format of crossConsistency.withoutVector) {
      expect(format).toMatch(/^ADDRESS_FORMAT_BITCOIN_SIGNET_/u);
      const testnet = format.replace("_SIGNET_", "_TESTNET_") as AddressFormat;
      expect(vectored.has(testnet), testnet).toBe(true);
      expect(encodeAddress(key.publicKey, "CURVE_SECP256K1", format)).toBe(encodeAddress(key.publicKey, "CURVE_SECP256K1", testnet));
    }
  });
});
