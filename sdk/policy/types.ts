/**
 * @module policy/types
 * The types of the policy language and the keywords each expression kind may use, as the
 * service's language page documents them ("Keywords", "Types", "Struct", "Nested structs",
 * "Spark"); test/policy/docs-language.test.ts compares every keyword path with the docs' tables.
 * Struct names are the docs' names, so messages read like the docs.
 *
 * `dyn` is data whose shape the docs leave open (`ContractArgument` values, EIP-712 messages,
 * `activity.params` fields of types the docs do not list): anything may be read from it and
 * each use is checked when the expression is evaluated. A `map` is read by string key
 * (`eth.tx.contract_call_args['wad']`).
 */
import { DOCUMENTED_ACTIONS, DOCUMENTED_RESOURCES } from "./documented";

export type Type =
  | { readonly t: "bool" }
  | { readonly t: "int" }
  | { readonly t: "uint" }
  | { readonly t: "string" }
  | { readonly t: "timestamp" }
  | { readonly t: "dyn" }
  | { readonly t: "list"; readonly of: Type }
  | { readonly t: "map"; readonly of: Type }
  | {
      readonly t: "object";
      readonly name: string;
      readonly fields: Readonly<Record<string, Type>>;
      /** Fields not listed read as `dyn` (`activity.params` lists only the documented fields). */
      readonly open?: boolean;
    };

export const BOOL: Type = { t: "bool" };
export const INT: Type = { t: "int" };
/** u256 (`Eip712Domain.chain_id`); compares with ints. */
export const UINT: Type = { t: "uint" };
export const STRING: Type = { t: "string" };
export const TIMESTAMP: Type = { t: "timestamp" };
export const DYN: Type = { t: "dyn" };
export const listOf = (of: Type): Type => ({ t: "list", of });
/** A map with string keys. */
export const mapOf = (of: Type): Type => ({ t: "map", of });
const object = (name: string, fields: Record<string, Type>, open = false): Type => ({ t: "object", name, fields, open });

/** "list<string>", "User", … for messages. */
export function typeName(type: Type): string {
  switch (type.t) {
    case "list":
      return `list<${typeName(type.of)}>`;
    case "map":
      return `map<string, ${typeName(type.of)}>`;
    case "object":
      return type.name;
    default:
      return type.t;
  }
}

/** Whether a type is a number (int or uint): both order and compare with each other. */
export function isNumeric(type: Type): boolean {
  return type.t === "int" || type.t === "uint";
}

/** Whether a value of `actual` may stand where `expected` is wanted (dyn fits both ways; int and uint compare). */
export function assignable(actual: Type, expected: Type): boolean {
  if (actual.t === "dyn" || expected.t === "dyn") return true;
  if (isNumeric(actual) && isNumeric(expected)) return true;
  if (actual.t === "list" && expected.t === "list") return assignable(actual.of, expected.of);
  if (actual.t === "map" && expected.t === "map") return assignable(actual.of, expected.of);
  if (actual.t === "object" && expected.t === "object") return actual.name === expected.name;
  return actual.t === expected.t;
}

export const USER = object("User", { id: STRING, tags: listOf(STRING), email: STRING, alias: STRING });
export const CREDENTIAL = object("Credential", { id: STRING, user_id: STRING, type: STRING, credential_id: STRING, public_key: STRING });

// Spark (docs "Spark"): the nested values of the four Spark activities' `activity.params`.
const SPARK_KEY_DERIVATION = object("SparkKeyDerivation", {
  type: STRING,
  signing_leaf: object("SparkSigningLeafDerivation", { leaf_id: STRING }),
  static_deposit: object("SparkStaticDepositDerivation", { index: INT }),
});
const SPARK_FROST_COMMITMENT = object("SparkFrostCommitment", { id: STRING, hiding: STRING, binding: STRING });
const SPARK_OPERATOR_RECIPIENT = object("SparkOperatorRecipient", { operator_id: STRING, encryption_public_key: STRING });
export const SPARK_TYPES: Readonly<Record<string, Type>> = {
  SparkSignatureRequest: object("SparkSignatureRequest", {
    derivation: SPARK_KEY_DERIVATION,
    message: STRING,
    verifying_key: STRING,
    operator_commitments: listOf(SPARK_FROST_COMMITMENT),
    adaptor_public_key: STRING,
  }),
  SparkTransferPackage: object("SparkTransferPackage", {
    transfer_id: STRING,
    leaves: listOf(
      object("SparkTransferLeaf", {
        leaf_id: STRING,
        old_leaf_derivation: SPARK_KEY_DERIVATION,
        new_leaf_derivation: SPARK_KEY_DERIVATION,
        refund_signature: STRING,
        direct_refund_signature: STRING,
        direct_from_cpfp_refund_signature: STRING,
      }),
    ),
    threshold: INT,
    operator_recipients: listOf(SPARK_OPERATOR_RECIPIENT),
    receiver_public_key: STRING,
  }),
  SparkClaimPackage: object("SparkClaimPackage", {
    leaves: listOf(object("SparkClaimLeaf", { leaf_id: STRING, ciphertext: STRING, sender_signature: STRING })),
    threshold: INT,
    operator_recipients: listOf(SPARK_OPERATOR_RECIPIENT),
    transfer_id: STRING,
    sender_identity_public_key: STRING,
  }),
  SparkLightningReceivePackage: object("SparkLightningReceivePackage", { threshold: INT, operator_recipients: listOf(SPARK_OPERATOR_RECIPIENT) }),
};

/** A type named in the docs' "Activity parameters" table ("string", "list<string>", "SparkClaimPackage"). */
export function documentedType(text: string): Type {
  const list = /^list<(.*)>$/.exec(text);
  if (list) return listOf(documentedType(list[1]!));
  const known: Record<string, Type> = { string: STRING, int: INT, uint: UINT, bool: BOOL, ...SPARK_TYPES };
  return known[text] ?? DYN;
}

// Ethereum.
const CONTRACT_ARGUMENTS = mapOf(DYN);
const ETHEREUM_TRANSACTION = object("EthereumTransaction", {
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
  max_fee_per_blob_gas: INT,
  // "LEGACY", "TYPE_1" … "TYPE_4".
  type: STRING,
  function_name: STRING,
  function_signature: STRING,
  contract_call_args: CONTRACT_ARGUMENTS,
});
const EIP_712 = object("Eip712TypedData", {
  primary_type: STRING,
  domain: object("Eip712Domain", { name: STRING, version: STRING, chain_id: UINT, verifying_contract: STRING }),
  message: mapOf(DYN),
});
const EIP_7702 = object("Eip7702Authorization", { address: STRING, chain_id: INT, nonce: INT });

// Solana.
const ADDRESS_TABLE_LOOKUP = object("AddressTableLookup", { address_table_key: STRING, writable_indexes: listOf(INT), readonly_indexes: listOf(INT) });
const INSTRUCTION = object("Instruction", {
  program_key: STRING,
  accounts: listOf(object("Account", { account_key: STRING, signer: BOOL, writable: BOOL })),
  instruction_data_hex: STRING,
  address_table_lookups: listOf(ADDRESS_TABLE_LOOKUP),
  parsed_instruction_data: object("SolanaParsedInstructionData", {
    instruction_name: STRING,
    discriminator: STRING,
    // The struct table spells it `named_account`, the prose `named_accounts`: both are accepted.
    named_account: mapOf(STRING),
    named_accounts: mapOf(STRING),
    program_call_args: mapOf(DYN),
  }),
});
const SOLANA_TRANSACTION = object("SolanaTransaction", {
  account_keys: listOf(STRING),
  program_keys: listOf(STRING),
  instructions: listOf(INSTRUCTION),
  transfers: listOf(object("Transfer", { from: STRING, to: STRING, amount: INT })),
  recent_blockhash: STRING,
  spl_transfers: listOf(
    object("SPLTransfer", { from: STRING, to: STRING, amount: INT, owner: STRING, signers: listOf(STRING), token_mint: STRING }),
  ),
  address_table_lookups: listOf(ADDRESS_TABLE_LOOKUP),
});

// Tron.
const TRON_PERMISSION = object("TronPermission", {
  type: STRING,
  id: INT,
  permission_name: STRING,
  threshold: INT,
  parent_id: INT,
  operations: STRING,
  // The docs' type column says TronKey, their description "a list of addresses and weights (up to 5)".
  keys: listOf(object("TronKey", { address: STRING, weight: INT })),
});
const TRON_CONTRACT = object("TronContract", {
  type: STRING,
  permission_id: INT,
  owner_address: STRING,
  to_address: STRING,
  amount: INT,
  contract_address: STRING,
  call_value: INT,
  data: STRING,
  call_token_value: INT,
  token_id: INT,
  resource: STRING,
  balance: INT,
  receiver_address: STRING,
  lock: BOOL,
  lock_period: INT,
  frozen_balance: INT,
  unfreeze_balance: INT,
  owner: TRON_PERMISSION,
  witness: TRON_PERMISSION,
  actives: listOf(TRON_PERMISSION),
});
const TRON_TRANSACTION = object("TronTransaction", {
  ref_block_bytes: STRING,
  ref_block_hash: STRING,
  expiration: INT,
  timestamp: INT,
  data: STRING,
  fee_limit: INT,
  contract: listOf(TRON_CONTRACT),
});

// Bitcoin.
const BITCOIN_TRANSACTION = object("BitcoinTransaction", {
  version: STRING,
  inputs: listOf(object("BitcoinTxInput", { tx_id: STRING, vout: INT, sequence: INT })),
  outputs: listOf(object("BitcoinTxOutput", { value: INT, script_pubkey: STRING, address: STRING, address_type: STRING })),
  locktime: object("BitcoinTxLocktime", { amount: INT, type: STRING }),
  fee: INT,
});

// Tempo.
const TEMPO_TRANSACTION = object("TempoTransaction", {
  chain_id: INT,
  from: STRING,
  nonce: INT,
  gas_limit: INT,
  max_fee_per_gas: INT,
  max_priority_fee_per_gas: INT,
  fee_token: STRING,
  valid_before: INT,
  valid_after: INT,
  calls: listOf(object("TempoCall", { to: STRING, input: STRING, function_signature: STRING })),
});

const WALLET = object("Wallet", { id: STRING, imported: BOOL, exported: BOOL, label: STRING });
const PRIVATE_KEY = object("PrivateKey", { id: STRING, tags: listOf(STRING), imported: BOOL, exported: BOOL, label: STRING });
const WALLET_ACCOUNT = object("WalletAccount", { address: STRING });
/** Secrets (docs features/secrets.mdx): the static properties bound to the secret an export reads. */
const SECRET = object("Secret", { static_properties: mapOf(STRING) });

/**
 * `activity.params`: the fields the docs' "Activity parameters" table lists, with their types
 * (each field has one type across the activity types that have it). Open: a field not listed
 * reads as dyn, and the coverage lint says which activity types lack it.
 */
export const ACTIVITY_PARAMS = object(
  "ActivityParams",
  {
    hash_function: STRING,
    encoding: STRING,
    type: STRING,
    user_ids: listOf(STRING),
    user_id: STRING,
    api_key_ids: listOf(STRING),
    target_public_key: STRING,
    wallet_id: STRING,
    otp_length: INT,
    session_profile_id: STRING,
    endpoint_id: STRING,
    sign_with: STRING,
    signatures: listOf(SPARK_TYPES.SparkSignatureRequest!),
    transfer: SPARK_TYPES.SparkTransferPackage!,
    claim: SPARK_TYPES.SparkClaimPackage!,
    lightning_receive: SPARK_TYPES.SparkLightningReceivePackage!,
  },
  true,
);

const ACTIVITY = object("Activity", { type: STRING, kind: STRING, resource: STRING, action: STRING, params: ACTIVITY_PARAMS });

/** The four places an expression is written. */
export type ExpressionKind = "condition" | "consensus" | "time" | "scope";
export const EXPRESSION_KINDS: readonly ExpressionKind[] = ["condition", "consensus", "time", "scope"];

const TIME = object("Time", { now: TIMESTAMP });

const CONDITION_KEYWORDS: Record<string, Type> = {
  activity: ACTIVITY,
  eth: object("Eth", { tx: ETHEREUM_TRANSACTION, eip_712: EIP_712, eip_7702_authorization: EIP_7702 }),
  solana: object("Solana", { tx: SOLANA_TRANSACTION }),
  tron: object("Tron", { tx: TRON_TRANSACTION }),
  bitcoin: object("Bitcoin", { tx: BITCOIN_TRANSACTION }),
  tempo: object("Tempo", { tx: TEMPO_TRANSACTION }),
  wallet: WALLET,
  wallets: listOf(WALLET),
  private_key: PRIVATE_KEY,
  wallet_account: WALLET_ACCOUNT,
  secret: SECRET,
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

/** Chain payload keywords (a request carries one when it signs that chain's payload). */
export const CHAIN_KEYWORDS: ReadonlySet<string> = new Set(["eth", "solana", "tron", "bitcoin", "tempo"]);

/** Activity resources and actions (docs "Activity resources and actions"), for lints on literal comparisons. */
export const RESOURCES: ReadonlySet<string> = new Set(DOCUMENTED_RESOURCES);
export const ACTIONS: ReadonlySet<string> = new Set(DOCUMENTED_ACTIONS);
