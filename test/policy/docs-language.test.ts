/**
 * keyform's policy language against the service's language page (features/policies/language.mdx),
 * table by table: every keyword path and struct field with its type, the activity resources and
 * actions, every activity kind with its versions, resource and action, and the `activity.params`
 * fields of each type. The docs' tables are read from test/policy/fixtures/docs-language.json
 * (extracted by scripts/policy-docs-fixtures.mjs); when the docs checkout is on this machine, the
 * fixture itself is checked against the docs, so drift on either side fails here.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { activityFacts, activityKind } from "../../sdk/policy/activity";
import { checkKeywordValues } from "../../sdk/policy/keyword-values";
import { checkPolicy, simulate } from "../../sdk/policy";
import { activityCatalog, activityTypeInfo, keywordAvailable, keywordsFor, latestTypeOf } from "../../sdk/policy/catalog";
import { ACTIONS, KEYWORDS, RESOURCES, typeName, type Type } from "../../sdk/policy/types";
import docs from "./fixtures/docs-language.json";

/** Where keyform's types knowingly differ from the docs' tables, and why. */
const DEVIATIONS: Readonly<Record<string, string>> = {
  // The type column says TronKey, the description "a list of addresses and weights … up to 5 keys".
  "TronPermission.keys": "list<TronKey>",
  // The docs type `activity.params` as "struct"; keyform types the documented fields (ActivityParams, open).
  "Activity.params": "ActivityParams",
};
/** Fields keyform accepts beyond the docs' struct tables, and why. */
const EXTRA_FIELDS: Readonly<Record<string, string>> = {
  // The struct table spells `named_account`; the Solana prose (instruction list) spells `named_accounts`.
  "SolanaParsedInstructionData.named_accounts": "map<string, string>",
};

/** A type as the docs write it, in keyform's spelling (`typeName`). */
function normalize(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  const option = /^Option<(.*)>$/.exec(t);
  if (option) return normalize(option[1]!);
  const list = /^list<(.*)>$/i.exec(t);
  if (list) return `list<${normalize(list[1]!)}>`;
  const map = /^map<\s*string\s*,\s*(.*)>$/i.exec(t);
  if (map) return `map<string, ${normalize(map[1]!)}>`;
  const aliases: Record<string, string> = { boolean: "bool", number: "int", String: "string", ContractArgument: "dyn", Value: "dyn" };
  return aliases[t] ?? t;
}

/** The keyform type at a dotted keyword path (`eth.tx`), or undefined. */
function typeAt(path: string, kind: keyof typeof KEYWORDS): Type | undefined {
  const [root = "", ...rest] = path.split(".");
  let type: Type | undefined = KEYWORDS[kind][root];
  for (const segment of rest) type = type?.t === "object" ? type.fields[segment] : undefined;
  return type;
}

/** Every object type reachable from `type`, by name. */
function structsIn(type: Type, found = new Map<string, Extract<Type, { t: "object" }>>()): Map<string, Extract<Type, { t: "object" }>> {
  if (type.t === "list" || type.t === "map") return structsIn(type.of, found);
  if (type.t !== "object" || found.has(type.name)) return found;
  found.set(type.name, type);
  for (const field of Object.values(type.fields)) structsIn(field, found);
  return found;
}

describe("keywords and types against the docs' tables", () => {
  const structs = docs.structs as Record<string, Record<string, string>>;

  it("every keyword path of each expression kind exists with the documented type", () => {
    const mismatches: string[] = [];
    for (const kind of ["consensus", "condition", "time"] as const) {
      for (const [path, type] of Object.entries(docs.keywords[kind] as Record<string, string>)) {
        const ours = typeAt(path, kind);
        if (!ours || typeName(ours) !== normalize(type)) mismatches.push(`${kind} ${path}: docs ${normalize(type)}, keyform ${ours ? typeName(ours) : "missing"}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it("a condition's keywords are exactly the docs' (plus secret from the secrets page, and time)", () => {
    const roots = new Set(Object.keys(docs.keywords.condition).map((path) => path.split(".")[0]!));
    expect(new Set(Object.keys(KEYWORDS.condition))).toEqual(new Set([...roots, "secret", "time"]));
    expect(Object.keys(KEYWORDS.consensus).sort()).toEqual(Object.keys(docs.keywords.consensus).sort());
  });

  it("every struct of the docs has exactly the documented fields and types", () => {
    const reachable = new Map<string, Extract<Type, { t: "object" }>>();
    for (const kind of ["consensus", "condition", "time"] as const) for (const type of Object.values(KEYWORDS[kind])) structsIn(type, reachable);
    const mismatches: string[] = [];
    for (const [name, fields] of Object.entries(structs)) {
      const ours = reachable.get(name);
      if (!ours) {
        mismatches.push(`${name}: not reachable from any keyword`);
        continue;
      }
      for (const [field, type] of Object.entries(fields)) {
        const want = DEVIATIONS[`${name}.${field}`] ?? normalize(type);
        const got = ours.fields[field];
        if (!got || typeName(got) !== want) mismatches.push(`${name}.${field}: docs ${want}, keyform ${got ? typeName(got) : "missing"}`);
      }
      for (const [field, type] of Object.entries(ours.fields)) {
        if (field in fields) continue;
        if (EXTRA_FIELDS[`${name}.${field}`] === typeName(type)) continue;
        mismatches.push(`${name}.${field}: in keyform, not in the docs`);
      }
    }
    expect(mismatches).toEqual([]);
    // Struct types keyform has that the docs do not describe are only its own groupings of keywords.
    const undocumented = [...reachable.keys()].filter((name) => !(name in structs)).sort();
    expect(undocumented).toEqual(["ActivityParams", "Bitcoin", "Eth", "Secret", "Solana", "Tempo", "Time", "Tron"]);
  });

  it("every documented activity.params field has its documented type in the checker", () => {
    const params = typeAt("activity.params", "condition");
    expect(params?.t).toBe("object");
    const fields = (params as Extract<Type, { t: "object" }>).fields;
    const mismatches = docs.params
      .filter(({ field, fieldType }) => !fields[field] || typeName(fields[field]!) !== normalize(fieldType))
      .map(({ type, field, fieldType }) => `${type}.${field}: docs ${fieldType}, keyform ${fields[field] ? typeName(fields[field]!) : "missing"}`);
    expect(mismatches).toEqual([]);
  });

  it("resources and actions are the documented lists", () => {
    expect([...RESOURCES].sort()).toEqual([...docs.resources].sort());
    expect([...ACTIONS].sort()).toEqual([...docs.actions].sort());
  });
});

describe("the activity catalog against the docs' activity tables", () => {
  it("every type of 'Activity types by resource and action' has the documented resource and action, in the catalog and in what a condition sees", () => {
    const mismatches: string[] = [];
    for (const { resource, action, type } of docs.typesByResourceAndAction) {
      const entry = activityTypeInfo(type);
      const seen = activityFacts(type, {});
      if (!entry || entry.resource !== resource || entry.action !== action || !entry.factsDocumented || !entry.documented) {
        mismatches.push(`${type}: docs ${resource}/${action}, catalog ${entry ? `${entry.resource}/${entry.action}` : "missing"}`);
      }
      if (seen.resource !== resource || seen.action !== action) mismatches.push(`${type}: the evaluator sees ${seen.resource}/${seen.action}`);
    }
    expect(mismatches).toEqual([]);
  });

  it("every kind of 'Activity kinds' has every documented version, and its newest is the catalog's latest", () => {
    const mismatches: string[] = [];
    for (const [kind, types] of Object.entries(docs.kinds as Record<string, string[]>)) {
      for (const type of types) {
        const entry = activityTypeInfo(type);
        if (!entry || entry.kind !== kind || activityKind(type) !== kind) mismatches.push(`${type}: kind ${entry?.kind ?? "missing"}, want ${kind}`);
      }
      const newest = Math.max(...types.map((type) => Number(/_V(\d+)$/.exec(type)?.[1] ?? 1)));
      if (latestTypeOf(kind)?.version !== newest) mismatches.push(`${kind}: latest V${latestTypeOf(kind)?.version}, docs V${newest}`);
    }
    expect(mismatches).toEqual([]);
  });

  it("activity.params: exactly the documented fields for each type, none for the others", () => {
    const documented = new Map<string, Record<string, string>>();
    for (const { type, field, fieldType } of docs.params) documented.set(type, { ...documented.get(type), [field]: fieldType });
    const mismatches: string[] = [];
    for (const entry of activityCatalog().values()) {
      const want = documented.get(entry.type) ?? {};
      if (JSON.stringify(entry.paramTypes) !== JSON.stringify(want)) mismatches.push(`${entry.type}: ${JSON.stringify(entry.paramTypes)} vs docs ${JSON.stringify(want)}`);
      if (Object.keys(entry.params).sort().join() !== Object.keys(want).sort().join()) mismatches.push(`${entry.type}: params ${Object.keys(entry.params)}`);
    }
    for (const type of documented.keys()) if (!activityTypeInfo(type)) mismatches.push(`${type}: not in the catalog`);
    expect(mismatches).toEqual([]);
  });

  it("what the evaluator sees of activity.params is only the documented fields (a wire field is a MissingField)", () => {
    const signing = activityFacts("ACTIVITY_TYPE_SIGN_TRANSACTION_V2", { signWith: "0xabc", unsignedTransaction: "02f8", type: "TRANSACTION_TYPE_TEMPO" });
    expect(signing.params).toEqual({ type: "TRANSACTION_TYPE_TEMPO" });
    expect(activityFacts("ACTIVITY_TYPE_CREATE_WALLET", { walletName: "w", accounts: [] }).params).toEqual({});
    // Documented defaults: a session profile left out reads as '', Spark's inactive variants as their type defaults.
    expect(activityFacts("ACTIVITY_TYPE_OTP_LOGIN_V2", { verificationToken: "t" }).params).toEqual({ session_profile_id: "" });
    const frost = activityFacts("ACTIVITY_TYPE_SPARK_SIGN_FROST", { signWith: "sp1", signatures: [{ message: "m", derivation: { type: "identity" } }] }).params as {
      signatures: { adaptor_public_key: string; derivation: { static_deposit: { index: number }; signing_leaf: { leaf_id: string } } }[];
    };
    expect(frost.signatures[0]).toMatchObject({ adaptor_public_key: "", derivation: { type: "identity", signing_leaf: { leaf_id: "" }, static_deposit: { index: 0 } } });
  });

  it("the root quorum's activities are the documented ones", () => {
    const rootOnly = [...activityCatalog().values()].filter((entry) => entry.rootQuorumOnly).map((entry) => entry.type);
    expect(rootOnly.sort()).toEqual([...docs.rootQuorumOnly].sort());
  });

  it("keywords per type: the target and payload a request of that type carries, and nothing else", () => {
    const keywords = (type: string) => [...activityTypeInfo(type)!.keywords].sort();
    expect(keywords("ACTIVITY_TYPE_SIGN_TRANSACTION_V2")).toEqual(["bitcoin", "eth", "private_key", "solana", "tempo", "tron", "wallet", "wallet_account"]);
    expect(keywords("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2")).toEqual(["eth", "private_key", "wallet", "wallet_account"]);
    // An export of a whole wallet names the wallet, not an account.
    expect(keywords("ACTIVITY_TYPE_EXPORT_WALLET")).toEqual(["wallet"]);
    expect(keywords("ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT")).toEqual(["private_key", "wallet", "wallet_account"]);
    expect(keywords("ACTIVITY_TYPE_EXPORT_PRIVATE_KEY")).toEqual(["private_key"]);
    expect(keywords("ACTIVITY_TYPE_DELETE_WALLETS")).toEqual(["wallets"]);
    expect(keywords("ACTIVITY_TYPE_EXPORT_SECRETS")).toEqual(["secret"]);
    expect(keywords("ACTIVITY_TYPE_CREATE_USERS_V4")).toEqual([]);
    // What simulate and the emulator's gate give a policy follows the same table.
    const given = { wallet: { id: "w" }, wallet_account: { address: "0x1" }, tempo: { tx: {} }, secret: { static_properties: {} } };
    expect(Object.keys(keywordsFor("ACTIVITY_TYPE_EXPORT_WALLET", given))).toEqual(["wallet"]);
    expect(Object.keys(keywordsFor("ACTIVITY_TYPE_SIGN_TRANSACTION_V2", given)).sort()).toEqual(["tempo", "wallet", "wallet_account"]);
    expect(keywordAvailable("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", "tempo")).toBe(false);
  });

  it("every catalog entry's resource and action is a documented value, or its kind is marked undocumented", () => {
    const outside = [...activityCatalog().values()].filter((entry) => entry.factsDocumented && (!RESOURCES.has(entry.resource) || !ACTIONS.has(entry.action)));
    expect(outside.map((entry) => entry.type)).toEqual([]);
    const undocumented = [...activityCatalog().values()].filter((entry) => !entry.factsDocumented).map((entry) => entry.kind);
    for (const kind of Object.keys(docs.kinds)) if (docs.typesByResourceAndAction.some((row) => activityKind(row.type) === kind)) expect(undocumented).not.toContain(kind);
  });
});

const DOCS_GIT = process.env.KEYFORM_DOCS_GIT ?? "/work/.mirror/tkhq+docs/repo";

describe("the fixtures are the docs of today", () => {
  it.skipIf(!existsSync(DOCS_GIT))("scripts/policy-docs-fixtures.mjs --check finds no drift", () => {
    const script = join(__dirname, "..", "..", "scripts", "policy-docs-fixtures.mjs");
    expect(() => execFileSync(process.execPath, [script, "--check", "--docs", DOCS_GIT], { encoding: "utf8", stdio: "pipe" })).not.toThrow();
  });
});

describe("lints from the docs' notes on chain payloads", () => {
  const rules = (effect: string, condition: string) => checkPolicy({ effect, condition }).filter((d) => d.severity === "warning").map((d) => d.rule);

  it("a Solana denylist that ignores address lookup tables warns; one guarded by the lookups or the placeholder does not, nor an allowlist", () => {
    const denylist = "solana.tx.transfers.any(t, t.to == 'So1bad')";
    expect(rules("EFFECT_DENY", denylist)).toContain("solana-address-lookup");
    expect(rules("EFFECT_DENY", `${denylist} || solana.tx.address_table_lookups.count() > 0`)).not.toContain("solana-address-lookup");
    expect(rules("EFFECT_DENY", `${denylist} || solana.tx.transfers.any(t, t.to == 'ADDRESS_TABLE_LOOKUP')`)).not.toContain("solana-address-lookup");
    expect(rules("EFFECT_ALLOW", "solana.tx.transfers.all(t, t.to == 'So1good') && wallet.id == 'w'")).not.toContain("solana-address-lookup");
    expect(rules("EFFECT_DENY", "solana.tx.recent_blockhash == 'h'")).not.toContain("solana-address-lookup");
  });

  it("a Spark variant field read without checking the derivation's type warns, once per variant", () => {
    const unchecked = "activity.params.signatures.all(s, s.derivation.static_deposit.index == 0 && s.derivation.static_deposit.index < 5)";
    const found = checkPolicy({ condition: unchecked }).filter((d) => d.rule === "spark-variant-unchecked");
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toContain("'static_deposit.index' is read without checking the derivation's type == 'static_deposit'");
    const checked = "activity.params.signatures.all(s, s.derivation.type == 'static_deposit' && s.derivation.static_deposit.index == 0)";
    expect(checkPolicy({ condition: checked }).map((d) => d.rule)).not.toContain("spark-variant-unchecked");
  });

  it("uppercase hex compared inside an EIP-712 policy warns with the lowercase spelling; elsewhere it does not", () => {
    const [found] = checkPolicy({ condition: "eth.eip_712.domain.verifying_contract == '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'" }).filter((d) => d.rule === "eip712-uppercase-hex");
    expect(found!.message).toContain("'0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'");
    expect(found!.position.column).toBe(42);
    expect(checkPolicy({ condition: "eth.eip_712.domain.verifying_contract == '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'" }).map((d) => d.rule)).not.toContain("eip712-uppercase-hex");
    expect(checkPolicy({ condition: "eth.tx.to == '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'" }).map((d) => d.rule)).not.toContain("eip712-uppercase-hex");
  });

  it("the docs' WETH walkthrough, with its checksummed address, warns that contract call arguments are compared in lowercase", () => {
    const walkthrough = "eth.tx.contract_call_args['wad'] < 1000000000000000000 && eth.tx.contract_call_args['dst'] == '0x08d2b0a37F869FF76BACB5Bab3278E26ab7067B7'";
    const found = checkPolicy({ condition: walkthrough }).filter((d) => d.rule === "abi-uppercase-hex");
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toContain("write '0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7'");
    expect(checkPolicy({ condition: walkthrough.toLowerCase() }).map((d) => d.rule)).not.toContain("abi-uppercase-hex");
  });
});

describe("checking and evaluating the docs' types", () => {
  const decide = (condition: string, keywords: Record<string, unknown>, type = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2") =>
    simulate([{ policyId: "p", effect: "EFFECT_ALLOW", condition }], { type, approvers: [{ id: "u" }], keywords }).evaluations[0]!;

  it("a map is read by key: a missing key errors, a field-style read is refused with the fix", () => {
    const secret = { secret: { static_properties: { kind: "creditCard" } } };
    expect(decide("secret.static_properties['kind'] == 'creditCard'", secret, "ACTIVITY_TYPE_EXPORT_SECRETS").outcome).toBe("OUTCOME_ALLOW");
    expect(decide("secret.static_properties['owner'] == 'x'", secret, "ACTIVITY_TYPE_EXPORT_SECRETS")).toMatchObject({ outcome: "OUTCOME_ERROR", reason: expect.stringContaining("no field 'owner'") });
    const [error] = checkPolicy({ condition: "secret.static_properties.kind == 'creditCard'" });
    expect(error).toMatchObject({ severity: "error", message: "map<string, string> is read by key: write ['kind'], not .kind" });
    expect(checkPolicy({ condition: "secret.static_properties['kind'] == 1" })[0]!.message).toBe("'==' cannot compare string with int");
  });

  it("uint (EIP-712 chain id) compares with ints beyond i128, given as a number or a decimal string", () => {
    const eth = (chainId: unknown) => ({ eth: { eip_712: { primary_type: "Permit", domain: { name: "n", version: "1", chain_id: chainId, verifying_contract: "0x1" }, message: {} } } });
    const huge = "170141183460469231731687303715884105728";
    expect(decide(`eth.eip_712.domain.chain_id == ${huge}`, eth(huge)).outcome).toBe("OUTCOME_ALLOW");
    expect(decide("eth.eip_712.domain.chain_id > 1", eth(10)).outcome).toBe("OUTCOME_ALLOW");
    expect(decide("eth.eip_712.domain.chain_id > 1", eth(1)).outcome).toBe("OUTCOME_DENY_IMPLICIT");
    expect(checkPolicy({ condition: "eth.eip_712.domain.chain_id == '1'" })[0]!.message).toBe("'==' cannot compare uint with string (write 1 without quotes)");
  });

  it("contract call args: a named tuple is read by position; reading it by name errors", () => {
    const eth = { eth: { tx: { to: "0x1", contract_call_args: { calls: [["0xtarget", 0, "0x"]] } } } };
    expect(decide("eth.tx.contract_call_args['calls'].all(call, call[0] == '0xtarget')", eth, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2").outcome).toBe("OUTCOME_ALLOW");
    expect(decide("eth.tx.contract_call_args['calls'].all(call, call['target'] == '0xtarget')", eth, "ACTIVITY_TYPE_SIGN_TRANSACTION_V2").outcome).toBe("OUTCOME_ERROR");
  });

  it("the documented field types are enforced: eth.tx.type and bitcoin.tx.version are strings, bitcoin locktime a struct", () => {
    expect(checkPolicy({ condition: "eth.tx.type == 'TYPE_4' && wallet.id == 'w'" })).toEqual([]);
    expect(checkPolicy({ condition: "eth.tx.type == 2" })[0]!.message).toBe("'==' cannot compare string with int");
    expect(checkPolicy({ condition: "bitcoin.tx.locktime.type == 'Blocks' && bitcoin.tx.locktime.amount < 800000 && bitcoin.tx.version == '2' && wallet.id == 'w'" })).toEqual([]);
    expect(checkPolicy({ condition: "tron.tx.contract[0].owner.keys.all(k, k.weight >= 1) && tron.tx.fee_limit < 100 && wallet.id == 'w'" })).toEqual([]);
    expect(checkPolicy({ condition: "tron.tx.contract[0].unknown_field == 1" })[0]!.message).toMatch(/^TronContract has no field 'unknown_field'/);
  });
});

describe("time expressions as the docs give them", () => {
  const error = (time: string) => checkPolicy({ time }).find((d) => d.severity === "error")?.message;

  it("Timestamp accepts any zero UTC offset (Z, z, +00:00, -00:00) and refuses others, naming the offset", () => {
    for (const offset of ["Z", "z", "+00:00", "-00:00"]) expect(error(`time.now >= Timestamp('2025-01-01T00:00:00${offset}')`), offset).toBeUndefined();
    expect(error("time.now >= Timestamp('2025-01-01T00:00:00-05:00')")).toContain("has the UTC offset -05:00: only a zero offset");
    const at = (offset: string) =>
      simulate([{ policyId: "p", effect: "EFFECT_ALLOW", condition: "true", time: `time.now >= Timestamp('2025-06-01T12:00:00${offset}')` }], {
        type: "ACTIVITY_TYPE_CREATE_USER_TAG",
        now: "2025-06-01T12:00:00Z",
      }).outcome;
    expect(at("+00:00")).toBe("OUTCOME_ALLOW");
    expect(at("-00:00")).toBe("OUTCOME_ALLOW");
  });

  it("CronSpan day-of-week is 0-6 (0 is Sunday): 7 is refused", () => {
    expect(error("CronSpan('0 9 * * 0,6', '8h', 'UTC')")).toBeUndefined();
    expect(error("CronSpan('0 9 * * 7', '8h', 'UTC')")).toContain("values must be within 0-6");
  });
});

describe("keyword values of a hand-written activity", () => {
  it("a misspelt or camelCase field, or a value of the wrong type, is an error naming it; left-out fields are fine", () => {
    expect(() => checkKeywordValues({ eth: { tx: { chain_id: 1, value: "1000000000000000000000" } }, tempo: { tx: { calls: [{ to: "0x1" }] } } }, "activity.keywords")).not.toThrow();
    expect(() => checkKeywordValues({ eth: { tx: { chainId: 1 } } }, "activity.keywords")).toThrow(/^activity\.keywords\.eth\.tx\.chainId: EthereumTransaction has no field 'chainId'; its fields are from, to/);
    expect(() => checkKeywordValues({ tempo: { tx: { calls: [{ to: 1 }] } } }, "activity.keywords")).toThrow("activity.keywords.tempo.tx.calls[0].to: expected string, got number");
    expect(() => checkKeywordValues({ secret: { static_properties: { kind: 3 } } }, "k")).toThrow("k.secret.static_properties['kind']: expected string, got number");
    expect(() => checkKeywordValues({ bitcoin: { tx: { locktime: 5 } } }, "k")).toThrow("k.bitcoin.tx.locktime: expected BitcoinTxLocktime, got number");
    expect(() => checkKeywordValues({ approvers: [] }, "k")).toThrow("k.approvers: not a request keyword");
    // Undocumented payloads (ContractArgument, EIP-712 messages) take anything.
    expect(() => checkKeywordValues({ eth: { eip_712: { message: { a: [{ b: 1 }] } }, tx: { contract_call_args: { calls: [["0x1", 0]] } } } }, "k")).not.toThrow();
  });
});

describe("the catalog's params presence agrees with what the evaluator sees", () => {
  it("a field the catalog says is always present is present in activity.params even for a request that leaves optional fields out", () => {
    const mismatches: string[] = [];
    for (const entry of activityCatalog().values()) {
      const required = Object.fromEntries(Object.entries(entry.requestFields).filter(([, always]) => always).map(([name]) => [name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), "x"]));
      const seen = activityFacts(entry.type, required).params as Record<string, unknown>;
      for (const [field, always] of Object.entries(entry.params)) {
        if (always && Object.keys(entry.requestFields).length > 0 && !(field in seen)) mismatches.push(`${entry.type}.${field}: always present in the catalog, missing in a minimal request`);
        if (!always && field in seen) mismatches.push(`${entry.type}.${field}: optional in the catalog, present in a minimal request`);
      }
    }
    expect(mismatches).toEqual([]);
    expect(activityTypeInfo("ACTIVITY_TYPE_OTP_LOGIN_V2")!.params).toEqual({ session_profile_id: true });
  });
});
