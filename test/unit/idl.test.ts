/**
 * The IDL-based Solana keywords (sdk/policy/transactions/idl): Anchor's discriminators against
 * their published values, Borsh arguments of both IDL formats written out byte by byte from the
 * Borsh specification, strict failures, and `parsed_instruction_data` in `solana.tx` of a
 * transaction built by @solana/web3.js for a program whose IDL is uploaded.
 */
import { createHash } from "node:crypto";
import { Keypair, PublicKey, Transaction, TransactionInstruction } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { payloadKeywords } from "../../sdk/policy/transactions";
import { IdlError, parseIdl, parsedInstructionData } from "../../sdk/policy/transactions/idl";

const le = (n: bigint, bytes: number) => Uint8Array.from({ length: bytes }, (_, i) => Number((BigInt.asUintN(bytes * 8, n) >> BigInt(8 * i)) & 0xffn));
const cat = (...parts: (Uint8Array | number[])[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
const str = (s: string) => { const b = new TextEncoder().encode(s); return cat(le(BigInt(b.length), 4), b); };
const fromHex = (hex: string) => Uint8Array.from(hex.match(/../g)!.map((h) => parseInt(h, 16)));

// The docs' example IDL (older format), with a struct, an enum and every kind of argument.
const LEGACY_IDL = {
  instructions: [
    { name: "initialize", accounts: [{ name: "authority", isMut: false, isSigner: true, isOptional: false }], args: [{ name: "amount", type: "u64" }] },
    {
      name: "swapBaseIn",
      accounts: [{ name: "pool", isMut: true, isSigner: false }, { name: "nested", accounts: [{ name: "user", isMut: false, isSigner: true }] }],
      args: [
        { name: "flag", type: "bool" },
        { name: "delta", type: "i32" },
        { name: "big", type: "u128" },
        { name: "label", type: "string" },
        { name: "blob", type: "bytes" },
        { name: "to", type: "publicKey" },
        { name: "amounts", type: { vec: "u16" } },
        { name: "pair", type: { array: ["u8", 2] } },
        { name: "maybe", type: { option: "u8" } },
        { name: "none", type: { option: "u8" } },
        { name: "params", type: { defined: "MyStruct" } },
        { name: "side", type: { defined: "Side" } },
        { name: "order", type: { defined: "Side" } },
      ],
    },
  ],
  types: [
    { name: "MyStruct", type: { kind: "struct", fields: [{ name: "value", type: "u64" }] } },
    { name: "Side", type: { kind: "enum", variants: [{ name: "Bid" }, { name: "Limit", fields: [{ name: "price", type: "u32" }] }] } },
  ],
};
const TO = Keypair.generate().publicKey;

describe("IDL-based solana.tx fields", () => {
  const idl = parseIdl(JSON.stringify(LEGACY_IDL));

  it("gives an instruction without a discriminator Anchor's: sha256('global:<snake_case name>'), first 8 bytes", () => {
    // Anchor's published value for `initialize`; `swapBaseIn` hashes as `swap_base_in`.
    expect(idl.instructions.map((i) => i.discriminator)).toEqual(["afaf6d1f0d989bed", createHash("sha256").update("global:swap_base_in").digest("hex").slice(0, 16)]);
    expect(parseIdl(JSON.stringify({ instructions: [{ name: "route", accounts: [], args: [] }], types: [] })).instructions[0]!.discriminator).toBe("e517cb977ae3ad2a");
  });

  it("reads every argument type of the docs' list, the accounts by name (nested groups flattened)", () => {
    const data = cat(
      fromHex(idl.instructions[1]!.discriminator),
      [1], le(-5n, 4), le(2n ** 100n, 16), str("héllo"), cat(le(2n, 4), [0xab, 0xcd]), TO.toBytes(),
      cat(le(2n, 4), le(7n, 2), le(9n, 2)), [3, 4], [1, 42], [0], le(77n, 8), [0], cat([1], le(99n, 4)),
    );
    const accounts = [Keypair.generate().publicKey.toBase58(), Keypair.generate().publicKey.toBase58(), "extra"];
    expect(parsedInstructionData(idl, data, accounts)).toEqual({
      instruction_name: "swapBaseIn",
      discriminator: idl.instructions[1]!.discriminator,
      named_account: { pool: accounts[0], user: accounts[1] },
      named_accounts: { pool: accounts[0], user: accounts[1] },
      program_call_args: {
        flag: true, delta: -5n, big: 2n ** 100n, label: "héllo", blob: "abcd", to: TO.toBase58(), amounts: [7n, 9n], pair: [3n, 4n], maybe: 42n,
        params: { value: 77n }, side: "Bid", order: { Limit: { price: 99n } },
      },
    });
  });

  it("reads Anchor 0.30's format: explicit discriminators, pubkey, {defined: {name}}, aliases", () => {
    const modern = parseIdl(JSON.stringify({
      instructions: [{ name: "deposit", discriminator: [1, 2, 3, 4, 5, 6, 7, 8], accounts: [{ name: "vault", writable: true }], args: [{ name: "owner", type: "pubkey" }, { name: "amount", type: { defined: { name: "Amount" } } }] }],
      types: [{ name: "Amount", type: { kind: "type", alias: "u64" } }],
    }));
    expect(parsedInstructionData(modern, cat([1, 2, 3, 4, 5, 6, 7, 8], TO.toBytes(), le(5n, 8)), ["v"])).toMatchObject({
      instruction_name: "deposit", discriminator: "0102030405060708", program_call_args: { owner: TO.toBase58(), amount: 5n },
    });
  });

  it("gives nothing for an unknown discriminator; arguments that do not decode leave out program_call_args only", () => {
    expect(parsedInstructionData(idl, fromHex("0000000000000000"), [])).toBeUndefined();
    const init = fromHex("afaf6d1f0d989bed");
    expect(parsedInstructionData(idl, cat(init, le(5n, 8)), ["a"])!.program_call_args).toEqual({ amount: 5n });
    expect(parsedInstructionData(idl, cat(init, [1, 2]), ["a"])).toEqual({ instruction_name: "initialize", discriminator: "afaf6d1f0d989bed", named_account: { authority: "a" }, named_accounts: { authority: "a" } });
    const swap = fromHex(idl.instructions[1]!.discriminator);
    expect(parsedInstructionData(idl, cat(swap, [2]), [])).not.toHaveProperty("program_call_args"); // a bool of 2
  });

  it("refuses an IDL it cannot read, naming the field", () => {
    expect(() => parseIdl("[]")).toThrow("smartContractInterface: an IDL is a JSON object");
    expect(() => parseIdl('{"instructions": []}')).toThrow(/smartContractInterface.types: expected a list/);
    expect(() => parseIdl('{"instructions": [{"args": []}], "types": []}')).toThrow("smartContractInterface.instructions[0].name: an instruction needs a name");
    expect(() => parseIdl('{"instructions": [{"name": "x", "discriminator": [256], "args": []}], "types": []}')).toThrow(IdlError);
  });
});

describe("payloadKeywords with an uploaded IDL", () => {
  it("adds parsed_instruction_data to the instructions of the program the IDL was uploaded for", () => {
    const program = Keypair.generate().publicKey;
    const payer = Keypair.generate().publicKey;
    const data = Buffer.from(cat(fromHex("afaf6d1f0d989bed"), le(995500000n, 8)));
    const tx = new Transaction({ feePayer: payer, recentBlockhash: Keypair.generate().publicKey.toBase58() })
      .add(new TransactionInstruction({ programId: program, keys: [{ pubkey: payer, isSigner: true, isWritable: false }], data }))
      .add(new TransactionInstruction({ programId: new PublicKey("11111111111111111111111111111112"), keys: [], data }));
    const hex = Buffer.from(tx.serialize({ requireAllSignatures: false, verifySignatures: false })).toString("hex");
    const seen: string[] = [];
    const interfaceFor = (type: string, address: string) => (seen.push(`${type} ${address}`), address === program.toBase58() ? JSON.stringify(LEGACY_IDL) : undefined);
    const keywords = payloadKeywords("ACTIVITY_TYPE_SIGN_TRANSACTION_V2", { unsignedTransaction: hex, type: "TRANSACTION_TYPE_SOLANA" }, "", interfaceFor) as any;
    const [first, second] = keywords.solana.tx.instructions;
    expect(first.parsed_instruction_data).toEqual({
      instruction_name: "initialize",
      discriminator: "afaf6d1f0d989bed",
      named_account: { authority: payer.toBase58() },
      named_accounts: { authority: payer.toBase58() },
      program_call_args: { amount: 995500000n },
    });
    expect(second).not.toHaveProperty("parsed_instruction_data");
    expect(seen.sort()).toEqual([`SOLANA ${program.toBase58()}`, "SOLANA 11111111111111111111111111111112"].sort());
  });
});
