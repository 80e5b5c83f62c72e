#!/usr/bin/env node
/**
 * Regenerates the policy-language fixtures from the service's docs (a git checkout of its docs
 * repository): the keyword, struct and activity tables of features/policies/language.mdx and
 * every example policy of the example pages, each with its source page.
 *
 *   node scripts/policy-docs-fixtures.mjs [--docs <git dir>] [--check]
 *
 * --docs defaults to $KEYFORM_DOCS_GIT or /work/.mirror/tkhq+docs/repo. --check writes nothing
 * and exits 1 when the stored fixtures differ from what the docs give now (docs drift).
 * The fixtures are committed so tests run without the docs checkout.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "test", "policy", "fixtures");
const args = process.argv.slice(2);
const docsAt = args.includes("--docs") ? args[args.indexOf("--docs") + 1] : (process.env.KEYFORM_DOCS_GIT ?? "/work/.mirror/tkhq+docs/repo");
const check = args.includes("--check");

const show = (path) => execFileSync("git", [`--git-dir=${docsAt}`, "show", `HEAD:${path}`], { encoding: "utf8" });
const commit = execFileSync("git", [`--git-dir=${docsAt}`, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();

const LANGUAGE = "features/policies/language.mdx";
const EXAMPLE_PAGES = [
  "features/policies/examples/access-control.mdx",
  "features/policies/examples/bitcoin.mdx",
  "features/policies/examples/co-signing-transactions.mdx",
  "features/policies/examples/ethereum.mdx",
  "features/policies/examples/signing-control.mdx",
  "features/policies/examples/solana.mdx",
  "features/policies/examples/spark.mdx",
  "features/policies/examples/tempo.mdx",
  "features/policies/examples/time-based-policies.mdx",
  "features/policies/examples/tron.mdx",
  LANGUAGE,
  "features/secrets.mdx",
];

/** A markdown cell as plain text: no bold, backticks or escapes. */
function cell(text) {
  return text
    .trim()
    .replace(/\*\*/g, "")
    .replace(/`/g, "")
    .replace(/\\([<>[\]{}*_|])/g, "$1")
    .trim();
}

/** Every markdown table of a page, each with the heading above it. */
function tables(page) {
  const found = [];
  let heading = "";
  let current;
  for (const line of page.split("\n")) {
    const h = /^#{2,4}\s+(.*)$/.exec(line);
    if (h) heading = h[1].trim();
    if (line.trim().startsWith("|")) {
      const cells = line
        .trim()
        .replace(/^\||\|$/g, "")
        .split(/(?<!\\)\|/)
        .map(cell);
      if (!current) {
        current = { heading, header: cells, rows: [] };
        found.push(current);
      } else if (!cells.every((c) => /^:?-+:?$/.test(c))) current.rows.push(cells);
    } else current = undefined;
  }
  return found;
}

/** Rows of a struct table (`Struct | Field | Type`) as { struct: { field: type } }, blank struct cells continuing the last. */
function structs(table) {
  const result = {};
  let name = "";
  for (const [struct, field, type] of table.rows) {
    if (struct) name = struct.replace(/\s+/g, "");
    (result[name] ??= {})[field] = type;
  }
  return result;
}

function languageTables(page) {
  const all = tables(page);
  const by = (heading) => {
    const table = all.find((t) => t.heading === heading);
    if (!table) throw new Error(`${LANGUAGE}: no table under "${heading}"`);
    return table;
  };
  const keywords = (heading) => Object.fromEntries(by(heading).rows.map(([keyword, type]) => [keyword, type]));
  const typesByResourceAndAction = [];
  let resource = "";
  for (const [r, action, type] of by("Activity types by resource and action").rows) {
    if (r) resource = r;
    typesByResourceAndAction.push({ resource, action, type });
  }
  const kinds = Object.fromEntries(by("Activity kinds").rows.map(([kind, types]) => [kind, types.split(",").map((t) => t.trim())]));
  const params = [];
  let type = "";
  for (const [, t, field, fieldType] of by("Activity parameters").rows) {
    if (t) type = t;
    params.push({ type, field, fieldType });
  }
  const listAfter = (label) => {
    const match = new RegExp(`Valid \`activity\\.${label}\` values are([^.]*)\\.`).exec(page.replace(/\n/g, " "));
    return [...match[1].matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]);
  };
  const rootOnly = /[Tt]hese activities are:\s*([^.]*)\./.exec(page.replace(/\n/g, " "));
  return {
    keywords: { consensus: keywords("Consensus"), condition: keywords("Condition"), time: keywords("Time") },
    structs: { ...structs(by("Struct")), ...structs(by("Nested structs")), ...structs(by("Spark")) },
    resources: listAfter("resource"),
    actions: listAfter("action"),
    typesByResourceAndAction,
    kinds,
    params,
    rootQuorumOnly: [...rootOnly[1].matchAll(/`(ACTIVITY_TYPE_[A-Z0-9_]+)`/g)].map((m) => m[1]),
    tempoTransactionTypeText: /The `tempo\.tx` namespace exposes the following transaction-level fields: ([^.]*)\./.exec(page.replace(/\n/g, " "))?.[1] ?? "",
  };
}

/** Values for `<PLACEHOLDER>`s, chosen by the page's chain and the placeholder's name. */
function fill(name, page) {
  const n = name.toUpperCase().replace(/\s+/g, "_");
  const digit = (n.match(/\d+$/)?.[0] ?? "1").slice(-1);
  const chain = /solana|spark/.test(page) ? "solana" : /tron/.test(page) ? "tron" : /bitcoin/.test(page) ? "bitcoin" : "evm";
  if (n.includes("NO_0X_PREFIX")) return `${digit}`.repeat(40);
  if (n === "HEX_BYTES") return "0a0b0c0d";
  if (/AMOUNT|NONCE|CHAIN_ID|VOUT/.test(n)) return `${digit}0`;
  if (n.includes("PUBLIC_KEY")) return `02${digit.repeat(64)}`;
  if (/ADDRESS|CONTRACT|TREASURY/.test(n) && !n.includes("SPARK")) {
    if (chain === "solana") return `So1${digit.repeat(41)}`;
    if (chain === "tron") return `T${digit.repeat(33)}`;
    if (chain === "bitcoin") return `bc1q${digit.repeat(38)}`;
    return `0x${digit.repeat(40)}`;
  }
  if (n.includes("SPARK")) return `sp1${digit.repeat(40)}`;
  if (n.includes("TX_ID")) return `${digit}f`.repeat(32);
  if (/TAG|_ID|^ID$|LEAF/.test(n)) return `${n.toLowerCase().replace(/_/g, "-")}-0000-4000-8000-00000000000${digit}`;
  return `${n.toLowerCase()}-value`;
}

/** The policies of a ```json block: one policy, a list, or an object with `policies`. */
function policiesOf(value) {
  if (Array.isArray(value)) return value.flatMap(policiesOf);
  if (value && typeof value === "object") {
    if (Array.isArray(value.policies)) return value.policies.flatMap(policiesOf);
    if ("effect" in value || "condition" in value || "consensus" in value) return [value];
  }
  return [];
}

function examples(path) {
  const page = show(path);
  const found = [];
  const blocks = [...page.matchAll(/```(json|JSON)[^\n]*\n([\s\S]*?)```/g)];
  for (const block of blocks) {
    const line = page.slice(0, block.index).split("\n").length;
    const heading = [...page.slice(0, block.index).matchAll(/^#{2,5}\s+(.*)$/gm)].pop()?.[1].trim() ?? "";
    const raw = block[2].replace(/^\s*\/\/.*$/gm, "");
    let parsed;
    try {
      parsed = JSON.parse(raw);
    } catch (error) {
      found.push({ page: path, line, heading, unparsable: `${error.message}`, text: raw.trim() });
      continue;
    }
    for (const policy of policiesOf(parsed)) {
      const placeholders = new Set();
      const entry = { page: path, line, heading };
      for (const key of ["policyName", "effect", "condition", "consensus", "time"]) {
        if (typeof policy[key] !== "string") continue;
        // In an expression a placeholder written without quotes stands for a literal of its kind: a quoted string, or digits for numbers.
        const expression = key !== "policyName" && key !== "effect";
        entry[key] = policy[key].replace(/(')?<([A-Za-z][A-Za-z0-9_ ]*)>/g, (_, quote, name) => {
          placeholders.add(name);
          const value = fill(name, path);
          if (quote || !expression || /^\d+$/.test(value)) return `${quote ?? ""}${value}`;
          return `'${value}'`;
        });
      }
      entry.placeholders = [...placeholders].sort();
      found.push(entry);
    }
  }
  return found;
}

const language = { source: `${LANGUAGE} at ${commit}`, ...languageTables(show(LANGUAGE)) };
const documented = { source: `tkhq/docs at ${commit}`, examples: EXAMPLE_PAGES.flatMap(examples) };

const files = { "docs-language.json": language, "docs-examples.json": documented };
let stale = false;
for (const [name, value] of Object.entries(files)) {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  const path = join(out, name);
  if (check) {
    let old = "";
    try {
      old = readFileSync(path, "utf8");
    } catch {}
    const strip = (t) => t.replace(/"source": "[^"]*"/, "");
    if (strip(old) !== strip(text)) {
      console.error(`${path} differs from the docs at ${commit}: run node scripts/policy-docs-fixtures.mjs`);
      stale = true;
    }
  } else {
    writeFileSync(path, text);
    console.log(`${path}: ${name === "docs-examples.json" ? `${value.examples.length} examples` : "tables"}`);
  }
}
process.exit(stale ? 1 : 0);
