/**
 * The service's own signer packages, unchanged, against the emulator: @turnkey/viem,
 * @turnkey/ethers and @turnkey/solana sign with a wallet's HD accounts and with a private key,
 * and the chains' own libraries recover or verify the signer (viem, ethers, @noble/curves).
 */
import { ed25519 } from "@noble/curves/ed25519";
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionMessage, VersionedTransaction } from "@solana/web3.js";
import { ApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeySigner as EthersSigner } from "@turnkey/ethers";
import { TurnkeyClient } from "@turnkey/http";
import { Turnkey } from "@turnkey/sdk-server";
import { TurnkeySigner as SolanaSigner } from "@turnkey/solana";
import { createAccount } from "@turnkey/viem";
import { Transaction as EthersTransaction, verifyMessage as ethersVerifyMessage, verifyTypedData as ethersVerifyTypedData } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createWalletClient,
  custom,
  parseTransaction,
  recoverMessageAddress,
  recoverTransactionAddress,
  recoverTypedDataAddress,
  type TransactionSerializable,
} from "viem";
import { recoverAuthorizationAddress } from "viem/utils";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

let t: TestEmulator;
let http: TurnkeyClient;
let server: ReturnType<Turnkey["apiClient"]>;
let ethAddress: string;
let solAddress: string;
let keyEthAddress: string;

const RECIPIENT = "0x8ba1f109551bd432803012645ac136ddd64dba72";
const TYPED_DATA = {
  domain: { name: "Ether Mail", version: "1", chainId: 1, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" },
  types: {
    Person: [
      { name: "name", type: "string" },
      { name: "wallet", type: "address" },
    ],
    Mail: [
      { name: "from", type: "Person" },
      { name: "to", type: "Person" },
      { name: "contents", type: "string" },
      { name: "tags", type: "bytes32[]" },
    ],
  },
  primaryType: "Mail",
  message: {
    from: { name: "Cow", wallet: "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826" },
    to: { name: "Bob", wallet: "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB" },
    contents: "Hello, Bob!",
    tags: ["0x" + "ab".repeat(32)],
  },
} as const;

beforeAll(async () => {
  t = await startTestEmulator();
  const { organizationId, apiPublicKey, apiPrivateKey } = t.emulator.bootstrap;
  http = new TurnkeyClient({ baseUrl: t.emulator.url }, new ApiKeyStamper({ apiPublicKey, apiPrivateKey }));
  server = new Turnkey({ apiBaseUrl: t.emulator.url, apiPublicKey, apiPrivateKey, defaultOrganizationId: organizationId }).apiClient();
  const wallet = await t.client.createWallet({
    walletName: "signers",
    accounts: [
      { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
      { curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" },
    ],
  });
  [ethAddress, solAddress] = wallet.addresses as [string, string];
  const keys = await t.client.createPrivateKeys({
    privateKeys: [{ privateKeyName: "signer-key", curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] }],
  });
  keyEthAddress = keys.privateKeys[0]!.addresses![0]!.address!;
});
afterAll(async () => {
  await t?.stop();
});

describe("@turnkey/viem", () => {
  it("signs a message, typed data and an EIP-1559 transaction with a wallet account; viem recovers the account's address", async () => {
    const { organizationId } = t.emulator.bootstrap;
    const account = await createAccount({ client: http, organizationId, signWith: ethAddress });
    expect(account.address.toLowerCase()).toBe(ethAddress.toLowerCase());

    const message = "hello from the emulator";
    const signature = await account.signMessage({ message });
    expect((await recoverMessageAddress({ message, signature })).toLowerCase()).toBe(ethAddress.toLowerCase());

    // Through a wallet client, as applications call it: viem adds the EIP712Domain type there.
    const walletClient = createWalletClient({ account, transport: custom({ request: () => Promise.reject(new Error("no node: signing is local to the account")) }) });
    const typedSignature = await walletClient.signTypedData(TYPED_DATA);
    expect((await recoverTypedDataAddress({ ...TYPED_DATA, signature: typedSignature })).toLowerCase()).toBe(ethAddress.toLowerCase());

    const tx: TransactionSerializable = {
      type: "eip1559",
      chainId: 11155111,
      nonce: 7,
      to: RECIPIENT,
      value: 10n ** 15n,
      gas: 21000n,
      maxFeePerGas: 30_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    };
    const signed = await account.signTransaction(tx);
    const parsed = parseTransaction(signed);
    expect(parsed).toMatchObject({ type: "eip1559", chainId: 11155111, nonce: 7, to: RECIPIENT, value: 10n ** 15n });
    expect((await recoverTransactionAddress({ serializedTransaction: signed as `0x02${string}` })).toLowerCase()).toBe(ethAddress.toLowerCase());
  });

  it("signs legacy (EIP-155) and EIP-2930 transactions with a private key through sdk-server's client", async () => {
    const { organizationId } = t.emulator.bootstrap;
    const account = await createAccount({ client: server, organizationId, signWith: keyEthAddress });
    const legacy = await account.signTransaction({ type: "legacy", chainId: 1, nonce: 0, to: RECIPIENT, value: 1n, gas: 21000n, gasPrice: 2_000_000_000n });
    expect((await recoverTransactionAddress({ serializedTransaction: legacy as `0x${string}` })).toLowerCase()).toBe(keyEthAddress.toLowerCase());
    expect(parseTransaction(legacy)).toMatchObject({ type: "legacy", chainId: 1 });
    const accessList = [{ address: RECIPIENT as `0x${string}`, storageKeys: ["0x" + "00".repeat(31) + "01"] as `0x${string}`[] }];
    const eip2930 = await account.signTransaction({ type: "eip2930", chainId: 10, nonce: 3, to: RECIPIENT, value: 5n, gas: 50000n, gasPrice: 1n, accessList, data: "0xa9059cbb" });
    expect((await recoverTransactionAddress({ serializedTransaction: eip2930 as `0x01${string}` })).toLowerCase()).toBe(keyEthAddress.toLowerCase());
    expect(parseTransaction(eip2930)).toMatchObject({ type: "eip2930", accessList, data: "0xa9059cbb" });
  });

  it("signs EIP-4844 (blob) and EIP-7702 (set-code) transactions; viem recovers the signer and the authorization's authority", async () => {
    const { organizationId } = t.emulator.bootstrap;
    const account = await createAccount({ client: http, organizationId, signWith: ethAddress });
    const fees = { maxFeePerGas: 30n, maxPriorityFeePerGas: 2n, gas: 100_000n };
    // @turnkey/viem sends the blob transaction's payload body (no blobs, commitments or proofs) and puts the signature back on the whole.
    const blobHashes = [`0x01${"ab".repeat(31)}`, `0x01${"cd".repeat(31)}`] as `0x${string}`[];
    const blob = await account.signTransaction({ type: "eip4844", chainId: 1, nonce: 7, to: RECIPIENT, value: 3n, ...fees, maxFeePerBlobGas: 5n, blobVersionedHashes: blobHashes });
    expect(parseTransaction(blob)).toMatchObject({ type: "eip4844", maxFeePerBlobGas: 5n, blobVersionedHashes: blobHashes });
    expect((await recoverTransactionAddress({ serializedTransaction: blob as `0x03${string}` })).toLowerCase()).toBe(ethAddress.toLowerCase());
    // The authorization is signed by the same account through sign_raw_payload (PAYLOAD_ENCODING_EIP7702_AUTHORIZATION).
    const authorization = await account.signAuthorization!({ address: RECIPIENT, chainId: 1, nonce: 8 });
    const setCode = await account.signTransaction({ type: "eip7702", chainId: 1, nonce: 7, to: ethAddress as `0x${string}`, value: 0n, ...fees, authorizationList: [authorization] });
    const parsed = parseTransaction(setCode);
    expect(parsed).toMatchObject({ type: "eip7702", authorizationList: [{ address: RECIPIENT.toLowerCase(), chainId: 1, nonce: 8 }] });
    expect((await recoverTransactionAddress({ serializedTransaction: setCode as `0x04${string}` })).toLowerCase()).toBe(ethAddress.toLowerCase());
    expect((await recoverAuthorizationAddress({ authorization: parsed.authorizationList![0]! })).toLowerCase()).toBe(ethAddress.toLowerCase());
  });
});

describe("@turnkey/ethers", () => {
  it("signs a message, typed data and a transaction; ethers recovers the wallet account's address", async () => {
    const { organizationId } = t.emulator.bootstrap;
    const signer = new EthersSigner({ client: http, organizationId, signWith: ethAddress });
    expect((await signer.getAddress()).toLowerCase()).toBe(ethAddress.toLowerCase());
    const signature = await signer.signMessage("gm");
    expect(ethersVerifyMessage("gm", signature).toLowerCase()).toBe(ethAddress.toLowerCase());

    const { EIP712Domain: _domain, ...types } = { EIP712Domain: [], ...TYPED_DATA.types };
    const typed = await signer.signTypedData(TYPED_DATA.domain, types as Record<string, { name: string; type: string }[]>, TYPED_DATA.message);
    expect(ethersVerifyTypedData(TYPED_DATA.domain, types as Record<string, { name: string; type: string }[]>, TYPED_DATA.message, typed).toLowerCase()).toBe(
      ethAddress.toLowerCase(),
    );

    const signedTx = await signer.signTransaction({ type: 2, chainId: 1, nonce: 1, to: RECIPIENT, value: 42n, gasLimit: 21000n, maxFeePerGas: 3n, maxPriorityFeePerGas: 1n });
    const tx = EthersTransaction.from(signedTx);
    expect(tx.from?.toLowerCase()).toBe(ethAddress.toLowerCase());
    expect(tx.value).toBe(42n);
  });
});

describe("@turnkey/solana", () => {
  const blockhash = Keypair.generate().publicKey.toBase58();

  it("signs a legacy transfer and a v0 transaction; the signatures verify with ed25519 over the message", async () => {
    const { organizationId } = t.emulator.bootstrap;
    const signer = new SolanaSigner({ organizationId, client: http });
    const from = new PublicKey(solAddress);
    const to = Keypair.generate().publicKey;

    const legacy = new Transaction({ feePayer: from, recentBlockhash: blockhash }).add(SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: 5000 }));
    const signedLegacy = (await signer.signTransaction(legacy, solAddress)) as Transaction;
    expect(signedLegacy.verifySignatures()).toBe(true);
    const sig = signedLegacy.signatures[0]!.signature!;
    expect(ed25519.verify(sig, signedLegacy.serializeMessage(), from.toBytes())).toBe(true);

    const message = new TransactionMessage({
      payerKey: from,
      recentBlockhash: blockhash,
      instructions: [SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: 1 })],
    }).compileToV0Message();
    const signedV0 = (await signer.signTransaction(new VersionedTransaction(message), solAddress)) as VersionedTransaction;
    expect(ed25519.verify(signedV0.signatures[0]!, signedV0.message.serialize(), from.toBytes())).toBe(true);

    // addSignature goes through sign_raw_payload (hex, HASH_FUNCTION_NOT_APPLICABLE).
    const other = new Transaction({ feePayer: from, recentBlockhash: blockhash }).add(SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: 7 }));
    await signer.addSignature(other, solAddress);
    expect(other.verifySignatures()).toBe(true);

    const text = new TextEncoder().encode("sign in to the emulator");
    const messageSignature = await signer.signMessage(text, solAddress);
    expect(ed25519.verify(messageSignature, text, from.toBytes())).toBe(true);

    // signAllTransactions goes through sign_raw_payloads.
    const batch = [0, 1].map((i) =>
      new Transaction({ feePayer: from, recentBlockhash: blockhash }).add(SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: 100 + i })),
    );
    const signedBatch = (await signer.signAllTransactions(batch, solAddress)) as Transaction[];
    expect(signedBatch.every((tx) => tx.verifySignatures())).toBe(true);
  });
});
