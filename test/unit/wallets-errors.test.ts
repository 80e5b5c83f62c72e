/**
 * Rejections of wallet derivation: curve/format mismatches, bad paths, bad mnemonics and
 * mnemonic lengths. Each error names the offending field and never echoes a secret.
 */
import { describe, expect, it } from "vitest";
import {
  deriveAccount,
  deriveHdKey,
  encodeAddress,
  generateMnemonic,
  mnemonicToSeed,
  parseDerivationPath,
  WalletDerivationError,
  type DeriveAccountInput,
} from "../../sdk/emulator/wallets";
import { ADDRESS_FORMATS, type AddressFormat, type Curve } from "../../sdk/wire/enums";

const MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

function failure(fn: () => unknown): WalletDerivationError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(WalletDerivationError);
    return error as WalletDerivationError;
  }
  throw new Error("expected a WalletDerivationError");
}

function input(overrides: Partial<DeriveAccountInput>): DeriveAccountInput {
  return {
    mnemonic: MNEMONIC,
    curve: "CURVE_SECP256K1",
    pathFormat: "PATH_FORMAT_BIP32",
    path: "m/44'/60'/0'/0/0",
    addressFormat: "ADDRESS_FORMAT_ETHEREUM",
    ...overrides,
  } as DeriveAccountInput;
}

describe("curve / address format mismatches", () => {
  const mismatches: [AddressFormat, Curve][] = [
    ["ADDRESS_FORMAT_SOLANA", "CURVE_SECP256K1"],
    ["ADDRESS_FORMAT_ETHEREUM", "CURVE_ED25519"],
    ["ADDRESS_FORMAT_ETHEREUM", "CURVE_P256"],
    ["ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR", "CURVE_ED25519"],
    ["ADDRESS_FORMAT_TON_V5R1", "CURVE_SECP256K1"],
    ["ADDRESS_FORMAT_UNCOMPRESSED", "CURVE_ED25519"],
    ["ADDRESS_FORMAT_APTOS", "CURVE_P256"],
    ["ADDRESS_FORMAT_SPARK_MAINNET", "CURVE_ED25519"],
  ];
  it.each(mismatches)("%s on %s names addressFormat and curve", (addressFormat, curve) => {
    const error = failure(() => deriveAccount(input({ addressFormat, curve, path: "m/44'/0'/0'" })));
    expect(error.field).toBe("addressFormat");
    expect(error.message).toContain("addressFormat");
    expect(error.message).toContain(addressFormat);
    expect(error.message).toContain("curve");
    expect(error.message).toContain(curve);
  });

  it("every format of spec 2.9 accepts at least one curve and rejects the others by name", () => {
    const curves: Curve[] = ["CURVE_SECP256K1", "CURVE_ED25519", "CURVE_P256"];
    const key: Record<Curve, Uint8Array> = {
      CURVE_SECP256K1: Uint8Array.from(Buffer.from("0339a36013301597daef41fbe593a02cc513d0b55527ec2df1050e2e8ff49c85c2", "hex")),
      CURVE_P256: Uint8Array.from(Buffer.from("0266874dc6ade47b3ecd096745ca09bcd29638dd52c2c12117b11ed3e458cfa9e8", "hex")),
      CURVE_ED25519: Uint8Array.from(Buffer.from("a4b2856bfec510abab89753fac1ac0e1112364e7d250545963f135f2a33188ed", "hex")),
    };
    expect(ADDRESS_FORMATS).toHaveLength(38);
    for (const format of ADDRESS_FORMATS) {
      let accepted = 0;
      for (const curve of curves) {
        try {
          expect(encodeAddress(key[curve], curve, format).length).toBeGreaterThan(0);
          accepted++;
        } catch (error) {
          expect((error as WalletDerivationError).field).toBe("addressFormat");
        }
      }
      expect(accepted, format).toBeGreaterThan(0);
    }
  });

  it("an unknown format or curve is named", () => {
    expect(failure(() => deriveAccount(input({ addressFormat: "ADDRESS_FORMAT_DOGE" as AddressFormat }))).field).toBe("addressFormat");
    expect(failure(() => deriveAccount(input({ curve: "CURVE_SECP256R1" as Curve }))).field).toBe("curve");
    expect(failure(() => deriveAccount(input({ pathFormat: "PATH_FORMAT_SLIP10" as "PATH_FORMAT_BIP32" }))).field).toBe("pathFormat");
  });
});

describe("paths", () => {
  it("parses hardened markers ' h H", () => {
    expect(parseDerivationPath("m/44'/60h/0H/0/7")).toEqual([0x8000002c, 0x8000003c, 0x80000000, 0, 7]);
    expect(parseDerivationPath("m")).toEqual([]);
  });

  it.each([
    ["", /non-empty/],
    ["44'/60'/0'", /start with "m"/],
    ["M/44'", /start with "m"/],
    ["m/44'//0", /segment 2/],
    ["m/44'/x", /segment 2/],
    ["m/-1", /segment 1/],
    ["m/01", /segment 1/],
    ["m/2147483648", /maximum index/],
    ["m/44''", /segment 1/],
    ["m/44'/", /segment 2/],
  ])("rejects %j", (path, pattern) => {
    const error = failure(() => parseDerivationPath(path));
    expect(error.field).toBe("path");
    expect(error.message).toMatch(pattern);
  });

  it("rejects a non-hardened ed25519 path, naming the segment", () => {
    const error = failure(() =>
      deriveAccount(input({ curve: "CURVE_ED25519", addressFormat: "ADDRESS_FORMAT_SOLANA", path: "m/44'/501'/0'/0" })),
    );
    expect(error.field).toBe("path");
    expect(error.message).toMatch(/segment 4.*not hardened.*CURVE_ED25519/u);
    expect(failure(() => deriveHdKey(new Uint8Array(32), "CURVE_ED25519", [1])).field).toBe("path");
  });

  it("accepts non-hardened segments on secp256k1 and P-256", () => {
    expect(deriveAccount(input({ path: "m/0/1/2" })).address).toMatch(/^0x[0-9a-fA-F]{40}$/u);
    const p256 = deriveAccount(input({ curve: "CURVE_P256", addressFormat: "ADDRESS_FORMAT_SUI", path: "m/74'/784'/0'/0/0" }));
    expect(p256.address).toMatch(/^0x[0-9a-f]{64}$/u);
  });
});

describe("mnemonics and seeds", () => {
  it.each([12, 15, 18, 21, 24])("generates valid %i-word mnemonics", (words) => {
    const mnemonic = generateMnemonic(words);
    expect(mnemonic.split(" ")).toHaveLength(words);
    expect(mnemonicToSeed(mnemonic)).toHaveLength(64);
    expect(generateMnemonic(words)).not.toBe(mnemonic);
  });

  it.each([0, 11, 13, 25, 12.5, Number.NaN])("rejects mnemonicLength %s with a RangeError naming it", (words) => {
    expect(() => generateMnemonic(words)).toThrow(RangeError);
    expect(() => generateMnemonic(words)).toThrow(/mnemonicLength/u);
  });

  it("matches the BIP-39 seed of the test mnemonic (passphrase TREZOR, trezor/python-mnemonic vectors.json)", () => {
    expect(Buffer.from(mnemonicToSeed(MNEMONIC, "TREZOR")).toString("hex")).toBe(
      "c55257c360c07c72029aebc1b53c05ed0362ada38ead3e3e9efa3708e53495531f09a6987599d18264c1e1c92f2cf141630c7a3c4ab7c81b2f001698e7463b04",
    );
    expect(mnemonicToSeed(`  ${MNEMONIC.replace(/ /gu, "   ")} `)).toEqual(mnemonicToSeed(MNEMONIC));
  });

  it("rejects a bad mnemonic without echoing it", () => {
    const bad = MNEMONIC.replace("about", "abandon");
    const error = failure(() => deriveAccount(input({ mnemonic: bad })));
    expect(error.field).toBe("mnemonic");
    expect(error.message).not.toContain("abandon");
  });

  it("needs exactly one of mnemonic and seed; rejects malformed seeds", () => {
    expect(failure(() => deriveAccount(input({ seed: "00".repeat(32) } as Partial<DeriveAccountInput>))).field).toBe("mnemonic");
    expect(failure(() => deriveAccount(input({ mnemonic: undefined, seed: "xyz" } as Partial<DeriveAccountInput>))).field).toBe("seed");
    expect(failure(() => deriveAccount(input({ mnemonic: undefined, seed: "00".repeat(8) } as Partial<DeriveAccountInput>))).field).toBe("seed");
  });

  it("keeps the private key out of JSON and spreads but readable", () => {
    const account = deriveAccount(input({}));
    expect(account.privateKey).toBe("1ab42cc412b618bdea3a599e3c9bae199ebf030895b039e9db1e30dafb12b727");
    expect(JSON.stringify(account)).not.toContain(account.privateKey);
    expect({ ...account }).not.toHaveProperty("privateKey");
    expect(account.caip2Prefix).toBe("eip155");
  });

  it("rejects an off-curve public key when encoding", () => {
    expect(failure(() => encodeAddress(Uint8Array.of(2, ...new Uint8Array(32).fill(0xff)), "CURVE_SECP256K1", "ADDRESS_FORMAT_ETHEREUM")).field).toBe("publicKey");
    expect(failure(() => encodeAddress(new Uint8Array(31), "CURVE_ED25519", "ADDRESS_FORMAT_SOLANA")).field).toBe("publicKey");
  });
});
