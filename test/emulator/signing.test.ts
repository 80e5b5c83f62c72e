/**
 * The signing activities over real HTTP: every payload encoding and hash function of
 * sign_raw_payload on each curve, checked by the curves' own verifiers; refusals that name the
 * field; export_wallet decrypted by the official @turnkey/crypto; and policies over `eth.tx`,
 * `solana.tx`, `eth.eip_712` and the signing target, enforced for a non-root user, with a
 * large amount held for an approval that then signs.
 */
import { ed25519 } from "@noble/curves/ed25519";
import { p256 } from "@noble/curves/nist";
import { secp256k1 } from "@noble/curves/secp256k1";
import { sha256 } from "@noble/hashes/sha2";
import { keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils";
import { Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import { decryptExportBundle } from "@turnkey/crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashAuthorization } from "viem/utils";
import { recoverAddress, recoverTransactionAddress, serializeTransaction, serializeTypedData, type Hex } from "viem";
import { KeyformClient } from "../../sdk/client/client";
import { generateP256KeyPair } from "../../sdk/crypto";
import { deriveAccount } from "../../sdk/emulator/wallets";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

let t: TestEmulator;
let root: KeyformClient;
let orgId: string;
let walletId: string;
let eth: string;
let sol: string;
const keyIds: Record<"k1" | "p256" | "ed", string> = { k1: "", p256: "", ed: "" };
const keyPublic: Record<"k1" | "p256" | "ed", string> = { k1: "", p256: "", ed: "" };

const ALLOWED = "0x1111111111111111111111111111111111111111";
const OTHER = "0x2222222222222222222222222222222222222222";
const SOL_DEST = Keypair.generate().publicKey;

const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as Record<string, any>);
const sig = (r: { r: string; s: string }) => new secp256k1.Signature(BigInt(`0x${r.r}`), BigInt(`0x${r.s}`));

beforeAll(async () => {
  t = await startTestEmulator();
  root = t.client;
  orgId = t.emulator.bootstrap.organizationId;
  const wallet = await root.createWallet({
    walletName: "treasury",
    accounts: [
      { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
      { curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" },
    ],
  });
  walletId = wallet.walletId;
  [eth, sol] = wallet.addresses as [string, string];
  const { privateKeys } = await root.createPrivateKeys({
    privateKeys: [
      { privateKeyName: "k1", curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: [] },
      { privateKeyName: "p256", curve: "CURVE_P256", privateKeyTags: [], addressFormats: [] },
      { privateKeyName: "ed", curve: "CURVE_ED25519", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_SOLANA"] },
    ],
  });
  (["k1", "p256", "ed"] as const).forEach((name, i) => (keyIds[name] = privateKeys[i]!.privateKeyId!));
  for (const name of ["k1", "p256", "ed"] as const) keyPublic[name] = (await root.getPrivateKey({ privateKeyId: keyIds[name] })).privateKey.publicKey;
});
afterAll(async () => {
  await t?.stop();
});

describe("sign_raw_payload and sign_raw_payloads", () => {
  it("secp256k1 wallet account: KECCAK256 over hex and UTF-8 text, NO_OP over a digest; the signature recovers the account's address", async () => {
    const cases = [
      { payload: "0xdeadbeef", encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_KECCAK256", digest: keccak_256(hexToBytes("deadbeef")) },
      { payload: "héllo", encoding: "PAYLOAD_ENCODING_TEXT_UTF8", hashFunction: "HASH_FUNCTION_KECCAK256", digest: keccak_256(utf8ToBytes("héllo")) },
      { payload: "ab".repeat(32), encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_NO_OP", digest: hexToBytes("ab".repeat(32)) },
      { payload: "cafe", encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_SHA256", digest: sha256(hexToBytes("cafe")) },
    ] as const;
    for (const c of cases) {
      const result = await root.signRawPayload({ signWith: eth, payload: c.payload, encoding: c.encoding, hashFunction: c.hashFunction });
      expect(result.r).toMatch(/^[0-9a-f]{64}$/);
      expect(["00", "01"]).toContain(result.v);
      const recovered = await recoverAddress({ hash: `0x${bytesToHex(c.digest)}`, signature: { r: `0x${result.r}`, s: `0x${result.s}`, yParity: Number(result.v) } });
      expect(recovered.toLowerCase(), c.encoding + c.hashFunction).toBe(eth.toLowerCase());
    }
  });

  it("P-256 and ed25519 private keys by id; several payloads at once", async () => {
    const p = await root.signRawPayload({ signWith: keyIds.p256, payload: "68656c6c6f", encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_SHA256" });
    expect(p256.verify(`${p.r}${p.s}`, sha256(utf8ToBytes("hello")), keyPublic.p256, { prehash: false })).toBe(true);
    expect(new p256.Signature(BigInt(`0x${p.r}`), BigInt(`0x${p.s}`)).addRecoveryBit(Number(p.v)).recoverPublicKey(sha256(utf8ToBytes("hello"))).toHex(true)).toBe(keyPublic.p256);

    const { signatures } = await root.signRawPayloads({ signWith: keyIds.ed, payloads: ["00", "0102"], encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_NOT_APPLICABLE" });
    expect(signatures).toHaveLength(2);
    expect(ed25519.verify(`${signatures![0]!.r}${signatures![0]!.s}`, hexToBytes("00"), keyPublic.ed)).toBe(true);
    expect(ed25519.verify(`${signatures![1]!.r}${signatures![1]!.s}`, hexToBytes("0102"), keyPublic.ed)).toBe(true);
    expect(signatures![0]!.v).toBe("00");
  });

  it("EIP-7702 authorization: the digest of 0x05 ‖ rlp([chain_id, address, nonce])", async () => {
    const authorization = { address: ALLOWED, chainId: 1, nonce: 4 };
    const result = await root.signRawPayload({
      signWith: keyIds.k1,
      payload: JSON.stringify(authorization),
      encoding: "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION",
      hashFunction: "HASH_FUNCTION_NO_OP",
    });
    const hash = hashAuthorization({ address: ALLOWED, chainId: 1, nonce: 4 });
    expect(sig(result).addRecoveryBit(Number(result.v)).recoverPublicKey(hexToBytes(hash.slice(2))).toHex(true)).toBe(keyPublic.k1);
  });

  it("refusals name the field and record nothing", async () => {
    const before = (await root.listActivities({})).activities.length;
    const cases: [() => Promise<unknown>, number, RegExp][] = [
      [() => root.signRawPayload({ signWith: "0x" + "99".repeat(20), payload: "00", encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_KECCAK256" }), 404, /^signWith: /],
      [() => root.signRawPayload({ signWith: eth, payload: "ab".repeat(31), encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_NO_OP" }), 400, /^payload: .*32-byte/],
      [() => root.signRawPayload({ signWith: eth, payload: "xyz", encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_KECCAK256" }), 400, /^payload: expected hex/],
      [() => root.signRawPayload({ signWith: sol, payload: "00", encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_SHA256" }), 400, /^hashFunction: .*ed25519/],
      [() => root.signRawPayload({ signWith: eth, payload: "{", encoding: "PAYLOAD_ENCODING_EIP712", hashFunction: "HASH_FUNCTION_NO_OP" }), 400, /^payload: expected typed data/],
      [() => root.signRawPayloads({ signWith: eth, payloads: ["00", "zz"], encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_KECCAK256" }), 400, /^payloads\[1\]: /],
      [() => root.signTransaction({ signWith: eth, unsignedTransaction: "02c0", type: "TRANSACTION_TYPE_ETHEREUM" }), 400, /^unsignedTransaction: /],
      [() => root.signTransaction({ signWith: sol, unsignedTransaction: serializeTransaction({ type: "eip1559", chainId: 1, to: ALLOWED }).slice(2), type: "TRANSACTION_TYPE_ETHEREUM" }), 400, /^signWith: .*CURVE_SECP256K1/],
      [() => root.signTransaction({ signWith: eth, unsignedTransaction: "05c0", type: "TRANSACTION_TYPE_ETHEREUM" }), 400, /^unsignedTransaction: transaction type 0x05 /],
      [() => root.signTransaction({ signWith: eth, unsignedTransaction: "03c4c0c0c0c0", type: "TRANSACTION_TYPE_ETHEREUM" }), 400, /^unsignedTransaction: a TYPE_3 transaction has 11 fields/],
      ...(["TRANSACTION_TYPE_TRON", "TRANSACTION_TYPE_BITCOIN", "TRANSACTION_TYPE_TEMPO"] as const).map(
        (type) => [() => root.signTransaction({ signWith: eth, unsignedTransaction: "00", type }), 501, new RegExp(`^type: ${type} transactions are not signed`)] as [() => Promise<unknown>, number, RegExp],
      ),
    ];
    for (const [send, status, message] of cases) {
      const error = await failure(send());
      expect(error, String(message)).toMatchObject({ status });
      expect(error!.serverMessage).toMatch(message);
    }
    expect((await root.listActivities({})).activities.length).toBe(before);
  });
});

describe("export_wallet", () => {
  it("the bundle decrypts with the official decryptExportBundle to the mnemonic that derives the wallet's addresses; the wallet becomes exported", async () => {
    const target = generateP256KeyPair();
    const result = await root.exportWallet({ walletId, targetPublicKey: target.publicKeyUncompressed });
    expect(result.walletId).toBe(walletId);
    expect(result.exportBundle).not.toContain(eth);
    const mnemonic = await decryptExportBundle({
      exportBundle: result.exportBundle,
      embeddedKey: target.privateKey,
      organizationId: orgId,
      dangerouslyOverrideSignerPublicKey: t.emulator.bootstrap.signerPublicKey,
      returnMnemonic: true,
    });
    expect(mnemonic.split(" ")).toHaveLength(12);
    const derived = deriveAccount({ mnemonic, curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" });
    expect(derived.address).toBe(eth);
    expect((await root.getWallet({ walletId })).wallet.exported).toBe(true);
    expect(await failure(root.exportWallet({ walletId, targetPublicKey: "05" + "00".repeat(32) }))).toMatchObject({ status: 400, serverMessage: expect.stringMatching(/^targetPublicKey: /) });
  });
});

describe("policies over the decoded payload, for a non-root user", () => {
  const keys = { signer: generateApiKeyPair(), approver: generateApiKeyPair() };
  const clients = {} as Record<keyof typeof keys, KeyformClient>;
  const policy: Record<string, string> = {};

  const ethTx = (to: string, value: bigint, type: "eip1559" | "legacy" = "eip1559") =>
    serializeTransaction(
      type === "eip1559"
        ? { type, chainId: 1, nonce: 0, to: to as Hex, value, gas: 21000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }
        : { type, chainId: 1, nonce: 0, to: to as Hex, value, gas: 21000n, gasPrice: 2n },
    ).slice(2);

  beforeAll(async () => {
    const user = (name: keyof typeof keys) => ({
      userName: `signing-${name}`,
      apiKeys: [{ apiKeyName: `${name}-key`, publicKey: keys[name].publicKey, curveType: "API_KEY_CURVE_P256" as const }],
      authenticators: [],
      oauthProviders: [],
      userTags: [],
    });
    const { userIds } = await root.createUsers({ users: [user("signer"), user("approver")] });
    const { userTagId } = await root.createUserTag({ userTagName: "signing-approvers", userIds: [userIds[1]!] });
    for (const name of Object.keys(keys) as (keyof typeof keys)[]) {
      clients[name] = new KeyformClient({
        baseUrl: t.emulator.url,
        organizationId: orgId,
        stamper: new ApiKeyStamper({ apiPublicKey: keys[name].publicKey, apiPrivateKey: keys[name].privateKey }),
        retry: { maxRetries: 0 },
        poll: { intervalMs: 50 },
      });
    }
    const declare = async (name: string, condition: string, consensus?: string) => {
      policy[name] = (await root.createPolicy({ policyName: name, effect: "EFFECT_ALLOW", condition, ...(consensus ? { consensus } : {}), notes: "" })).policyId;
    };
    const treasury = `wallet.id == '${walletId}' && wallet_account.address == '${eth}' && eth.tx.from == '${eth.toLowerCase()}'`;
    await declare("small payments", `${treasury} && eth.tx.to == '${ALLOWED}' && eth.tx.value <= 1000 && eth.tx.chain_id == 1`);
    await declare("large payments", `${treasury} && eth.tx.to == '${ALLOWED}' && eth.tx.value > 1000`, `approvers.any(user, user.tags.contains('${userTagId}'))`);
    await declare("sol payroll", `solana.tx.transfers.count() == 1 && solana.tx.transfers.all(t, t.to == '${SOL_DEST.toBase58()}' && t.amount < 100)`);
    await declare("permits", `eth.eip_712.primary_type == 'Permit' && eth.eip_712.domain.verifying_contract == '${ALLOWED}'`);
    await declare("cheap blobs", `eth.tx.type == 'TYPE_3' && eth.tx.to == '${OTHER}' && eth.tx.max_fee_per_blob_gas <= 10 && eth.tx.gas_price == eth.tx.max_fee_per_gas`);
  });

  it("a transfer to the allowed address within the limit is signed at once", async () => {
    for (const type of ["eip1559", "legacy"] as const) {
      const activity = await clients.signer.submitActivity("signTransaction", { signWith: eth, unsignedTransaction: ethTx(ALLOWED, 1000n, type), type: "TRANSACTION_TYPE_ETHEREUM" });
      expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
      const signed = `0x${(activity.result as any).signTransactionResult.signedTransaction}` as Hex;
      expect((await recoverTransactionAddress({ serializedTransaction: signed as any })).toLowerCase()).toBe(eth.toLowerCase());
    }
  });

  it("a transfer to another address is refused with the policies' evaluations", async () => {
    const error = await failure(clients.signer.signTransaction({ signWith: eth, unsignedTransaction: ethTx(OTHER, 1n), type: "TRANSACTION_TYPE_ETHEREUM" }));
    expect(error).toMatchObject({ status: 403, code: 7 });
    expect(error!.details[0].policyEvaluations).toContainEqual({ policyId: policy["small payments"], outcome: "OUTCOME_DENY_IMPLICIT" });
  });

  it("a large amount waits for an approver; the approval signs it", async () => {
    const held = await clients.signer.submitActivity(
      "signTransaction",
      { signWith: eth, unsignedTransaction: ethTx(ALLOWED, 10n ** 18n), type: "TRANSACTION_TYPE_ETHEREUM" },
      { allowIncomplete: true },
    );
    expect(held.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect(held.result).toEqual({});
    await clients.approver.approveActivity({ fingerprint: held.fingerprint });
    const done = (await root.getActivity({ activityId: held.id })).activity;
    expect(done.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const signed = `0x${(done.result as any).signTransactionResult.signedTransaction}` as Hex;
    expect((await recoverTransactionAddress({ serializedTransaction: signed as any })).toLowerCase()).toBe(eth.toLowerCase());
  });

  it("types 3 and 4: decided on their own keywords (max_fee_per_blob_gas of a blob transaction); the signature recovers", async () => {
    const fees = { chainId: 1, nonce: 0, gas: 50000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n } as const;
    const blob = (maxFeePerBlobGas: bigint) =>
      serializeTransaction({ type: "eip4844", ...fees, to: OTHER as Hex, value: 1n, maxFeePerBlobGas, blobVersionedHashes: [`0x01${"00".repeat(31)}`] }).slice(2);
    const signed = await clients.signer.signTransaction({ signWith: eth, unsignedTransaction: blob(10n), type: "TRANSACTION_TYPE_ETHEREUM" });
    expect((await recoverTransactionAddress({ serializedTransaction: `0x${signed.signedTransaction}` as never })).toLowerCase()).toBe(eth.toLowerCase());
    const tooDear = await failure(clients.signer.signTransaction({ signWith: eth, unsignedTransaction: blob(11n), type: "TRANSACTION_TYPE_ETHEREUM" }));
    expect(tooDear!.details[0].policyEvaluations).toContainEqual({ policyId: policy["cheap blobs"], outcome: "OUTCOME_DENY_IMPLICIT" });
    const authorizationList = [{ address: ALLOWED as Hex, chainId: 1, nonce: 1, r: `0x${"11".repeat(32)}` as Hex, s: `0x${"22".repeat(32)}` as Hex, yParity: 0 }];
    const setCode = (to: string) => serializeTransaction({ type: "eip7702", ...fees, to: to as Hex, value: 5n, authorizationList }).slice(2);
    const allowed = await clients.signer.signTransaction({ signWith: eth, unsignedTransaction: setCode(ALLOWED), type: "TRANSACTION_TYPE_ETHEREUM" });
    expect((await recoverTransactionAddress({ serializedTransaction: `0x${allowed.signedTransaction}` as never })).toLowerCase()).toBe(eth.toLowerCase());
    // A set-code transaction has no max_fee_per_blob_gas: the blob policy errors on it.
    const refused = await failure(clients.signer.signTransaction({ signWith: eth, unsignedTransaction: setCode(OTHER), type: "TRANSACTION_TYPE_ETHEREUM" }));
    expect(refused!.details[0].policyEvaluations).toContainEqual(expect.objectContaining({ policyId: policy["cheap blobs"], outcome: "OUTCOME_ERROR" }));
  });

  it("solana.tx: a transfer to the payroll address under the limit is signed; a larger one is refused", async () => {
    const from = new PublicKey(sol);
    const tx = (lamports: number) =>
      Buffer.from(
        new Transaction({ feePayer: from, recentBlockhash: Keypair.generate().publicKey.toBase58() })
          .add(SystemProgram.transfer({ fromPubkey: from, toPubkey: SOL_DEST, lamports }))
          .serialize({ requireAllSignatures: false, verifySignatures: false }),
      ).toString("hex");
    const { signedTransaction } = await clients.signer.signTransaction({ signWith: sol, unsignedTransaction: tx(99), type: "TRANSACTION_TYPE_SOLANA" });
    expect(Transaction.from(Buffer.from(signedTransaction, "hex")).verifySignatures()).toBe(true);
    expect(await failure(clients.signer.signTransaction({ signWith: sol, unsignedTransaction: tx(100), type: "TRANSACTION_TYPE_SOLANA" }))).toMatchObject({ status: 403, code: 7 });
  });

  it("eth.eip_712: a permit for the allowed contract is signed; another primary type is refused", async () => {
    const typed = (primaryType: "Permit" | "Other") =>
      serializeTypedData({
        domain: { name: "Token", chainId: 1, verifyingContract: ALLOWED as Hex },
        types: {
          EIP712Domain: [
            { name: "name", type: "string" },
            { name: "chainId", type: "uint256" },
            { name: "verifyingContract", type: "address" },
          ],
          [primaryType]: [{ name: "value", type: "uint256" }],
        },
        primaryType,
        message: { value: 5n },
      } as any);
    const ok = await clients.signer.signRawPayload({ signWith: eth, payload: typed("Permit"), encoding: "PAYLOAD_ENCODING_EIP712", hashFunction: "HASH_FUNCTION_NO_OP" });
    expect(ok.r).toMatch(/^[0-9a-f]{64}$/);
    expect(await failure(clients.signer.signRawPayload({ signWith: eth, payload: typed("Other"), encoding: "PAYLOAD_ENCODING_EIP712", hashFunction: "HASH_FUNCTION_NO_OP" }))).toMatchObject({ status: 403 });
  });
});
