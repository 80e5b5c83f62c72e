/**
 * Every example policy of the service's docs (the ```json blocks of features/policies/examples/*,
 * the language page and the secrets page), placeholders filled with values, checked the way
 * `keyform policy check` checks a file; and a few of the new language's examples decided by
 * simulate on an activity they allow and one they refuse. The examples are stored with their
 * source page and line in test/policy/fixtures/docs-examples.json (scripts/policy-docs-fixtures.mjs).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { runCheck } from "../../sdk/cli/policy";
import { checkPolicy, simulate, type PolicyRecord, type SimulatedActivity } from "../../sdk/policy";
import documented from "./fixtures/docs-examples.json";

interface DocsExample {
  readonly page: string;
  readonly line: number;
  readonly heading: string;
  readonly policyName?: string;
  readonly effect?: string;
  readonly condition?: string;
  readonly consensus?: string;
  readonly time?: string;
  readonly unparsable?: string;
}

const examples = documented.examples as DocsExample[];
const where = (example: DocsExample) => `${example.page}:${example.line}`;

/**
 * Examples the docs get wrong, which keyform refuses on purpose (the reference's errata), each
 * with the error keyform gives. A strict checker is the point: these fail on the service too, or
 * depend on conversions the docs do not promise.
 */
const ERRATA: Readonly<Record<string, RegExp>> = {
  // `solana.tx.transfers.count == 1`: count is a method.
  "features/policies/examples/solana.mdx:32": /'count' is a method: write count\(\)/,
  // `eth.eip_7702_authorization.chain_id == '<CHAIN_ID>'`: an int compared with a quoted string.
  "features/policies/examples/ethereum.mdx:268": /^'==' cannot compare int with string \(write 10 without quotes\)$/,
};

describe("every example policy of the docs type-checks", () => {
  it("the fixture holds every example of each page, none unparsable", () => {
    expect(examples.filter((example) => example.unparsable).map(where)).toEqual([]);
    const pages = new Set(examples.map((example) => example.page.replace(/^.*\//, "")));
    for (const page of ["access-control", "bitcoin", "ethereum", "signing-control", "solana", "spark", "tempo", "time-based-policies", "tron", "language", "secrets"]) {
      expect(pages, page).toContain(`${page}.mdx`);
    }
    expect(examples.length).toBeGreaterThanOrEqual(90);
  });

  it("each example: no errors (warnings allowed), or exactly the erratum's error", () => {
    const failures: string[] = [];
    for (const example of examples) {
      const errors = checkPolicy(example).filter((d) => d.severity === "error");
      const erratum = ERRATA[where(example)];
      if (erratum) {
        if (errors.length !== 1 || !erratum.test(errors[0]!.message)) failures.push(`${where(example)}: erratum expected ${erratum}, got ${JSON.stringify(errors)}`);
      } else if (errors.length > 0) failures.push(`${where(example)} (${example.heading}): ${errors.map((d) => `${d.property}: ${d.message}`).join("; ")}`);
    }
    expect(failures).toEqual([]);
  });

  it("keyform policy check on a file of all of them: exit 0 without the errata, 1 with them, naming each erratum", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-docs-examples-"));
    try {
      const policies = (list: DocsExample[]) => ({
        policies: list.map((example, i) => ({ policyName: `${i} ${where(example)}`, effect: example.effect ?? "EFFECT_ALLOW", condition: example.condition, consensus: example.consensus, time: example.time })),
      });
      const clean = path.join(dir, "clean.json");
      fs.writeFileSync(clean, JSON.stringify(policies(examples.filter((example) => !ERRATA[where(example)]))));
      let out = "";
      const io = { out: (text: string) => void (out += text), err: (text: string) => void (out += text) };
      expect(runCheck([clean], { kind: "condition" }, io)).toBe(0);
      expect(out).toMatch(/^0 errors, \d+ warnings$/m);
      const all = path.join(dir, "all.json");
      fs.writeFileSync(all, JSON.stringify(policies(examples)));
      out = "";
      expect(runCheck([all], { kind: "condition" }, io)).toBe(1);
      expect(out).toMatch(new RegExp(`^${Object.keys(ERRATA).length} errors,`, "m"));
      for (const erratum of Object.keys(ERRATA)) expect(out).toContain(erratum);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The docs example at `page:line` as a stored policy. */
function policy(at: string): PolicyRecord {
  const example = examples.find((e) => where(e).endsWith(at));
  if (!example) throw new Error(`no docs example at ${at}`);
  return { policyId: at, policyName: example.policyName ?? at, effect: example.effect!, condition: example.condition, consensus: example.consensus, time: example.time };
}

/** An ALLOW for every activity, so that a DENY example has something to refuse. */
const allowAll: PolicyRecord = { policyId: "allow-all", policyName: "allow all", effect: "EFFECT_ALLOW", condition: "true" };
const user = [{ id: "u-1" }];
const solanaTx = (to: string, lookups: number) => ({
  solana: {
    tx: {
      account_keys: [],
      program_keys: [],
      instructions: [],
      transfers: [{ from: "So1sender", to, amount: 5 }],
      spl_transfers: [],
      recent_blockhash: "h",
      address_table_lookups: Array.from({ length: lookups }, () => ({ address_table_key: "Lut1", writable_indexes: [0], readonly_indexes: [] })),
    },
  },
});

describe("documented examples decided by simulate", () => {
  const cases: { name: string; policies: PolicyRecord[]; allowed: SimulatedActivity; refused: SimulatedActivity; refusedOutcome: string }[] = [
    {
      name: "tempo: the first call goes to one contract",
      policies: [policy("tempo.mdx:91")],
      allowed: { type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", approvers: user, keywords: { tempo: { tx: { calls: [{ to: "0x40f008f4c17075EFcA092aE650655f6693AECEd0", input: "0x", function_signature: "" }] } } } },
      refused: { type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", approvers: user, keywords: { tempo: { tx: { calls: [{ to: "0x0000000000000000000000000000000000000bad", input: "0x", function_signature: "" }] } } } },
      refusedOutcome: "OUTCOME_DENY_IMPLICIT",
    },
    {
      name: "tempo: a slice of the call input names the recipient",
      policies: [policy("tempo.mdx:173")],
      allowed: {
        type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
        approvers: user,
        keywords: {
          wallet_account: { address: "0x1111111111111111111111111111111111111111" },
          tempo: { tx: { calls: [{ to: "0xtoken", input: `0xa9059cbb${"0".repeat(24)}${"1".repeat(40)}${"0".repeat(64)}`, function_signature: "0xa9059cbb" }] } },
        },
      },
      refused: {
        type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
        approvers: user,
        keywords: {
          wallet_account: { address: "0x1111111111111111111111111111111111111111" },
          tempo: { tx: { calls: [{ to: "0xtoken", input: `0xa9059cbb${"0".repeat(24)}${"2".repeat(40)}${"0".repeat(64)}`, function_signature: "0xa9059cbb" }] } },
        },
      },
      refusedOutcome: "OUTCOME_DENY_IMPLICIT",
    },
    {
      name: "solana: DENY every transaction with an address table lookup",
      policies: [policy("solana.mdx:92"), allowAll],
      allowed: { type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", approvers: user, keywords: solanaTx("So1friend", 0) },
      refused: { type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", approvers: user, keywords: solanaTx("ADDRESS_TABLE_LOOKUP", 1) },
      refusedOutcome: "OUTCOME_DENY_EXPLICIT",
    },
    {
      name: "spark: a delegated user prepares transfers to allowlisted receivers only",
      policies: [policy("spark.mdx:22")],
      allowed: {
        type: "ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER",
        approvers: [{ id: "delegated-user-id-0000-4000-8000-000000000001" }],
        parameters: { signWith: "sp11111111111111111111111111111111111111111", transfer: { transferId: "t", leaves: [], threshold: 2, operatorRecipients: [], receiverPublicKey: `02${"2".repeat(64)}` } },
      },
      refused: {
        type: "ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER",
        approvers: [{ id: "delegated-user-id-0000-4000-8000-000000000001" }],
        parameters: { signWith: "sp11111111111111111111111111111111111111111", transfer: { transferId: "t", leaves: [], threshold: 2, operatorRecipients: [], receiverPublicKey: `02${"9".repeat(64)}` } },
      },
      refusedOutcome: "OUTCOME_DENY_IMPLICIT",
    },
    {
      name: "tron: a TRC-20 transfer on one contract",
      policies: [policy("tron.mdx:13")],
      allowed: { type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", approvers: user, keywords: { tron: { tx: { contract: [{ type: "TriggerSmartContract", contract_address: "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf", data: "a9059cbb0000" }] } } } },
      refused: { type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", approvers: user, keywords: { tron: { tx: { contract: [{ type: "TriggerSmartContract", contract_address: "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf", data: "095ea7b30000" }] } } } },
      refusedOutcome: "OUTCOME_DENY_IMPLICIT",
    },
    {
      name: "secrets: only the payments agent exports credit cards",
      policies: [policy("secrets.mdx:30")],
      allowed: { type: "ACTIVITY_TYPE_EXPORT_SECRETS", approvers: [{ id: "agent", tags: ["payment-agent"] }], keywords: { secret: { static_properties: { kind: "creditCard" } } } },
      refused: { type: "ACTIVITY_TYPE_EXPORT_SECRETS", approvers: [{ id: "agent", tags: ["payment-agent"] }], keywords: { secret: { static_properties: { kind: "password" } } } },
      refusedOutcome: "OUTCOME_DENY_IMPLICIT",
    },
  ];

  for (const { name, policies, allowed, refused, refusedOutcome } of cases) {
    it(name, () => {
      const yes = simulate(policies, allowed);
      expect(yes.outcome, yes.evaluations.map((e) => e.reason).join("; ")).toBe("OUTCOME_ALLOW");
      expect(simulate(policies, refused).outcome).toBe(refusedOutcome);
    });
  }

  it("a keyword the activity type does not carry makes the example error, not allow: tempo.tx on a raw payload, secret on a wallet export", () => {
    const tempo = simulate([policy("tempo.mdx:91")], { type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", approvers: user, keywords: { tempo: { tx: { calls: [{ to: "0x40f008f4c17075EFcA092aE650655f6693AECEd0" }] } } } });
    expect(tempo.outcome).toBe("OUTCOME_DENY_IMPLICIT");
    expect(tempo.evaluations[0]).toMatchObject({ outcome: "OUTCOME_ERROR", reason: expect.stringContaining("'tempo' is not part of this request") });
    const secret = simulate([policy("secrets.mdx:30")], { type: "ACTIVITY_TYPE_EXPORT_WALLET", approvers: [{ id: "agent", tags: ["payment-agent"] }], keywords: { secret: { static_properties: { kind: "creditCard" } } } });
    expect(secret.evaluations[0]!.outcome).toBe("OUTCOME_ERROR");
  });
});
