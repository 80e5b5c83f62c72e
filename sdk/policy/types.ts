/**
 * @module policy/types
 * The types of the policy language and the keywords each expression kind may use
 * (policy-language reference, "Keywords"). `dyn` is data whose shape the service does not
 * document (`activity.params`, `eth.tx.contract_call_args`, EIP-712 messages): anything may be
 * read from it and each use is checked when the expression is evaluated.
 */

export type Type =
  | { readonly t: "bool" }
  | { readonly t: "int" }
  | { readonly t: "string" }
  | { readonly t: "timestamp" }
  | { readonly t: "dyn" }
  | { readonly t: "list"; readonly of: Type }
  | {
      readonly t: "object";
      readonly name: string;
      readonly fields: Readonly<Record<string, Type>>;
      /** Fields not listed read as `dyn` (tron.tx lists only some of its fields). */
      readonly open?: boolean;
    };

export const BOOL: Type = { t: "bool" };
export const INT: Type = { t: "int" };
export const STRING: Type = { t: "string" };
export const TIMESTAMP: Type = { t: "timestamp" };
export const DYN: Type = { t: "dyn" };
export const listOf = (of: Type): Type => ({ t: "list", of });
const object = (name: string, fields: Record<string, Type>, open = false): Type => ({ t: "object", name, fields, open });

/** "list<string>", "User", … for messages. */
export function typeName(type: Type): string {
  switch (type.t) {
    case "list":
      return `list<${typeName(type.of)}>`;
    case "object":
      return type.name;
    default:
      return type.t;
  }
}

/** Whether a value of `actual` may stand where `expected` is wanted (dyn fits both ways). */
export function assignable(actual: Type, expected: Type): boolean {
  if (actual.t === "dyn" || expected.t === "dyn") return true;
  if (actual.t === "list" && expected.t === "list") return assignable(actual.of, expected.of);
  if (actual.t === "object" && expected.t === "object") return actual.name === expected.name;
  return actual.t === expected.t;
}

export const USER = object("User", { id: STRING, tags: listOf(STRING), email: STRING, alias: STRING });
export const CREDENTIAL = object("Credential", { id: STRING, user_id: STRING, type: STRING, credential_id: STRING, public_key: STRING });

const ACTIVITY = object("Activity", { type: STRING, kind: STRING, resource: STRING, action: STRING, params: DYN });

const ETH_TX = object("EthTx", {
  from: STRING,
  to: STRING,
  data: STRING,
  value: INT,
  gas: INT,
  gas_price: INT,
  chain_id: INT,
  nonce: INT,
  max_fee_per_gas: INT,
  max_priority_fee_per_gas: INT,
  type: INT,
  function_name: STRING,
  function_signature: STRING,
  contract_call_args: DYN,
});
const EIP_712 = object("Eip712", {
  primary_type: STRING,
  domain: object("Eip712Domain", { name: STRING, version: STRING, chain_id: INT, verifying_contract: STRING }),
  message: DYN,
});
const SOLANA_TRANSFER = object("SolanaTransfer", { from: STRING, to: STRING, amount: INT });
const SPL_TRANSFER = object("SplTransfer", {
  from: STRING,
  to: STRING,
  amount: INT,
  owner: STRING,
  signers: listOf(STRING),
  token_mint: STRING,
});
const SOLANA_TX = object("SolanaTx", {
  account_keys: listOf(STRING),
  program_keys: listOf(STRING),
  instructions: listOf(DYN),
  transfers: listOf(SOLANA_TRANSFER),
  spl_transfers: listOf(SPL_TRANSFER),
  recent_blockhash: STRING,
});
const TRON_TX = object("TronTx", { contract: listOf(DYN) }, true);
const BITCOIN_TX = object("BitcoinTx", { version: INT, inputs: listOf(DYN), outputs: listOf(DYN), locktime: INT, fee: INT });

const WALLET = object("Wallet", { id: STRING, imported: BOOL, exported: BOOL, label: STRING });
const PRIVATE_KEY = object("PrivateKey", { id: STRING, tags: listOf(STRING), imported: BOOL, exported: BOOL, label: STRING });
const WALLET_ACCOUNT = object("WalletAccount", { address: STRING });

/** The four places an expression is written. */
export type ExpressionKind = "condition" | "consensus" | "time" | "scope";
export const EXPRESSION_KINDS: readonly ExpressionKind[] = ["condition", "consensus", "time", "scope"];

const TIME = object("Time", { now: TIMESTAMP });

const CONDITION_KEYWORDS: Record<string, Type> = {
  activity: ACTIVITY,
  eth: object("Eth", { tx: ETH_TX, eip_712: EIP_712 }),
  solana: object("Solana", { tx: SOLANA_TX }),
  tron: object("Tron", { tx: TRON_TX }),
  bitcoin: object("Bitcoin", { tx: BITCOIN_TX }),
  wallet: WALLET,
  private_key: PRIVATE_KEY,
  wallet_account: WALLET_ACCOUNT,
  time: TIME,
};

/** The keywords (global names) each kind of expression may use. */
export const KEYWORDS: Readonly<Record<ExpressionKind, Readonly<Record<string, Type>>>> = {
  consensus: { approvers: listOf(USER), credentials: listOf(CREDENTIAL) },
  condition: CONDITION_KEYWORDS,
  // Session-profile scopes use the same language and keywords as conditions.
  scope: CONDITION_KEYWORDS,
  time: { time: TIME },
};

/** Activity resources and actions (reference, "Keywords"), for lints on literal comparisons. */
export const RESOURCES: ReadonlySet<string> = new Set(
  "AUTH AUTH_PROXY CONFIG CREDENTIAL FIAT_TRANSACTION INVITATION MFA_POLICY ON_RAMP_CREDENTIALS ORGANIZATION OTP PAYMENT_METHOD POLICY PRIVATE_KEY RECOVERY SESSION_PROFILE SMART_CONTRACT_INTERFACE SPONSORSHIP SUBSCRIPTION TVC_APP TVC_DEPLOYMENT TVC_OPERATOR TVC_QUORUM_KEY USER WALLET WEBHOOK_ENDPOINT".split(" "),
);
export const ACTIONS: ReadonlySet<string> = new Set("CREATE UPDATE DELETE SIGN EXPORT IMPORT VERIFY ENCRYPT".split(" "));
