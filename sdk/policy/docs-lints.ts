/**
 * @module policy/docs-lints
 * Warnings from the notes of the service's language page on chain payloads. They never refuse
 * a policy:
 *
 * - `solana-address-lookup`: a Solana DENY that compares addresses with literals and neither
 *   reads `solana.tx.address_table_lookups` nor names 'ADDRESS_TABLE_LOOKUP'. An address taken
 *   from a lookup table reads as the literal 'ADDRESS_TABLE_LOOKUP', so a denied address behind
 *   a lookup table escapes the denylist.
 * - `spark-variant-unchecked`: a Spark key derivation's `signing_leaf` or `static_deposit` field
 *   read without comparing the derivation's `type` with that variant. Inactive variants read as
 *   their type defaults ('' and 0, and 0 is a valid static deposit index), not as an error.
 * - `eip712-uppercase-hex`: a hex literal with uppercase letters in an expression that reads
 *   `eth.eip_712`. The service normalizes EIP-712 payloads to lowercase, so the comparison never
 *   holds.
 * - `abi-uppercase-hex`: the same in an expression that reads `eth.tx.contract_call_args`:
 *   addresses and bytes decoded from calldata are compared in lowercase (docs/service-facts.md#abi-based-keywords),
 *   though the docs' own walkthrough writes a checksummed address.
 */
import { memberPath, walk, type Expr } from "./ast";
import type { Diagnostic, Position } from "./errors";

const warning = (rule: string, message: string, position: Position): Diagnostic => ({ severity: "warning", rule, message, position });

/** Solana fields that carry account addresses (the docs: account keys, instruction accounts, transfers, SPL transfers). */
const SOLANA_ADDRESS_FIELDS = new Set(["account_keys", "instructions", "transfers", "spl_transfers"]);

/** String literals compared (`==`, `!=`, `in`) anywhere in `expr`. */
function comparedLiterals(expr: Expr): Extract<Expr, { kind: "string" }>[] {
  const found: Extract<Expr, { kind: "string" }>[] = [];
  walk(expr, (node) => {
    if (node.kind !== "compare" || (node.op !== "==" && node.op !== "!=" && node.op !== "in")) return;
    for (const side of [node.left, node.right]) {
      if (side.kind === "string") found.push(side);
      if (side.kind === "list") for (const item of side.items) if (item.kind === "string") found.push(item);
    }
  });
  return found;
}

function solanaAddressLookup(effect: string, condition: Expr): Diagnostic[] {
  if (effect !== "EFFECT_DENY") return [];
  let readsAddresses: Position | undefined;
  let guarded = false;
  walk(condition, (node) => {
    if (node.kind === "member") {
      const path = memberPath(node);
      if (path?.startsWith("solana.tx.") && SOLANA_ADDRESS_FIELDS.has(path.split(".")[2]!)) readsAddresses ??= node.position;
      if (node.name === "address_table_lookups") guarded = true;
    }
    if (node.kind === "string" && node.value === "ADDRESS_TABLE_LOOKUP") guarded = true;
  });
  if (!readsAddresses || guarded || comparedLiterals(condition).length === 0) return [];
  return [
    warning(
      "solana-address-lookup",
      "this DENY compares Solana addresses but ignores address lookup tables: an address taken from a lookup table reads as 'ADDRESS_TABLE_LOOKUP', so a denied address behind one escapes it; also deny when solana.tx.address_table_lookups.count() > 0 (or when 'ADDRESS_TABLE_LOOKUP' appears)",
      readsAddresses,
    ),
  ];
}

function sparkVariants(expr: Expr): Diagnostic[] {
  const checked = new Set(comparedLiterals(expr).map((literal) => literal.value));
  const found: Diagnostic[] = [];
  const reported = new Set<string>();
  walk(expr, (node) => {
    if (node.kind !== "member" || node.object.kind !== "member") return;
    const variant = node.object.name;
    if ((variant !== "signing_leaf" && variant !== "static_deposit") || checked.has(variant) || reported.has(variant)) return;
    reported.add(variant);
    found.push(
      warning(
        "spark-variant-unchecked",
        `'${variant}.${node.name}' is read without checking the derivation's type == '${variant}': an inactive variant reads as its default ('' or 0), not as an error`,
        node.namePosition,
      ),
    );
  });
  return found;
}

/** Uppercase hex literals compared in an expression that reads `path`: values read there are lowercase, so the comparison never holds. */
function uppercaseHex(expr: Expr, path: string, rule: string, what: string): Diagnostic[] {
  let reads = false;
  walk(expr, (node) => {
    if (node.kind === "member" && memberPath(node) === path) reads = true;
  });
  if (!reads) return [];
  return comparedLiterals(expr)
    .filter((literal) => /^0x[0-9a-fA-F]*$/.test(literal.value) && /[A-F]/.test(literal.value))
    .map((literal) => warning(rule, `'${literal.value}' has uppercase hex: ${what} are compared in lowercase, so write '${literal.value.toLowerCase()}'`, literal.position));
}

/** The lints of one expression (see the module comment). */
export function lintDocumentedPitfalls(expr: Expr): Diagnostic[] {
  return [
    ...sparkVariants(expr),
    ...uppercaseHex(expr, "eth.eip_712", "eip712-uppercase-hex", "EIP-712 payloads"),
    ...uppercaseHex(expr, "eth.tx.contract_call_args", "abi-uppercase-hex", "contract call arguments"),
  ];
}

/** The policy-level lints (they need the effect). */
export function lintPolicyPitfalls(effect: string, condition: Expr | undefined): Diagnostic[] {
  return condition ? solanaAddressLookup(effect, condition) : [];
}
