/**
 * Cross-checks against other implementations that back up the published vectors (and stand in
 * for the few formats that have none; see test/vectors/wallets-cross-consistency.json), and the
 * default account table checked against the defaults the service's own SDK publishes.
 */
import { secp256k1 } from "@noble/curves/secp256k1";
import { base58, bech32 } from "@scure/base";
import * as btc from "@scure/btc-signer";
import { addressFormatConfig } from "@turnkey/sdk-server";
import { describe, expect, it } from "vitest";
import {
  caip2PrefixFor,
  DEFAULT_ACCOUNTS,
  defaultAccount,
  deriveAccount,
  deriveHdKey,
  encodeAddress,
  mnemonicToSeed,
  parseDerivationPath,
} from "../../sdk/emulator/wallets";
import { ADDRESS_FORMATS, BITCOIN_ADDRESS_FORMATS, type AddressFormat } from "../../sdk/wire/enums";

const MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const seed = mnemonicToSeed(MNEMONIC);
const keyAt = (path: string) => deriveHdKey(seed, "CURVE_SECP256K1", parseDerivationPath(path));

const REGTEST = { ...btc.TEST_NETWORK, bech32: "bcrt" };
const NETWORKS = { MAINNET: btc.NETWORK, TESTNET: btc.TEST_NETWORK, SIGNET: btc.TEST_NETWORK, REGTEST };

function reference(pub: Uint8Array, network: keyof typeof NETWORKS, script: string): string | undefined {
  const net = NETWORKS[network];
  switch (script) {
    case "P2PKH":
      return btc.p2pkh(pub, net).address;
    case "P2SH":
      return btc.p2sh(btc.p2wpkh(pub, net), net).address;
    case "P2WPKH":
      return btc.p2wpkh(pub, net).address;
    case "P2WSH":
      return btc.p2wsh(btc.p2pk(pub, net), net).address;
    case "P2TR":
      return btc.p2tr(pub.slice(1), undefined, net).address;
  }
  return undefined;
}

describe("Bitcoin formats agree with @scure/btc-signer", () => {
  const paths = ["m/44'/0'/0'/0/0", "m/84'/1'/0'/0/3", "m/86'/1'/7'/1/0", "m/48'/0'/0'/2'/0/0"];
  it.each(BITCOIN_ADDRESS_FORMATS.map((f) => [f]))("%s", (format) => {
    const [, network, script] = /^ADDRESS_FORMAT_BITCOIN_([A-Z]+)_([A-Z0-9]+)$/u.exec(format) as RegExpExecArray;
    for (const path of paths) {
      const key = keyAt(path);
      const expected = reference(key.publicKey, network as keyof typeof NETWORKS, script as string);
      expect(expected).toBeTruthy();
      expect(encodeAddress(key.publicKey, "CURVE_SECP256K1", format)).toBe(expected);
    }
  });

  it("uses the right prefixes per network", () => {
    const pub = keyAt("m/84'/1'/0'/0/0").publicKey;
    expect(encodeAddress(pub, "CURVE_SECP256K1", "ADDRESS_FORMAT_BITCOIN_REGTEST_P2WPKH")).toMatch(/^bcrt1q/u);
    expect(encodeAddress(pub, "CURVE_SECP256K1", "ADDRESS_FORMAT_BITCOIN_SIGNET_P2TR")).toMatch(/^tb1p/u);
    expect(encodeAddress(pub, "CURVE_SECP256K1", "ADDRESS_FORMAT_BITCOIN_TESTNET_P2PKH")).toMatch(/^[mn]/u);
    expect(encodeAddress(pub, "CURVE_SECP256K1", "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WSH")).toMatch(/^bc1q.{58}$/u);
  });
});

describe("formats derived from a vectored sibling", () => {
  it("SEI carries the same account bytes as COSMOS under HRP sei", () => {
    const params = { mnemonic: MNEMONIC, curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/118'/0'/0/0" } as const;
    const sei = deriveAccount({ ...params, addressFormat: "ADDRESS_FORMAT_SEI" }).address;
    const cosmos = bech32.decode("cosmos19rl4cm2hmr8afy4kldpxz3fka4jguq0auqdal4");
    const decoded = bech32.decode(sei as `${string}1${string}`);
    expect(decoded.prefix).toBe("sei");
    expect(decoded.words).toEqual(cosmos.words);
  });

  it("DOGE_TESTNET has version 0x71 and the mainnet vector's HASH160", () => {
    const params = { mnemonic: MNEMONIC, curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/3'/0'/0/0" } as const;
    const testnet = base58.decode(deriveAccount({ ...params, addressFormat: "ADDRESS_FORMAT_DOGE_TESTNET" }).address);
    const mainnet = base58.decode("DBus3bamQjgJULBJtYXpEzDWQRwF5iwxgC");
    expect(testnet[0]).toBe(0x71);
    expect(mainnet[0]).toBe(0x1e);
    expect(testnet.slice(1, 21)).toEqual(mainnet.slice(1, 21));
  });

  it("COMPRESSED / UNCOMPRESSED are the SEC1 forms of the derived key", () => {
    const key = keyAt("m/44'/60'/0'/0/0");
    expect(encodeAddress(key.publicKey, "CURVE_SECP256K1", "ADDRESS_FORMAT_COMPRESSED")).toBe(
      Buffer.from(secp256k1.getPublicKey(key.privateKey, true)).toString("hex"),
    );
    expect(encodeAddress(key.publicKey, "CURVE_SECP256K1", "ADDRESS_FORMAT_UNCOMPRESSED")).toBe(
      Buffer.from(secp256k1.getPublicKey(key.privateKey, false)).toString("hex"),
    );
  });
});

describe("defaults", () => {
  const sdkDefaults = addressFormatConfig as Record<string, { defaultAccounts: { curve: string; pathFormat: string; path: string }[] | null }>;

  it("has a default for every format of spec 2.9, and it derives", () => {
    expect(Object.keys(DEFAULT_ACCOUNTS).sort()).toEqual([...ADDRESS_FORMATS].sort());
    for (const format of ADDRESS_FORMATS) {
      const params = DEFAULT_ACCOUNTS[format];
      expect(params.addressFormat).toBe(format);
      expect(deriveAccount({ seed, ...params }).address.length).toBeGreaterThan(20);
    }
  });

  it("equals the service SDK's published defaults wherever it publishes one", () => {
    let compared = 0;
    for (const format of ADDRESS_FORMATS) {
      const published = sdkDefaults[format]?.defaultAccounts?.[0];
      if (!published) continue;
      const { curve, pathFormat, path } = DEFAULT_ACCOUNTS[format];
      expect({ curve, pathFormat, path }, format).toEqual({ curve: published.curve, pathFormat: published.pathFormat, path: published.path });
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(34);
  });

  it("places the account index at the third level", () => {
    expect(defaultAccount("ADDRESS_FORMAT_ETHEREUM", 3).path).toBe("m/44'/60'/3'/0/0");
    expect(defaultAccount("ADDRESS_FORMAT_SOLANA", 2)).toEqual({
      curve: "CURVE_ED25519",
      pathFormat: "PATH_FORMAT_BIP32",
      path: "m/44'/501'/2'/0'",
      addressFormat: "ADDRESS_FORMAT_SOLANA",
    });
    expect(() => defaultAccount("ADDRESS_FORMAT_ETHEREUM", -1)).toThrow(RangeError);
  });

  it("gives CAIP-2 namespaces to chain formats", () => {
    const expected: Partial<Record<AddressFormat, string | undefined>> = {
      ADDRESS_FORMAT_ETHEREUM: "eip155",
      ADDRESS_FORMAT_SOLANA: "solana",
      ADDRESS_FORMAT_BITCOIN_REGTEST_P2TR: "bip122",
      ADDRESS_FORMAT_TON_V5R1: "ton",
      ADDRESS_FORMAT_COMPRESSED: undefined,
    };
    for (const [format, prefix] of Object.entries(expected)) expect(caip2PrefixFor(format as AddressFormat)).toBe(prefix);
  });
});
