/**
 * Private keys (create, export, the deletion rule), Earn withdrawals (every rule of spec 4.4
 * earn_withdraw) and list_eth_transaction_history (order, pagination with opaque cursors,
 * the private-key-address refusal, fixtures loaded from a file) over real HTTP.
 */
import * as path from "node:path";
import { decryptExportBundle as officialDecryptExportBundle } from "@turnkey/crypto";
import { secp256k1 } from "@noble/curves/secp256k1";
import { hexToBytes } from "@noble/hashes/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyformClient } from "../../sdk/client/client";
import { generateP256KeyPair } from "../../sdk/crypto";
import type { RunningEmulator } from "../../sdk/emulator";
import { startTestEmulator } from "../support/emulator";
import { defaultAccount, encodeAddress } from "../../sdk/emulator/wallets";
import { envelope, post, rootStamper } from "./raw";

const FIXTURES = path.join(__dirname, "..", "fixtures", "emulator-fixtures.json");
const FIXTURE_ADDRESS = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94";
const VAULT = "0x8eB67A509616cd6A7c1B3c8C21D48FF57df3d458";

let emu: RunningEmulator;
let client: KeyformClient;
let orgId: string;
let stopEmulator: () => Promise<void>;

beforeAll(async () => {
  ({ emulator: emu, client, stop: stopEmulator } = await startTestEmulator({ fixturesFile: FIXTURES }));
  orgId = emu.bootstrap.organizationId;
});
afterAll(async () => {
  await stopEmulator?.();
});

const submit = (type: string, name: string, parameters: unknown) =>
  post(emu.url, `/public/v1/submit/${name}`, envelope(type, orgId, parameters), rootStamper(emu.bootstrap));
const query = (name: string, body: Record<string, unknown>) =>
  post(emu.url, `/public/v1/query/${name}`, { organizationId: orgId, ...body }, rootStamper(emu.bootstrap));

async function createKey(name: string) {
  const { privateKeys } = await client.createPrivateKeys({
    privateKeys: [{ privateKeyName: name, curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_ETHEREUM", "ADDRESS_FORMAT_COMPRESSED"] }],
  });
  return { id: privateKeys[0]!.privateKeyId!, address: privateKeys[0]!.addresses![0]!.address! };
}

describe("private keys", () => {
  it("creates keys with addresses derived from their public key, listed in get_organization", async () => {
    const { privateKeys } = await client.createPrivateKeys({
      privateKeys: [{ privateKeyName: "pk-listed", curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_ETHEREUM", "ADDRESS_FORMAT_TRON"] }],
    });
    const id = privateKeys[0]!.privateKeyId!;
    const { privateKey } = await client.getPrivateKey({ privateKeyId: id });
    expect(privateKey).toMatchObject({ privateKeyName: "pk-listed", curve: "CURVE_SECP256K1", exported: false, imported: false });
    const eth = encodeAddress(hexToBytes(privateKey.publicKey), "CURVE_SECP256K1", "ADDRESS_FORMAT_ETHEREUM");
    expect(privateKey.addresses).toEqual([
      { format: "ADDRESS_FORMAT_ETHEREUM", address: eth },
      { format: "ADDRESS_FORMAT_TRON", address: expect.stringMatching(/^T/) },
    ]);
    const org = await client.getOrganization({});
    expect((org.organizationData as { privateKeys: { privateKeyId: string }[] }).privateKeys.map((k) => k.privateKeyId)).toContain(id);
    const dup = await submit("ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", "create_private_keys", {
      privateKeys: [{ privateKeyName: "pk-listed", curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: [] }],
    });
    expect(dup).toMatchObject({ status: 409, body: { code: 6 } });
    expect(dup.body.message).toMatch(/^privateKeys\[0\]\.privateKeyName: /);
    const mismatch = await submit("ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", "create_private_keys", {
      privateKeys: [{ privateKeyName: "pk-mismatch", curve: "CURVE_ED25519", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] }],
    });
    expect(mismatch).toMatchObject({ status: 400, body: { code: 3 } });
    expect(mismatch.body.message).toMatch(/^privateKeys\[0\]\.addressFormats\[0\]: /);
  });

  it("export_private_key: the official decrypt yields the key behind the address; the key is marked exported", async () => {
    const key = await createKey("pk-export");
    const target = generateP256KeyPair();
    const { exportBundle } = await client.exportPrivateKey({ privateKeyId: key.id, targetPublicKey: target.publicKey });
    const secret = await officialDecryptExportBundle({
      exportBundle,
      embeddedKey: target.privateKey,
      organizationId: orgId,
      dangerouslyOverrideSignerPublicKey: emu.bootstrap.signerPublicKey,
      returnMnemonic: false,
    });
    const publicKey = secp256k1.getPublicKey(hexToBytes(secret), true);
    expect(encodeAddress(publicKey, "CURVE_SECP256K1", "ADDRESS_FORMAT_ETHEREUM")).toBe(key.address);
    expect((await client.getPrivateKey({ privateKeyId: key.id })).privateKey.exported).toBe(true);
  });

  it("deletes a never-exported key only with deleteWithoutExport: true", async () => {
    const fresh = await createKey("pk-fresh");
    const refused = await submit("ACTIVITY_TYPE_DELETE_PRIVATE_KEYS", "delete_private_keys", { privateKeyIds: [fresh.id] });
    expect(refused).toMatchObject({ status: 400, body: { code: 9 } });
    expect(refused.body.message).toMatch(/^privateKeyIds\[0\]: .*deleteWithoutExport/);
    const flagFalse = await submit("ACTIVITY_TYPE_DELETE_PRIVATE_KEYS", "delete_private_keys", { privateKeyIds: [fresh.id], deleteWithoutExport: false });
    expect(flagFalse.status).toBe(400);
    expect((await client.getPrivateKey({ privateKeyId: fresh.id })).privateKey.privateKeyId).toBe(fresh.id);
    const { privateKeyIds } = await client.deletePrivateKeys({ privateKeyIds: [fresh.id], deleteWithoutExport: true });
    expect(privateKeyIds).toEqual([fresh.id]);
    expect((await query("get_private_key", { privateKeyId: fresh.id })).status).toBe(404);
  });

  it("deletes an exported key with or without the flag, and a mixed request as a whole or not at all", async () => {
    const a = await createKey("pk-exported-a");
    const b = await createKey("pk-exported-b");
    const c = await createKey("pk-unexported-c");
    for (const key of [a, b]) await client.exportPrivateKey({ privateKeyId: key.id, targetPublicKey: generateP256KeyPair().publicKey });
    const mixed = await submit("ACTIVITY_TYPE_DELETE_PRIVATE_KEYS", "delete_private_keys", { privateKeyIds: [a.id, c.id] });
    expect(mixed.status).toBe(400);
    expect(mixed.body.message).toMatch(/^privateKeyIds\[1\]: /);
    expect((await query("get_private_key", { privateKeyId: a.id })).status).toBe(200);
    expect((await client.deletePrivateKeys({ privateKeyIds: [a.id] })).privateKeyIds).toEqual([a.id]);
    expect((await client.deletePrivateKeys({ privateKeyIds: [b.id], deleteWithoutExport: false })).privateKeyIds).toEqual([b.id]);
    const gone = await submit("ACTIVITY_TYPE_DELETE_PRIVATE_KEYS", "delete_private_keys", { privateKeyIds: [a.id], deleteWithoutExport: true });
    expect(gone).toMatchObject({ status: 404, body: { code: 5 } });
    const { privateKeys } = await client.listPrivateKeys({});
    expect(privateKeys.map((k) => k.privateKeyId)).not.toContain(a.id);
    expect(privateKeys.map((k) => k.privateKeyId)).toContain(c.id);
  });
});

describe("earn_withdraw and transaction history", () => {
  let wrapperAddress: string;
  let account: string;
  let solana: string;
  let keyAddress: string;
  let keyId: string;

  beforeAll(async () => {
    ({ wrapperAddress } = await client.earnDeployWrapper({
      vaultAddress: VAULT,
      chainCaip2: "eip155:8453",
      clientFeeBps: "50",
      clientFeeWallet: "0x78839F6054d7ed13918bAe0473BA31b1Ca9D7265",
    }));
    const wallet = await client.createWallet({
      walletName: "earn-wallet",
      accounts: [defaultAccount("ADDRESS_FORMAT_ETHEREUM"), defaultAccount("ADDRESS_FORMAT_SOLANA")],
    });
    [account, solana] = wallet.addresses as [string, string];
    ({ id: keyId, address: keyAddress } = await createKey("pk-earn"));
  });

  const withdraw = (parameters: Record<string, unknown>) =>
    submit("ACTIVITY_TYPE_EARN_WITHDRAW", "earn_withdraw", { wrapperAddress, signWith: account, chainCaip2: "eip155:8453", amountValue: "1000", ...parameters });

  it("withdraws with a wallet account or private key address, even with deposits disabled", async () => {
    await client.earnSetWrapperState({ wrapperAddress, depositsDisabled: true });
    const first = await client.submitActivity("earnWithdraw", { wrapperAddress, signWith: account, chainCaip2: "eip155:8453", amountValue: "1000", sponsor: true });
    const withdrawRequestId = (first.result as { earnWithdrawResult: { withdrawRequestId: string } }).earnWithdrawResult.withdrawRequestId;
    const status = await client.getEarnWithdrawStatus({ withdrawRequestId });
    expect(status.status).toBe("COMPLETED");
    expect(status.withdrawTxHash).toMatch(/^0x[0-9a-f]{64}$/);

    // MAX, unsponsored, lower-cased address.
    const second = await client.earnWithdraw({ wrapperAddress, signWith: account.toLowerCase(), chainCaip2: "eip155:8453", amountValue: "MAX" });
    expect(second.withdrawRequestId).toBeTruthy();
    await client.earnSetWrapperState({ wrapperAddress, depositsDisabled: false });
    const byKey = await client.earnWithdraw({ wrapperAddress, signWith: keyAddress, chainCaip2: "eip155:8453", amountValue: "5" });
    expect((await client.getEarnWithdrawStatus({ withdrawRequestId: byKey.withdrawRequestId })).status).toBe("COMPLETED");

    const { transactions, pageInfo } = await client.listEthTransactionHistory({ address: account, caip2: "eip155:8453" });
    expect(transactions).toHaveLength(2);
    const [latest, earliest] = transactions as [any, any];
    expect(latest.operator).toEqual({ sponsored: false, activityFingerprint: expect.stringMatching(/^sha256:/), submittedAt: expect.any(String) });
    expect(latest.transfers).toEqual([]);
    expect(earliest.transactionHash).toBe(status.withdrawTxHash);
    expect(earliest).toMatchObject({
      from: account,
      to: wrapperAddress.toLowerCase(),
      status: "CONFIRMED",
      operator: { sponsored: true, activityFingerprint: first.fingerprint },
      transfers: [{ direction: "IN", amount: "1000", counterparty: wrapperAddress.toLowerCase() }],
    });
    expect(pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
    // The wire carries the operator details under the service's own key.
    const raw = await query("list_eth_transaction_history", { address: account, caip2: "eip155:8453" });
    expect(raw.body.transactions[0].turnkey.sponsored).toBe(false);
    expect((await client.listEthTransactionHistory({ address: account, caip2: "eip155:1" })).transactions).toEqual([]);
  });

  it("refuses each bad withdrawal, naming the field", async () => {
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [{ wrapperAddress: "0x1111111111111111111111111111111111111111" }, 404, /^wrapperAddress: /],
      [{ wrapperAddress: "wrapper" }, 400, /^wrapperAddress: /],
      [{ chainCaip2: "eip155:1" }, 400, /^chainCaip2: /],
      [{ chainCaip2: "eip155:10" }, 400, /chainCaip2/],
      [{ signWith: keyId }, 400, /^signWith: .*private key id/],
      [{ signWith: "0x2222222222222222222222222222222222222222" }, 404, /^signWith: /],
      [{ signWith: solana }, 400, /^signWith: .*not an EVM address/],
      [{ amountValue: "1.5" }, 400, /amountValue/],
      [{ amountValue: "0" }, 400, /^amountValue: /],
      [{ amountValue: "max" }, 400, /amountValue/],
    ];
    for (const [parameters, status, message] of cases) {
      const res = await withdraw(parameters);
      expect(res.status, JSON.stringify(parameters)).toBe(status);
      expect(res.body.message, JSON.stringify(parameters)).toMatch(message);
    }
  });

  it("refuses a private key address in the history, and unknown addresses", async () => {
    const res = await query("list_eth_transaction_history", { address: keyAddress, caip2: "eip155:8453" });
    expect(res).toMatchObject({ status: 400, body: { code: 3 } });
    expect(res.body.message).toMatch(/^address: .*private key address/);
    const unknown = await query("list_eth_transaction_history", { address: "0x3333333333333333333333333333333333333333", caip2: "eip155:1" });
    expect(unknown).toMatchObject({ status: 404, body: { code: 5 } });
    const badChain = await query("list_eth_transaction_history", { address: account, caip2: "eip155:10" });
    expect(badChain.status).toBe(400);
    const status = await query("get_earn_withdraw_status", { withdrawRequestId: "00000000-0000-4000-8000-000000000000" });
    expect(status).toMatchObject({ status: 404, body: { code: 5 } });
  });

  it("serves fixture transactions newest first, paged with opaque cursors both ways", async () => {
    const { wallets } = await client.getWallets({});
    expect(wallets.find((w) => w.walletName === "fixture-wallet")).toMatchObject({ imported: true });
    // Add executed withdrawals on mainnet for the fixture address so both sources mix.
    const { wrapperAddress: mainnetWrapper } = await client.earnDeployWrapper({
      vaultAddress: VAULT,
      chainCaip2: "eip155:1",
      clientFeeBps: "0",
      clientFeeWallet: FIXTURE_ADDRESS,
    });
    for (let i = 1; i <= 4; i++) {
      await client.earnWithdraw({ wrapperAddress: mainnetWrapper, signWith: FIXTURE_ADDRESS, chainCaip2: "eip155:1", amountValue: String(i) });
    }
    const { transactions: everything } = await client.listEthTransactionHistory({
      address: FIXTURE_ADDRESS,
      caip2: "eip155:1",
      paginationOptions: { limit: "100" },
    });
    expect(everything).toHaveLength(6);
    expect(everything.map((tx) => tx.transfers[0]?.amount)).toEqual(["4", "3", "2", "1", "25000000", "1000000000000000000"]);
    const times = everything.map((tx) => Date.parse(tx.block.timestamp));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(everything[4]?.operator).toEqual({ sponsored: true, submittedAt: "2024-01-31T23:59:50Z" });

    const hashes = everything.map((tx) => tx.transactionHash);
    const forward: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await client.listEthTransactionHistory({ address: FIXTURE_ADDRESS, caip2: "eip155:1", paginationOptions: { limit: "4", ...(after ? { after } : {}) } });
      forward.push(...page.transactions.map((tx) => tx.transactionHash));
      expect(page.pageInfo?.hasPreviousPage).toBe(after !== undefined);
      if (!page.pageInfo?.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(forward).toEqual(hashes);

    const backward: string[] = [];
    const last = await client.listEthTransactionHistory({ address: FIXTURE_ADDRESS, caip2: "eip155:1", paginationOptions: { limit: "100" } });
    let before: string | undefined = last.pageInfo?.endCursor;
    backward.unshift(hashes.at(-1)!);
    for (;;) {
      const page = await client.listEthTransactionHistory({ address: FIXTURE_ADDRESS, caip2: "eip155:1", paginationOptions: { limit: "2", before } });
      backward.unshift(...page.transactions.map((tx) => tx.transactionHash));
      if (!page.pageInfo?.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    expect(backward).toEqual(hashes);

    const base = await client.listEthTransactionHistory({ address: FIXTURE_ADDRESS, caip2: "eip155:8453" });
    expect(base.transactions.map((tx) => tx.transactionHash)).toEqual(["0x" + "3".repeat(64)]);
    const foreign = await query("list_eth_transaction_history", {
      address: FIXTURE_ADDRESS,
      caip2: "eip155:8453",
      paginationOptions: { after: last.pageInfo?.endCursor },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toMatch(/^paginationOptions\.after: /);
    const garbage = await query("list_eth_transaction_history", { address: FIXTURE_ADDRESS, caip2: "eip155:1", paginationOptions: { before: "garbage" } });
    expect(garbage.status).toBe(400);
  });
});
