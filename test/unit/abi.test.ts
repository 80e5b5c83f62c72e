/**
 * The ABI-based `eth.tx` keywords (sdk/policy/transactions/abi): calldata encoded by viem's
 * `encodeFunctionData` (an independent encoder) under seeded random ABIs decodes to the values
 * viem was given, in the language's forms (lowercase hex, tuples as lists); the docs' WETH
 * example; strict decoding; and the keywords a signing request gets with and without an ABI.
 */
import { describe, expect, it } from "vitest";
import { encodeFunctionData, getAddress, serializeTransaction, toFunctionSelector, type Abi, type AbiParameter, type Hex } from "viem";
import { AbiError, contractCallFacts, parseAbi } from "../../sdk/policy/transactions/abi";
import { payloadKeywords } from "../../sdk/policy/transactions";
import { seededRandom } from "../support/seeded-random";

// The docs' usage walkthrough (features/policies/smart-contract-interfaces.mdx): WETH's ABI, its functions only.
const WETH_ABI = [
  { constant: false, inputs: [{ name: "guy", type: "address" }, { name: "wad", type: "uint256" }], name: "approve", outputs: [{ name: "", type: "bool" }], payable: false, stateMutability: "nonpayable", type: "function" },
  { constant: false, inputs: [{ name: "dst", type: "address" }, { name: "wad", type: "uint256" }], name: "transfer", outputs: [{ name: "", type: "bool" }], payable: false, stateMutability: "nonpayable", type: "function" },
  { constant: false, inputs: [], name: "deposit", outputs: [], payable: true, stateMutability: "payable", type: "function" },
  { constant: true, inputs: [{ name: "", type: "address" }, { name: "", type: "address" }], name: "allowance", outputs: [{ name: "", type: "uint256" }], payable: false, stateMutability: "view", type: "function" },
  { payable: true, stateMutability: "payable", type: "fallback" },
  { anonymous: false, inputs: [{ indexed: true, name: "src", type: "address" }, { indexed: true, name: "dst", type: "address" }, { indexed: false, name: "wad", type: "uint256" }], name: "Transfer", type: "event" },
] as const;
const DST = "0x08d2b0a37F869FF76BACB5Bab3278E26ab7067B7";

describe("ABI-based eth.tx fields", () => {
  const functions = parseAbi(JSON.stringify(WETH_ABI));

  it("reads the docs' WETH transfer: name, selector 0xa9059cbb, arguments by name (addresses lowercase)", () => {
    expect(functions.map((f) => f.name)).toEqual(["approve", "transfer", "deposit", "allowance"]);
    const data = encodeFunctionData({ abi: WETH_ABI, functionName: "transfer", args: [DST, 10n ** 17n] });
    expect(contractCallFacts(functions, data)).toEqual({
      function_name: "transfer",
      function_signature: "0xa9059cbb",
      contract_call_args: { dst: DST.toLowerCase(), wad: 10n ** 17n },
    });
  });

  it("keys unnamed arguments by position, gives an empty map to a function without arguments", () => {
    const a = "0x1111111111111111111111111111111111111111";
    expect(contractCallFacts(functions, encodeFunctionData({ abi: WETH_ABI, functionName: "allowance", args: [a, DST] })).contract_call_args).toEqual({ 0: a, 1: DST.toLowerCase() });
    expect(contractCallFacts(functions, encodeFunctionData({ abi: WETH_ABI, functionName: "deposit" }))).toEqual({ function_name: "deposit", function_signature: "0xd0e30db0", contract_call_args: {} });
  });

  it("gives nothing for calldata whose selector is not in the ABI, or too short to have one", () => {
    expect(contractCallFacts(functions, "0x12345678" + "00".repeat(32))).toEqual({});
    expect(contractCallFacts(functions, "0xa905")).toEqual({});
    expect(contractCallFacts(functions, "0x")).toEqual({});
  });

  it("tells overloads apart by their selector", () => {
    const abi = [
      { type: "function", name: "f", inputs: [{ name: "x", type: "uint256" }] },
      { type: "function", name: "f", inputs: [{ name: "y", type: "address" }] },
    ] as const;
    const parsed = parseAbi(JSON.stringify(abi));
    expect(parsed.map((f) => f.selector)).toEqual([toFunctionSelector("function f(uint256)"), toFunctionSelector("function f(address)")]);
    expect(contractCallFacts(parsed, encodeFunctionData({ abi, functionName: "f", args: [DST] })).contract_call_args).toEqual({ y: DST.toLowerCase() });
  });

  it("decodes strictly: dirty padding, overflow, a bad bool or offset gives no arguments (the name still counts)", () => {
    const abi = [{ type: "function", name: "g", inputs: [{ name: "a", type: "address" }, { name: "n", type: "uint8" }, { name: "b", type: "bool" }, { name: "s", type: "string" }] }] as const;
    const parsed = parseAbi(JSON.stringify(abi));
    const good = encodeFunctionData({ abi, functionName: "g", args: [DST, 7, true, "hé"] });
    expect(contractCallFacts(parsed, good).contract_call_args).toEqual({ a: DST.toLowerCase(), n: 7n, b: true, s: "hé" });
    const word = (i: number) => 10 + i * 64;
    const patch = (i: number, hex: string) => good.slice(0, word(i)) + hex + good.slice(word(i) + 64);
    const broken = {
      "address padding": patch(0, "ff" + good.slice(word(0) + 2, word(0) + 64)),
      "uint8 overflow": patch(1, "00".repeat(30) + "0100"),
      "bool 2": patch(2, "00".repeat(31) + "02"),
      "offset past the end": patch(3, "00".repeat(30) + "ffff"),
      truncated: good.slice(0, good.length - 64),
      "not UTF-8": good.slice(0, word(5)) + "ff" + good.slice(word(5) + 2),
    };
    for (const [what, data] of Object.entries(broken)) {
      expect(contractCallFacts(parsed, data), what).toEqual({ function_name: "g", function_signature: parsed[0]!.selector });
    }
  });

  it("refuses an ABI it cannot read, naming the entry and field", () => {
    expect(() => parseAbi("{")).toThrow(/smartContractInterface: not JSON/);
    expect(() => parseAbi('{"abi": []}')).toThrow("smartContractInterface: an Ethereum ABI is a JSON array of entries");
    expect(() => parseAbi('[{"type":"function","name":"f","inputs":[{"name":"x","type":"fixed128x18"}]}]')).toThrow(AbiError);
    expect(() => parseAbi('[{"type":"function","name":"f","inputs":[{"name":"x","type":"uint7"}]}]')).toThrow("smartContractInterface[0].inputs[0].type: 'uint7' has no valid width");
    expect(() => parseAbi('[{"type":"function","inputs":[]}]')).toThrow("smartContractInterface[0].name: a function needs a name");
    expect(() => parseAbi('[{"type":"function","name":"f","inputs":[{"name":"t","type":"tuple"}]}]')).toThrow("smartContractInterface[0].inputs[0].components: a tuple needs its components");
  });

  it("bounds the work of offsets that point at the same data again and again", () => {
    const abi = [{ type: "function", name: "h", inputs: [{ name: "m", type: "uint256[][][]" }] }] as const;
    const parsed = parseAbi(JSON.stringify(abi));
    // 200 outer entries all pointing at one list of 200 entries, all pointing at one list of 200 words: 8 million values from 13 KB.
    const w = (n: number) => n.toString(16).padStart(64, "0");
    const inner = w(200) + w(0).repeat(200);
    const middleAt = 32 + 200 * 32;
    const middle = w(200) + w(200 * 32).repeat(200);
    const outer = w(32) + w(200) + w(middleAt).repeat(200);
    const data = parsed[0]!.selector + outer + middle + inner;
    expect(contractCallFacts(parsed, data)).toEqual({ function_name: "h", function_signature: parsed[0]!.selector });
  });
});

/** A random ABI parameter type and a value for it, and what the keyword should read. */
function generator(random: () => number) {
  const int = (n: number) => Math.floor(random() * n);
  const hex = (bytes: number) => `0x${Array.from({ length: bytes }, () => int(256).toString(16).padStart(2, "0")).join("")}` as Hex;
  const bigOf = (bits: number) => BigInt(hex(Math.ceil(bits / 8))) & ((1n << BigInt(bits)) - 1n);
  function type(depth: number, name: string): AbiParameter {
    const r = int(depth > 1 ? 8 : 11);
    if (r >= 9) {
      // An array, of any length or fixed, of a random type (a tuple keeps its components).
      const of = type(depth + 1, name);
      return { ...of, type: `${of.type}${random() < 0.5 ? "[]" : `[${1 + int(3)}]`}` };
    }
    const bits = 8 * (1 + int(32));
    if (r === 8) return { name, type: "tuple", components: Array.from({ length: 1 + int(3) }, (_, i) => type(depth + 1, `m${i}`)) };
    const types = [`uint${bits}`, `int${bits}`, "address", "bool", "bytes", `bytes${1 + int(32)}`, "string", "uint256"];
    return { name, type: types[r]! };
  }
  function value(p: AbiParameter): { given: unknown; expected: unknown } {
    const array = /^(.*)\[(\d*)\]$/.exec(p.type);
    if (array) {
      const length = array[2] === "" ? int(4) : Number(array[2]);
      const items = Array.from({ length }, () => value({ ...p, type: array[1]! }));
      return { given: items.map((i) => i.given), expected: items.map((i) => i.expected) };
    }
    if (p.type === "tuple") {
      const members = (p as { components: AbiParameter[] }).components.map(value);
      return { given: members.map((m) => m.given), expected: members.map((m) => m.expected) };
    }
    const uint = /^uint(\d+)$/.exec(p.type);
    if (uint) {
      const n = random() < 0.2 ? (1n << BigInt(uint[1]!)) - 1n : bigOf(Number(uint[1]));
      return { given: Number(uint[1]) <= 48 ? Number(n) : n, expected: n };
    }
    const sint = /^int(\d+)$/.exec(p.type);
    if (sint) {
      const bits = BigInt(sint[1]!);
      const n = BigInt.asIntN(Number(bits), bigOf(Number(bits)));
      return { given: bits <= 48n ? Number(n) : n, expected: n };
    }
    if (p.type === "address") {
      const a = hex(20);
      return { given: getAddress(a), expected: a.toLowerCase() };
    }
    if (p.type === "bool") {
      const b = random() < 0.5;
      return { given: b, expected: b };
    }
    if (p.type === "string") {
      const s = Array.from({ length: int(40) }, () => String.fromCodePoint([0x61 + int(26), 0xe9, 0x4e2d, 0x1f600][int(4)]!)).join("");
      return { given: s, expected: s };
    }
    const fixed = /^bytes(\d+)$/.exec(p.type);
    const b = hex(fixed ? Number(fixed[1]) : int(70));
    return { given: b, expected: b };
  }
  return { type, value, int };
}

describe("ABI decoding against viem's encoder", () => {
  it("decodes 300 seeded random calls of random ABIs to the values encoded", () => {
    const random = seededRandom(4844);
    const g = generator(random);
    const kinds = new Set<string>();
    for (let n = 0; n < 300; n++) {
      const inputs = Array.from({ length: g.int(5) }, (_, i) => g.type(0, `arg${i}`));
      const abi = [{ type: "function", name: `fn${n}`, inputs, outputs: [], stateMutability: "nonpayable" }] as unknown as Abi;
      const values = inputs.map(g.value);
      const data = encodeFunctionData({ abi, functionName: `fn${n}`, args: values.map((v) => v.given) });
      const facts = contractCallFacts(parseAbi(JSON.stringify(abi)), data);
      expect(facts.function_signature, `call ${n}`).toBe(data.slice(0, 10));
      expect(facts.contract_call_args, `call ${n}: ${JSON.stringify(inputs)}`).toEqual(Object.fromEntries(inputs.map((p, i) => [p.name, values[i]!.expected])));
      const note = (p: AbiParameter): void => {
        kinds.add(p.type.replace(/\d+/g, "N"));
        ((p as { components?: AbiParameter[] }).components ?? []).forEach(note);
      };
      inputs.forEach(note);
    }
    // Not vacuous: every kind of type was generated, nested and in arrays.
    for (const kind of ["uintN", "intN", "address", "bool", "bytes", "bytesN", "string", "tuple", "tuple[]", "bytes[]", "string[N]"]) expect(kinds).toContain(kind);
  });
});

describe("payloadKeywords with an uploaded ABI", () => {
  const weth = "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2";
  const calldata = encodeFunctionData({ abi: WETH_ABI, functionName: "transfer", args: [DST, 5n] });
  const tx = (to: Hex) => serializeTransaction({ type: "eip1559", chainId: 1, to, value: 0n, data: calldata }).slice(2);
  const params = (to: Hex) => ({ unsignedTransaction: tx(to), type: "TRANSACTION_TYPE_ETHEREUM" });

  it("adds function_name, function_signature and contract_call_args for the contract the ABI was uploaded for", () => {
    const seen: string[] = [];
    const abiFor = (type: string, address: string) => (seen.push(`${type} ${address}`), address === weth.toLowerCase() ? JSON.stringify(WETH_ABI) : undefined);
    const keywords = payloadKeywords("ACTIVITY_TYPE_SIGN_TRANSACTION_V2", params(weth), "0xaa", abiFor) as { eth: { tx: Record<string, unknown> } };
    expect(keywords.eth.tx).toMatchObject({ to: weth.toLowerCase(), data: calldata, function_name: "transfer", function_signature: "0xa9059cbb", contract_call_args: { dst: DST.toLowerCase(), wad: 5n } });
    expect(seen).toEqual([`ETHEREUM ${weth.toLowerCase()}`]);
    const other = payloadKeywords("ACTIVITY_TYPE_SIGN_TRANSACTION_V2", params(DST), "0xaa", abiFor) as { eth: { tx: Record<string, unknown> } };
    expect(other.eth.tx.data).toBe(calldata);
    expect(other.eth.tx).not.toHaveProperty("function_name");
  });

  it("keeps the transaction's own fields when the uploaded ABI cannot be read", () => {
    const keywords = payloadKeywords("ACTIVITY_TYPE_SIGN_TRANSACTION_V2", params(weth), "0xaa", () => "not json") as { eth: { tx: Record<string, unknown> } };
    expect(keywords.eth.tx).toMatchObject({ to: weth.toLowerCase(), type: "TYPE_2" });
    expect(keywords.eth.tx).not.toHaveProperty("function_name");
  });
});
