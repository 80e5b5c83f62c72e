/**
 * Known-answer tests of wallet derivation and address encoding against vectors published by
 * independent sources (test/vectors/wallets-*.json, each entry names its source).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ed25519 } from "@noble/curves/ed25519";
import { bech32m } from "@scure/base";
import { Address } from "@ton/core";
import { describe, expect, it } from "vitest";
import {
  deriveAccount,
  deriveHdKey,
  encodeAddress,
  parseDerivationPath,
} from "../../sdk/emulator/wallets";
import type { AddressFormat, Curve } from "../../sdk/wire/enums";

const vectorsDir = join(__dirname, "..", "vectors");
const load = <T>(name: string): T => JSON.parse(readFileSync(join(vectorsDir, name), "utf8")) as T;
const hex = (value: string): Uint8Array => Uint8Array.from(Buffer.from(value, "hex"));
const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

interface MnemonicVector {
  id: string;
  mnemonic: string;
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

const mnemonicVectors = load<{ vectors: MnemonicVector[] }>("wallets-mnemonic-addresses.json").vectors;
const pubkeyFile = load<{ vectors: PubkeyVector[]; roundTrips: { id: string; addressFormat: AddressFormat; address: string }[] }>(
  "wallets-pubkey-addresses.json",
);
const slip10 = load<{ vectors: Slip10Vector[] }>("wallets-slip10.json").vectors;

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
    const account = deriveAccount({
      mnemonic: vector.mnemonic,
      curve: vector.curve,
      pathFormat: "PATH_FORMAT_BIP32",
      path: vector.path,
      addressFormat: vector.addressFormat,
    });
    expect(account.address).toBe(vector.address);
    if (vector.publicKey) expect(account.publicKey).toBe(vector.publicKey);
  });

  it("every vector names its source", () => {
    for (const vector of [...mnemonicVectors, ...pubkeyFile.vectors]) expect(vector.source.length).toBeGreaterThan(10);
  });
});

describe("public key -> address vectors", () => {
  it.each(pubkeyFile.vectors.map((v) => [v.id, v] as const))("%s", (_id, vector) => {
    const publicKey = vector.publicKey
      ? hex(vector.publicKey)
      : vector.publicKeyBase64
        ? Uint8Array.from(Buffer.from(vector.publicKeyBase64, "base64"))
        : ed25519.getPublicKey(hex(vector.privateKey as string));
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
