/**
 * The payload decoders behind the signing activities and their policy keywords
 * (sdk/policy/transactions): RLP against the Yellow Paper's vectors, Ethereum transactions and
 * EIP-712 / EIP-7702 digests against viem on seeded random inputs, Solana transactions built by
 * @solana/web3.js (System and Token transfers, a v0 message with a lookup table).
 */
import { bytesToHex, hexToBytes } from "@noble/hashes/utils";
import {
  AddressLookupTableAccount,
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { hashTypedData, keccak256, parseTransaction, serializeTransaction, type Hex, type TransactionSerializable } from "viem";
import { hashAuthorization } from "viem/utils";
import { authorizationHash, parseAuthorization, parseTypedData, typedDataFacts, typedDataHash } from "../../sdk/policy/transactions/eip712";
import { decodeEthereumTransaction, ethereumSigningHash, ethereumTransactionFacts, TransactionDecodeError } from "../../sdk/policy/transactions/ethereum";
import { payloadKeywords } from "../../sdk/policy/transactions";
import { rlpDecode, rlpEncode, RlpError, rlpUint, type RlpItem } from "../../sdk/policy/transactions/rlp";
import { ADDRESS_TABLE_LOOKUP, decodeSolanaTransaction, solanaTransactionFacts, withSolanaSignature } from "../../sdk/policy/transactions/solana";
import { seededRandom } from "../support/seeded-random";

const utf8 = (s: string) => new TextEncoder().encode(s);

describe("RLP", () => {
  // Yellow Paper appendix B / the Ethereum wiki's examples.
  const vectors: [RlpItem, string][] = [
    [utf8("dog"), "83646f67"],
    [[utf8("cat"), utf8("dog")], "c88363617483646f67"],
    [new Uint8Array(0), "80"],
    [[], "c0"],
    [rlpUint(0n), "80"],
    [Uint8Array.of(0x00), "00"],
    [rlpUint(15n), "0f"],
    [rlpUint(1024n), "820400"],
    [[[], [[]], [[], [[]]]], "c7c0c1c0c3c0c1c0"],
    [utf8("Lorem ipsum dolor sit amet, consectetur adipisicing elit"), "b838" + bytesToHex(utf8("Lorem ipsum dolor sit amet, consectetur adipisicing elit"))],
  ];
  it.each(vectors.map(([item, hex], i) => [i, item, hex] as const))("vector %i encodes and decodes", (_i, item, hex) => {
    expect(bytesToHex(rlpEncode(item))).toBe(hex);
    expect(rlpDecode(hexToBytes(hex))).toEqual(item);
  });

  it.each([
    ["8100", /single byte below 0x80/],
    ["b80100", /long length is used for a short item/],
    ["83646f", /past the end/],
    ["8080", /left over/],
    ["b90000", /leading zero/],
  ])("refuses the non-canonical or broken %s", (hex, message) => {
    expect(() => rlpDecode(hexToBytes(hex))).toThrow(RlpError);
    expect(() => rlpDecode(hexToBytes(hex))).toThrow(message);
  });
});

/** An unsigned EIP-7702 transaction with `to` and `authorizationList` as given (its other fields 1 or empty), hex. */
const setCode = (to: Uint8Array, authorizationList: RlpItem[]) =>
  "04" + bytesToHex(rlpEncode([rlpUint(1n), rlpUint(1n), rlpUint(1n), rlpUint(1n), rlpUint(21000n), to, rlpUint(1n), new Uint8Array(0), [], authorizationList]));

describe("Ethereum transactions", () => {
  it("decode as viem parses them, with viem's signing hash, over 200 seeded random transactions", () => {
    const random = seededRandom(2930);
    const big = (bits: number) => BigInt(`0x${Array.from({ length: bits / 8 }, () => Math.floor(random() * 256).toString(16).padStart(2, "0")).join("")}`);
    const address = () => `0x${bytesToHex(Uint8Array.from({ length: 20 }, () => Math.floor(random() * 256)))}` as Hex;
    const kinds = ["legacy", "eip2930", "eip1559", "eip4844", "eip7702"] as const;
    for (let i = 0; i < 250; i++) {
      const kind = kinds[i % kinds.length]!;
      // Blob and set-code transactions always name a recipient.
      const creates = i % 17 === 0 && kind !== "eip4844" && kind !== "eip7702";
      const common = { nonce: Number(big(16)), to: creates ? undefined : address(), value: big(i % 2 ? 8 : 96), gas: big(32), data: (i % 4 ? `0x${bytesToHex(Uint8Array.from({ length: i % 70 }, () => Math.floor(random() * 256)))}` : "0x") as Hex };
      const chainId = 1 + Number(big(16));
      const accessList = i % 5 === 0 ? [{ address: address(), storageKeys: [`0x${"00".repeat(31)}0${i % 10}` as Hex] }] : [];
      const fees = { maxFeePerGas: big(40), maxPriorityFeePerGas: big(24) };
      const authorization = () => ({ address: address(), chainId: Number(big(16)), nonce: Number(big(16)), r: `0x${big(256).toString(16)}` as Hex, s: `0x${big(248).toString(16)}` as Hex, yParity: Number(big(8)) % 2 });
      const tx: TransactionSerializable =
        kind === "eip1559"
          ? { ...common, type: kind, chainId, ...fees, accessList }
          : kind === "eip4844"
          ? { ...common, type: kind, chainId, ...fees, accessList, maxFeePerBlobGas: big(32), blobVersionedHashes: Array.from({ length: 1 + (i % 3) }, () => `0x01${bytesToHex(Uint8Array.from({ length: 31 }, () => Math.floor(random() * 256)))}` as Hex) }
          : kind === "eip7702"
          ? { ...common, type: kind, chainId, ...fees, accessList, authorizationList: Array.from({ length: 1 + (i % 2) }, authorization) }
          : kind === "eip2930"
            ? { ...common, type: kind, chainId, gasPrice: big(40), accessList }
            : { ...common, type: kind, gasPrice: big(40), ...(i % 6 === 0 ? {} : { chainId }) };
      const serialized = serializeTransaction(tx);
      const decoded = decodeEthereumTransaction(serialized.slice(2));
      const parsed = parseTransaction(serialized);
      expect(decoded.kind).toBe({ legacy: "LEGACY", eip2930: "TYPE_1", eip1559: "TYPE_2", eip4844: "TYPE_3", eip7702: "TYPE_4" }[kind]);
      expect(decoded.to).toBe(parsed.to?.toLowerCase() ?? "");
      expect(decoded.value).toBe(parsed.value ?? 0n);
      expect(decoded.nonce).toBe(BigInt(parsed.nonce ?? 0));
      expect(decoded.gas).toBe(parsed.gas ?? 0n);
      expect(decoded.data).toBe(parsed.data ?? "0x");
      expect(decoded.chainId).toBe(parsed.chainId === undefined ? undefined : BigInt(parsed.chainId));
      expect(`0x${bytesToHex(ethereumSigningHash(decoded))}`).toBe(keccak256(serialized));
      const facts = ethereumTransactionFacts(decoded, "0xABCDEF0000000000000000000000000000000001");
      expect(facts.gas_price).toBe(kind === "legacy" || kind === "eip2930" ? parsed.gasPrice : parsed.maxFeePerGas);
      expect(facts.type).toBe(decoded.kind);
      expect(facts.max_fee_per_blob_gas).toBe(parsed.maxFeePerBlobGas);
      expect(facts.from).toBe("0xabcdef0000000000000000000000000000000001");
    }
  });

  it.each([
    ["", /empty transaction/],
    ["0xzz", /expected hex/],
    ["05c0", /type 0x05 is not an Ethereum transaction type keyform decodes/],
    ["03c0", /TYPE_3 transaction has 11 fields/],
    // The network form of a blob transaction (the payload body, blobs, commitments, proofs) is not what is signed.
    ["03c4c0c0c0c0", /TYPE_3 transaction has 11 fields before signing, got 4/],
    [setCode(new Uint8Array(0), []), /to: expected a 20-byte address$/],
    [setCode(hexToBytes("11".repeat(20)), [rlpUint(1n)]), /authorizationList\[0\]: expected a list/],
    [setCode(hexToBytes("11".repeat(20)), [[rlpUint(1n), hexToBytes("22".repeat(19)), rlpUint(0n), rlpUint(0n), rlpUint(1n), rlpUint(1n)]]), /authorizationList\[0\].address: expected a 20-byte address$/],
    ["02c3010203", /TYPE_2 transaction has 9 fields/],
    ["c3010203", /legacy transaction has 6 fields/],
  ])("refuses %j with a reason", (hex, message) => {
    expect(() => decodeEthereumTransaction(hex)).toThrow(TransactionDecodeError);
    expect(() => decodeEthereumTransaction(hex)).toThrow(message);
  });
});

describe("EIP-712 and EIP-7702", () => {
  it("digests equal viem's hashTypedData over seeded random typed data (nested structs, arrays, bytes, signed ints)", () => {
    const random = seededRandom(712);
    for (let i = 0; i < 60; i++) {
      const n = () => BigInt(Math.floor(random() * 1e12)) * (random() < 0.3 ? -1n : 1n);
      const hex = (len: number) => `0x${bytesToHex(Uint8Array.from({ length: len }, () => Math.floor(random() * 256)))}` as Hex;
      const data = {
        domain: { name: `dapp-${i}`, version: "2", chainId: 1 + i, verifyingContract: hex(20), ...(i % 3 === 0 ? { salt: hex(32) } : {}) },
        types: {
          Leaf: [
            { name: "amount", type: "int128" },
            { name: "blob", type: "bytes" },
          ],
          Root: [
            { name: "owner", type: "address" },
            { name: "ok", type: "bool" },
            { name: "tag", type: "bytes4" },
            { name: "leaves", type: "Leaf[]" },
            { name: "grid", type: "uint64[2][]" },
            { name: "note", type: "string" },
          ],
        },
        primaryType: "Root",
        message: {
          owner: hex(20),
          ok: random() < 0.5,
          tag: hex(4),
          leaves: Array.from({ length: i % 4 }, () => ({ amount: n(), blob: hex(i % 9) })),
          grid: Array.from({ length: i % 3 }, () => [BigInt(i), BigInt(i * 2)]),
          note: `nöte ${i}`,
        },
      } as const;
      const json = JSON.stringify(data, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
      expect(`0x${bytesToHex(typedDataHash(parseTypedData(json)))}`, `typed data ${i}`).toBe(hashTypedData(data as never));
    }
  });

  it("facts lowercase hex; the authorization digest equals viem's hashAuthorization", () => {
    const facts = typedDataFacts(
      parseTypedData(JSON.stringify({ types: { P: [{ name: "a", type: "address" }] }, primaryType: "P", domain: { name: "N", chainId: 5, verifyingContract: "0xABCDEF0000000000000000000000000000000001" }, message: { a: "0xAbCd000000000000000000000000000000000002" } })),
    );
    expect(facts).toEqual({ primary_type: "P", domain: { name: "N", chain_id: 5n, verifying_contract: "0xabcdef0000000000000000000000000000000001" }, message: { a: "0xabcd000000000000000000000000000000000002" } });
    const auth = parseAuthorization(JSON.stringify({ address: "0x1111111111111111111111111111111111111111", chainId: 8453, nonce: 12 }));
    expect(`0x${bytesToHex(authorizationHash(auth))}`).toBe(hashAuthorization({ address: "0x1111111111111111111111111111111111111111", chainId: 8453, nonce: 12 }));
    expect(() => parseAuthorization(JSON.stringify({ address: "0x11", chainId: 1, nonce: 0 }))).toThrow(/address: expected a 20-byte address/);
  });
});

describe("Solana transactions", () => {
  const payer = Keypair.generate().publicKey;
  const blockhash = Keypair.generate().publicKey.toBase58();
  const TOKEN = new PublicKey("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");

  it("a legacy transaction: System and Token transfers, signer and writable flags, the signature placed in the signer's slot", () => {
    const to = Keypair.generate().publicKey;
    const [source, mint, dest] = [Keypair.generate().publicKey, Keypair.generate().publicKey, Keypair.generate().publicKey];
    const amount = Buffer.alloc(8);
    amount.writeBigUInt64LE(123456789n);
    const transferChecked = new TransactionInstruction({
      programId: TOKEN,
      keys: [
        { pubkey: source, isSigner: false, isWritable: true },
        { pubkey: mint, isSigner: false, isWritable: false },
        { pubkey: dest, isSigner: false, isWritable: true },
        { pubkey: payer, isSigner: true, isWritable: false },
      ],
      data: Buffer.concat([Buffer.from([12]), amount, Buffer.from([6])]),
    });
    const tx = new Transaction({ feePayer: payer, recentBlockhash: blockhash }).add(SystemProgram.transfer({ fromPubkey: payer, toPubkey: to, lamports: 5000 }), transferChecked);
    const hex = tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("hex");
    const decoded = decodeSolanaTransaction(hex);
    const facts = solanaTransactionFacts(decoded) as any;
    expect(facts.recent_blockhash).toBe(blockhash);
    expect(facts.transfers).toEqual([{ from: payer.toBase58(), to: to.toBase58(), amount: 5000n }]);
    expect(facts.spl_transfers).toEqual([{ from: source.toBase58(), to: dest.toBase58(), owner: payer.toBase58(), signers: [], amount: 123456789n, token_mint: mint.toBase58() }]);
    expect(facts.program_keys).toEqual([SystemProgram.programId.toBase58(), TOKEN.toBase58()]);
    expect(facts.instructions[0].accounts).toEqual([
      { account_key: payer.toBase58(), signer: true, writable: true },
      { account_key: to.toBase58(), signer: false, writable: true },
    ]);
    expect(facts.instructions[1].accounts[1]).toEqual({ account_key: mint.toBase58(), signer: false, writable: false });
    // A bare message decodes too, to the same facts.
    expect(solanaTransactionFacts(decodeSolanaTransaction(tx.serializeMessage().toString("hex")))).toEqual(facts);
    const signature = Uint8Array.from({ length: 64 }, (_, i) => i);
    const signed = Transaction.from(withSolanaSignature(decoded, payer.toBase58(), signature));
    expect(Uint8Array.from(signed.signatures[0]!.signature!)).toEqual(signature);
  });

  it("a v0 message with an address lookup table: looked-up accounts read ADDRESS_TABLE_LOOKUP", () => {
    const looked = Keypair.generate().publicKey;
    const table = new AddressLookupTableAccount({
      key: Keypair.generate().publicKey,
      state: { deactivationSlot: BigInt("18446744073709551615"), lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses: [looked] },
    });
    const message = new TransactionMessage({
      payerKey: payer,
      recentBlockhash: blockhash,
      instructions: [SystemProgram.transfer({ fromPubkey: payer, toPubkey: looked, lamports: 9 })],
    }).compileToV0Message([table]);
    const hex = Buffer.from(new VersionedTransaction(message).serialize()).toString("hex");
    const facts = solanaTransactionFacts(decodeSolanaTransaction(hex)) as any;
    expect(facts.transfers).toEqual([{ from: payer.toBase58(), to: ADDRESS_TABLE_LOOKUP, amount: 9n }]);
    expect(facts.address_table_lookups).toEqual([{ address_table_key: table.key.toBase58(), writable_indexes: [0n], readonly_indexes: [] }]);
    expect(facts.instructions[0].accounts[1]).toEqual({ account_key: ADDRESS_TABLE_LOOKUP, signer: false, writable: true });
  });
});

describe("payloadKeywords", () => {
  it("gives the chain keyword of each signing payload, and none for one that does not decode", () => {
    const tx = serializeTransaction({ type: "eip1559", chainId: 1, to: "0x1111111111111111111111111111111111111111", value: 7n }).slice(2);
    expect(payloadKeywords("ACTIVITY_TYPE_SIGN_TRANSACTION_V2", { unsignedTransaction: tx, type: "TRANSACTION_TYPE_ETHEREUM" }, "0xAA")).toMatchObject({
      eth: { tx: { to: "0x1111111111111111111111111111111111111111", value: 7n, from: "0xaa", type: "TYPE_2" } },
    });
    expect(payloadKeywords("ACTIVITY_TYPE_SIGN_TRANSACTION_V2", { unsignedTransaction: "zz", type: "TRANSACTION_TYPE_ETHEREUM" })).toEqual({});
    expect(payloadKeywords("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", { payload: "00", encoding: "PAYLOAD_ENCODING_HEXADECIMAL" })).toEqual({});
    expect(payloadKeywords("ACTIVITY_TYPE_CREATE_USERS_V4", { unsignedTransaction: tx })).toEqual({});
  });
});
