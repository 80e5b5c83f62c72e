/**
 * Wallets over real HTTP: creation with every address format, the format/curve rule, account
 * name uniqueness, get_wallets / get_wallet / get_organization, list_wallet_accounts paging,
 * and export_wallet_account bundles that the official @turnkey/crypto decrypts to the key
 * that derives the account's address.
 */
import { decryptExportBundle as officialDecryptExportBundle } from "@turnkey/crypto";
import { ed25519 } from "@noble/curves/ed25519";
import { p256 } from "@noble/curves/nist";
import { secp256k1 } from "@noble/curves/secp256k1";
import { hexToBytes } from "@noble/hashes/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateP256KeyPair } from "../../sdk/crypto";
import { defaultAccount, encodeAddress } from "../../sdk/emulator/wallets";
import { ADDRESS_FORMATS, type AddressFormat, type Curve } from "../../sdk/wire/enums";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { envelope, post, rootStamper } from "./raw";

let t: TestEmulator;
let orgId: string;

beforeAll(async () => {
  t = await startTestEmulator();
  orgId = t.emulator.bootstrap.organizationId;
});
afterAll(async () => {
  await t?.stop();
});

async function submit(type: string, name: string, parameters: unknown) {
  return post(t.emulator.url, `/public/v1/submit/${name}`, envelope(type, orgId, parameters), rootStamper(t.emulator.bootstrap));
}

async function query(name: string, body: Record<string, unknown>) {
  return post(t.emulator.url, `/public/v1/query/${name}`, { organizationId: orgId, ...body }, rootStamper(t.emulator.bootstrap));
}

function publicKeyOf(privateKeyHex: string, curve: Curve): Uint8Array {
  const secret = hexToBytes(privateKeyHex);
  if (curve === "CURVE_ED25519") return ed25519.getPublicKey(secret);
  return (curve === "CURVE_P256" ? p256 : secp256k1).getPublicKey(secret, true);
}

describe("create_wallet", () => {
  it("derives an account for every address format of spec 2.9, with caip2Prefix", async () => {
    const accounts = ADDRESS_FORMATS.map((format) => defaultAccount(format));
    const { walletId, addresses } = await t.client.createWallet({ walletName: "every-format", accounts });
    expect(addresses).toHaveLength(38);
    expect(new Set(addresses).size).toBeGreaterThan(30);
    const { accounts: listed } = await t.client.listWalletAccounts({ walletId, paginationOptions: { limit: "100" } });
    expect(listed.map((a) => a.address)).toEqual(addresses);
    const byFormat = new Map(listed.map((a) => [a.addressFormat, a]));
    expect(byFormat.get("ADDRESS_FORMAT_ETHEREUM")?.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(byFormat.get("ADDRESS_FORMAT_ETHEREUM")?.caip2Prefix).toBe("eip155");
    expect(byFormat.get("ADDRESS_FORMAT_SOLANA")?.caip2Prefix).toBe("solana");
    expect(byFormat.get("ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH")?.address).toMatch(/^bc1q/);
    expect(byFormat.get("ADDRESS_FORMAT_BITCOIN_TESTNET_P2TR")?.address).toMatch(/^tb1p/);
    expect(byFormat.get("ADDRESS_FORMAT_SPARK_MAINNET")?.caip2Prefix).toBeUndefined();
    for (const account of listed) {
      expect(account.organizationId).toBe(orgId);
      expect(account.walletId).toBe(walletId);
      expect(account.publicKey).toMatch(/^[0-9a-f]+$/);
      expect(account.walletDetails).toBeUndefined();
    }
  });

  it("refuses an address format that does not fit the curve, naming the field, and keeps nothing", async () => {
    const before = (await t.client.getWallets({})).wallets.length;
    const res = await submit("ACTIVITY_TYPE_CREATE_WALLET", "create_wallet", {
      walletName: "mismatch",
      accounts: [defaultAccount("ADDRESS_FORMAT_ETHEREUM"), { ...defaultAccount("ADDRESS_FORMAT_ETHEREUM"), curve: "CURVE_ED25519", path: "m/44'/60'/1'/0'/0'" }],
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(3);
    expect(res.body.message).toMatch(/^accounts\[1\]\.addressFormat: .*CURVE_ED25519/);
    expect((await t.client.getWallets({})).wallets.length).toBe(before);
  });

  it("refuses a bad path and a non-hardened ed25519 path, naming the field", async () => {
    const bad = await submit("ACTIVITY_TYPE_CREATE_WALLET", "create_wallet", {
      walletName: "bad-path",
      accounts: [{ ...defaultAccount("ADDRESS_FORMAT_ETHEREUM"), path: "m/44'/sixty" }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^accounts\[0\]\.path: /);
    const soft = await submit("ACTIVITY_TYPE_CREATE_WALLET", "create_wallet", {
      walletName: "soft-ed25519",
      accounts: [{ ...defaultAccount("ADDRESS_FORMAT_SOLANA"), path: "m/44'/501'/0'/0" }],
    });
    expect(soft.status).toBe(400);
    expect(soft.body.message).toMatch(/^accounts\[0\]\.path: /);
  });

  it("keeps account names unique within the organization and wallet names unique", async () => {
    const { walletId } = await t.client.createWallet({
      walletName: "named",
      accounts: [{ ...defaultAccount("ADDRESS_FORMAT_ETHEREUM"), name: "treasury" }],
    });
    const other = await submit("ACTIVITY_TYPE_CREATE_WALLET", "create_wallet", {
      walletName: "named-2",
      accounts: [{ ...defaultAccount("ADDRESS_FORMAT_SOLANA"), name: "treasury" }],
    });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ code: 6 });
    expect(other.body.message).toMatch(/^accounts\[0\]\.name: /);
    const same = await submit("ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS", "create_wallet_accounts", {
      walletId,
      accounts: [
        { ...defaultAccount("ADDRESS_FORMAT_ETHEREUM", 1), name: "ops" },
        { ...defaultAccount("ADDRESS_FORMAT_ETHEREUM", 2), name: "ops" },
      ],
    });
    expect(same.status).toBe(409);
    expect(same.body.message).toMatch(/^accounts\[1\]\.name: /);
    const dupWallet = await submit("ACTIVITY_TYPE_CREATE_WALLET", "create_wallet", { walletName: "named", accounts: [] });
    expect(dupWallet.status).toBe(409);
    expect(dupWallet.body.message).toMatch(/^walletName: /);

    const { addresses } = await t.client.createWalletAccounts({ walletId, accounts: [{ ...defaultAccount("ADDRESS_FORMAT_ETHEREUM", 1), name: "ops" }] });
    const { accounts } = await t.client.listWalletAccounts({ walletId });
    expect(accounts.map((a) => a.name)).toEqual(["treasury", "ops"]);
    expect(accounts[1]?.address).toBe(addresses[0]);
    const dupAccount = await submit("ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS", "create_wallet_accounts", {
      walletId,
      accounts: [defaultAccount("ADDRESS_FORMAT_ETHEREUM", 1)],
    });
    expect(dupAccount.status).toBe(409);
    const missing = await submit("ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS", "create_wallet_accounts", {
      walletId: "00000000-0000-4000-8000-000000000000",
      accounts: [defaultAccount("ADDRESS_FORMAT_ETHEREUM")],
    });
    expect(missing).toMatchObject({ status: 404, body: { code: 5 } });
    expect(missing.body.message).toMatch(/^walletId: /);
  });

  it("lists wallets in get_wallets, get_wallet and get_organization", async () => {
    const { walletId } = await t.client.createWallet({ walletName: "listed", accounts: [], mnemonicLength: 24 });
    const { wallet } = await t.client.getWallet({ walletId });
    expect(wallet).toMatchObject({ walletId, walletName: "listed", exported: false, imported: false });
    expect((await t.client.getWallets({})).wallets.map((w) => w.walletId)).toContain(walletId);
    const org = await t.client.getOrganization({});
    const wallets = (org.organizationData as { wallets: { walletId: string }[] }).wallets;
    expect(wallets.map((w) => w.walletId)).toContain(walletId);
    const missing = await query("get_wallet", { walletId: "00000000-0000-4000-8000-000000000000" });
    expect(missing).toMatchObject({ status: 404, body: { code: 5 } });
    const badLength = await submit("ACTIVITY_TYPE_CREATE_WALLET", "create_wallet", { walletName: "w13", accounts: [], mnemonicLength: 13 });
    expect(badLength.status).toBe(400);
    expect(badLength.body.message).toMatch(/mnemonicLength/);
  });
});

describe("list_wallet_accounts pagination", () => {
  let walletId: string;
  let all: string[];

  beforeAll(async () => {
    const accounts = Array.from({ length: 23 }, (_, i) => defaultAccount("ADDRESS_FORMAT_ETHEREUM", i));
    walletId = (await t.client.createWallet({ walletName: "paged", accounts })).walletId;
    all = (await t.client.listWalletAccounts({ walletId, paginationOptions: { limit: "100" } })).accounts.map((a) => a.walletAccountId);
  });

  it("defaults to 10 and walks forward with after, each account exactly once", async () => {
    expect(all).toHaveLength(23);
    expect((await t.client.listWalletAccounts({ walletId })).accounts).toHaveLength(10);
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const { accounts } = await t.client.listWalletAccounts({ walletId, paginationOptions: { limit: "5", ...(after ? { after } : {}) } });
      seen.push(...accounts.map((a) => a.walletAccountId));
      if (accounts.length < 5) break;
      after = accounts.at(-1)!.walletAccountId;
    }
    expect(seen).toEqual(all);
  });

  it("walks backward with before, each account exactly once", async () => {
    const seen: string[] = [];
    let before = all.at(-1)!;
    seen.unshift(before);
    for (;;) {
      const { accounts } = await t.client.listWalletAccounts({ walletId, paginationOptions: { limit: "5", before } });
      seen.unshift(...accounts.map((a) => a.walletAccountId));
      if (accounts.length < 5) break;
      before = accounts[0]!.walletAccountId;
    }
    expect(seen).toEqual(all);
  });

  it("lists organization-wide with wallet details, and refuses bad limits and cursors", async () => {
    const { accounts } = await t.client.listWalletAccounts({ includeWalletDetails: true, paginationOptions: { limit: "100" } });
    expect(accounts.length).toBeGreaterThan(23);
    expect(new Set(accounts.map((a) => a.walletId)).size).toBeGreaterThan(1);
    const paged = accounts.find((a) => a.walletId === walletId);
    expect(paged?.walletDetails).toMatchObject({ walletId, walletName: "paged", exported: false, imported: false });
    for (const limit of ["0", "101", "ten"]) {
      const res = await query("list_wallet_accounts", { walletId, paginationOptions: { limit } });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/paginationOptions\.limit/);
    }
    const cursor = await query("list_wallet_accounts", { walletId, paginationOptions: { after: "not-an-account" } });
    expect(cursor.status).toBe(400);
    expect(cursor.body.message).toMatch(/^paginationOptions\.after: /);
    const missing = await query("list_wallet_accounts", { walletId: "00000000-0000-4000-8000-000000000000" });
    expect(missing).toMatchObject({ status: 404, body: { code: 5 } });
  });
});

describe("export_wallet_account", () => {
  const formats: AddressFormat[] = ["ADDRESS_FORMAT_ETHEREUM", "ADDRESS_FORMAT_SOLANA", "ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR", "ADDRESS_FORMAT_SUI"];

  it.each(formats)("%s: the bundle decrypts with the official decryptExportBundle to the account's key", async (format) => {
    const account = format === "ADDRESS_FORMAT_SUI" ? { ...defaultAccount(format), curve: "CURVE_P256" as const, path: "m/44'/784'/0'/0/0" } : defaultAccount(format);
    const { walletId, addresses } = await t.client.createWallet({ walletName: `export-${format}`, accounts: [account] });
    const address = addresses[0]!;
    const target = generateP256KeyPair();
    const result = await t.client.exportWalletAccount({ address, targetPublicKey: target.publicKeyUncompressed });
    expect(result.address).toBe(address);
    const privateKey = await officialDecryptExportBundle({
      exportBundle: result.exportBundle,
      embeddedKey: target.privateKey,
      organizationId: orgId,
      dangerouslyOverrideSignerPublicKey: t.emulator.bootstrap.signerPublicKey,
      returnMnemonic: false,
    });
    expect(privateKey).toMatch(/^[0-9a-f]{64}$/);
    expect(encodeAddress(publicKeyOf(privateKey, account.curve), account.curve, format)).toBe(address);
    expect((await t.client.getWallet({ walletId })).wallet.exported).toBe(true);
  });

  it("refuses an unknown address and a malformed target key, and marks nothing", async () => {
    const { walletId, addresses } = await t.client.createWallet({ walletName: "export-refusals", accounts: [defaultAccount("ADDRESS_FORMAT_ETHEREUM", 7)] });
    const unknown = await submit("ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT", "export_wallet_account", {
      address: "0x0000000000000000000000000000000000000001",
      targetPublicKey: generateP256KeyPair().publicKey,
    });
    expect(unknown).toMatchObject({ status: 404, body: { code: 5 } });
    expect(unknown.body.message).toMatch(/^address: /);
    const badKey = await submit("ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT", "export_wallet_account", { address: addresses[0], targetPublicKey: "04abcd" });
    expect(badKey.status).toBe(400);
    expect(badKey.body.message).toMatch(/^targetPublicKey: /);
    expect((await t.client.getWallet({ walletId })).wallet.exported).toBe(false);
  });

  it("finds the account by a lower-cased EVM address", async () => {
    const { addresses } = await t.client.createWallet({ walletName: "export-lower", accounts: [defaultAccount("ADDRESS_FORMAT_ETHEREUM", 9)] });
    const result = await t.client.exportWalletAccount({ address: addresses[0]!.toLowerCase(), targetPublicKey: generateP256KeyPair().publicKey });
    expect(result.address).toBe(addresses[0]);
  });
});
