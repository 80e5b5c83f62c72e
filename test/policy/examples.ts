/**
 * The documented policy examples (policy-language reference, "Examples from the docs"), with
 * concrete values in place of the placeholders, each with an activity the policy set allows
 * and one it refuses, and the outcome expected for each. Shared by the language tests and the
 * CLI tests.
 */
import type { PolicyRecord, SimulatedActivity } from "../../sdk/policy";

export interface DocumentedExample {
  readonly name: string;
  /** The example's policies (a DENY example comes with a baseline ALLOW, so "allowed" means something). */
  readonly policies: readonly PolicyRecord[];
  readonly allowed: SimulatedActivity;
  readonly refused: SimulatedActivity;
  /** Outcome of the refused activity. */
  readonly refusedOutcome: string;
  /** Lint rules expected on the example's first policy (none by default). */
  readonly warnings?: readonly string[];
}

const allow = (policyId: string, condition: string, consensus = "", time = ""): PolicyRecord => ({
  policyId,
  policyName: policyId,
  effect: "EFFECT_ALLOW",
  condition,
  consensus,
  time,
});
const deny = (policyId: string, condition: string, consensus = ""): PolicyRecord => ({ policyId, policyName: policyId, effect: "EFFECT_DENY", condition, consensus });
const by = (id: string, tags: string[] = []) => [{ id, tags }];
const sign = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2";
const eth = (tx: Record<string, unknown>) => ({ eth: { tx } });

export const DOCUMENTED_EXAMPLES: readonly DocumentedExample[] = [
  {
    name: "1 one user may create wallets",
    policies: [allow("p1", "activity.resource == 'WALLET' && activity.action == 'CREATE'", "approvers.any(user, user.id == 'u-alice')")],
    allowed: { type: "ACTIVITY_TYPE_CREATE_WALLET", approvers: by("u-alice") },
    refused: { type: "ACTIVITY_TYPE_CREATE_WALLET", approvers: by("u-bob") },
    refusedOutcome: "OUTCOME_REQUIRES_CONSENSUS",
  },
  {
    name: "2 a tag may create users",
    policies: [allow("p2", "activity.resource == 'USER' && activity.action == 'CREATE'", "approvers.any(user, user.tags.contains('tag-admin'))")],
    allowed: { type: "ACTIVITY_TYPE_CREATE_USERS_V4", approvers: by("u-alice", ["tag-admin"]) },
    refused: { type: "ACTIVITY_TYPE_CREATE_USERS_V4", approvers: by("u-bob", ["tag-other"]) },
    refusedOutcome: "OUTCOME_REQUIRES_CONSENSUS",
  },
  {
    name: "3 two of a tag create policies",
    policies: [
      allow("p3", "activity.resource == 'POLICY' && activity.action == 'CREATE'", "approvers.filter(user, user.tags.contains('tag-sec')).count() >= 2"),
    ],
    allowed: { type: "ACTIVITY_TYPE_CREATE_POLICY_V3", approvers: [{ id: "u-a", tags: ["tag-sec"] }, { id: "u-b", tags: ["tag-sec"] }] },
    refused: { type: "ACTIVITY_TYPE_CREATE_POLICY_V3", approvers: [{ id: "u-a", tags: ["tag-sec"] }, { id: "u-c" }] },
    refusedOutcome: "OUTCOME_REQUIRES_CONSENSUS",
  },
  {
    name: "4 DENY deletes by a tag",
    policies: [
      deny("p4", "activity.action == 'DELETE'", "approvers.any(user, user.tags.contains('tag-intern'))"),
      allow("p4-base", "activity.action == 'DELETE'"),
    ],
    allowed: { type: "ACTIVITY_TYPE_DELETE_USERS", parameters: { userIds: ["u-x"] }, approvers: by("u-staff") },
    refused: { type: "ACTIVITY_TYPE_DELETE_USERS", parameters: { userIds: ["u-x"] }, approvers: by("u-intern", ["tag-intern"]) },
    refusedOutcome: "OUTCOME_DENY_EXPLICIT",
  },
  {
    name: "5 auth and OTP flows",
    policies: [allow("p5", "activity.resource in ['AUTH','OTP'] && activity.action in ['CREATE','VERIFY']")],
    allowed: { type: "ACTIVITY_TYPE_INIT_OTP", approvers: by("u-app") },
    refused: { type: "ACTIVITY_TYPE_CREATE_POLICY_V3", approvers: by("u-app") },
    refusedOutcome: "OUTCOME_DENY_IMPLICIT",
  },
  {
    name: "6 any transaction signing",
    policies: [allow("p6", "activity.kind == 'SIGN_TRANSACTION'")],
    allowed: { type: sign, approvers: by("u-bot") },
    refused: { type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", approvers: by("u-bot") },
    refusedOutcome: "OUTCOME_DENY_IMPLICIT",
    warnings: ["unscoped-signing-allow"],
  },
  {
    name: "7 signing needs a passkey",
    policies: [allow("p7", "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'", "credentials.any(credential, credential.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR')")],
    allowed: { type: sign, approvers: by("u-a"), credentials: [{ type: "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR" }] },
    refused: { type: sign, approvers: by("u-a"), credentials: [{ type: "CREDENTIAL_TYPE_API_KEY_P256" }] },
    refusedOutcome: "OUTCOME_REQUIRES_CONSENSUS",
    warnings: ["unscoped-signing-allow"],
  },
  {
    name: "8 export one account",
    policies: [allow("p8", "activity.action == 'EXPORT' && wallet_account.address == '0xabc0000000000000000000000000000000000001'")],
    allowed: { type: "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT", keywords: { wallet_account: { address: "0xabc0000000000000000000000000000000000001" } } },
    refused: { type: "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT", keywords: { wallet_account: { address: "0xabc0000000000000000000000000000000000002" } } },
    refusedOutcome: "OUTCOME_DENY_IMPLICIT",
  },
  {
    name: "9 sign with one private key",
    policies: [allow("p9", "activity.action == 'SIGN' && private_key.id == 'pk-1'")],
    allowed: { type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", keywords: { private_key: { id: "pk-1", tags: [], imported: false, exported: false, label: "k" } } },
    // Signing with a wallet: `private_key` is not part of the request, so the policy errors.
    refused: { type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", keywords: { wallet: { id: "w-1", imported: false, exported: false, label: "w" } } },
    refusedOutcome: "OUTCOME_DENY_IMPLICIT",
  },
  {
    name: "10 ERC-20 call arguments",
    policies: [
      allow(
        "p10",
        "eth.tx.contract_call_args['wad'] < 1000000000000000000 && eth.tx.contract_call_args['dst'] == '0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7'",
      ),
    ],
    allowed: { type: sign, keywords: eth({ contract_call_args: { wad: "5000", dst: "0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7" } }) },
    refused: { type: sign, keywords: eth({ contract_call_args: { wad: "2000000000000000000", dst: "0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7" } }) },
    refusedOutcome: "OUTCOME_DENY_IMPLICIT",
    warnings: ["unscoped-signing-allow"],
  },
  {
    name: "11 transfer selector on one contract",
    policies: [allow("p11", "eth.tx.to == '0xc0ffee0000000000000000000000000000000000' && eth.tx.data[0..10] == '0xa9059cbb'")],
    allowed: { type: sign, keywords: eth({ to: "0xc0ffee0000000000000000000000000000000000", data: "0xa9059cbb0000000000000000000000001111" }) },
    refused: { type: sign, keywords: eth({ to: "0xc0ffee0000000000000000000000000000000000", data: "0x095ea7b30000000000000000000000001111" }) },
    refusedOutcome: "OUTCOME_DENY_IMPLICIT",
    warnings: ["unscoped-signing-allow"],
  },
  {
    name: "12 Sepolia only",
    policies: [allow("p12", "eth.tx.chain_id == 11155111")],
    allowed: { type: sign, keywords: eth({ chain_id: 11155111 }) },
    refused: { type: sign, keywords: eth({ chain_id: 1 }) },
    refusedOutcome: "OUTCOME_DENY_IMPLICIT",
    warnings: ["unscoped-signing-allow"],
  },
  {
    name: "13 Permit2 for one token",
    policies: [allow("p13", "eth.eip_712.domain.name == 'Permit2' && eth.eip_712.message['permitted'].all(p, p['token'] == '0xa0b8')")],
    allowed: { type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", keywords: { eth: { eip_712: { domain: { name: "Permit2" }, message: { permitted: [{ token: "0xa0b8" }] } } } } },
    refused: {
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
      keywords: { eth: { eip_712: { domain: { name: "Permit2" }, message: { permitted: [{ token: "0xa0b8" }, { token: "0xdead" }] } } } },
    },
    refusedOutcome: "OUTCOME_DENY_IMPLICIT",
    warnings: ["unscoped-signing-allow"],
  },
  {
    name: "14 DENY raw NO_OP payloads that are not EIP-712",
    policies: [
      deny(
        "p14",
        "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && activity.params.hash_function == 'HASH_FUNCTION_NO_OP' && activity.params.encoding != 'PAYLOAD_ENCODING_EIP712'",
      ),
      allow("p14-base", "activity.kind == 'SIGN_RAW_PAYLOAD' && private_key.id == 'pk-1'"),
    ],
    allowed: {
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
      parameters: { signWith: "pk-1", payload: "00", encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_SHA256" },
      keywords: { private_key: { id: "pk-1", tags: [], imported: false, exported: false, label: "k" } },
    },
    refused: {
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
      parameters: { signWith: "pk-1", payload: "00", encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_NO_OP" },
      keywords: { private_key: { id: "pk-1", tags: [], imported: false, exported: false, label: "k" } },
    },
    refusedOutcome: "OUTCOME_DENY_EXPLICIT",
  },
  {
    name: "15 delete exactly one named user",
    policies: [allow("p15", "activity.type == 'ACTIVITY_TYPE_DELETE_USERS' && activity.params.user_ids.count() == 1 && 'u-temp' in activity.params.user_ids")],
    allowed: { type: "ACTIVITY_TYPE_DELETE_USERS", parameters: { userIds: ["u-temp"] } },
    refused: { type: "ACTIVITY_TYPE_DELETE_USERS", parameters: { userIds: ["u-temp", "u-alice"] } },
    refusedOutcome: "OUTCOME_DENY_IMPLICIT",
  },
  {
    name: "16 DENY Solana address table lookups",
    policies: [
      deny("p16", "solana.tx.transfers.any(t, t.to == 'ADDRESS_TABLE_LOOKUP') || solana.tx.spl_transfers.any(t, t.to == 'ADDRESS_TABLE_LOOKUP')"),
      allow("p16-base", "activity.kind == 'SIGN_TRANSACTION' && wallet.id == 'w-sol'"),
    ],
    allowed: {
      type: sign,
      keywords: { wallet: { id: "w-sol" }, solana: { tx: { transfers: [{ from: "A", to: "B", amount: 1 }], spl_transfers: [] } } },
    },
    refused: {
      type: sign,
      keywords: { wallet: { id: "w-sol" }, solana: { tx: { transfers: [], spl_transfers: [{ from: "A", to: "ADDRESS_TABLE_LOOKUP", amount: 1 }] } } },
    },
    refusedOutcome: "OUTCOME_DENY_EXPLICIT",
  },
  {
    name: "17 only SPL transfers of one mint",
    policies: [allow("p17", "solana.tx.instructions.count() == solana.tx.spl_transfers.count() && solana.tx.spl_transfers.all(t, t.token_mint == 'MINT1')")],
    allowed: { type: sign, keywords: { solana: { tx: { instructions: [{}], spl_transfers: [{ token_mint: "MINT1" }] } } } },
    refused: { type: sign, keywords: { solana: { tx: { instructions: [{}, {}], spl_transfers: [{ token_mint: "MINT1" }] } } } },
    refusedOutcome: "OUTCOME_DENY_IMPLICIT",
    warnings: ["unscoped-signing-allow"],
  },
  {
    name: "18a small bitcoin outputs",
    policies: [allow("p18a", "bitcoin.tx.outputs.all(o, o.value < 200000)")],
    allowed: { type: sign, keywords: { bitcoin: { tx: { outputs: [{ value: 1000 }, { value: 199999 }] } } } },
    refused: { type: sign, keywords: { bitcoin: { tx: { outputs: [{ value: 1000 }, { value: 200000 }] } } } },
    refusedOutcome: "OUTCOME_DENY_IMPLICIT",
    warnings: ["unscoped-signing-allow"],
  },
  {
    name: "18b DENY high bitcoin fees",
    policies: [deny("p18b", "bitcoin.tx.fee > 50000"), allow("p18b-base", "activity.kind == 'SIGN_TRANSACTION' && wallet.id == 'w-btc'")],
    allowed: { type: sign, keywords: { wallet: { id: "w-btc" }, bitcoin: { tx: { fee: 50000 } } } },
    refused: { type: sign, keywords: { wallet: { id: "w-btc" }, bitcoin: { tx: { fee: 50001 } } } },
    refusedOutcome: "OUTCOME_DENY_EXPLICIT",
  },
  {
    name: "19 TRON transfer on one contract",
    policies: [allow("p19", "tron.tx.contract[0].contract_address == 'TXYZ' && tron.tx.contract[0].data[0..8] == 'a9059cbb'")],
    allowed: { type: sign, keywords: { tron: { tx: { contract: [{ contract_address: "TXYZ", data: "a9059cbb00ff" }] } } } },
    refused: { type: sign, keywords: { tron: { tx: { contract: [{ contract_address: "TOTHER", data: "a9059cbb00ff" }] } } } },
    refusedOutcome: "OUTCOME_DENY_IMPLICIT",
    warnings: ["unscoped-signing-allow"],
  },
  {
    name: "20 treasury signing in New York office hours",
    policies: [
      allow(
        "p20",
        "activity.kind == 'SIGN_TRANSACTION' && eth.tx.to == '0x7ea5000000000000000000000000000000000000'",
        "approvers.any(user, user.tags.contains('ops'))",
        "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')",
      ),
    ],
    // Monday 2025-01-06 10:00 in New York (UTC-5).
    allowed: { type: sign, approvers: by("u-ops", ["ops"]), keywords: eth({ to: "0x7ea5000000000000000000000000000000000000" }), now: "2025-01-06T15:00:00Z" },
    // Sunday: the policy is skipped (TIME_INACTIVE), so nothing allows it.
    refused: { type: sign, approvers: by("u-ops", ["ops"]), keywords: eth({ to: "0x7ea5000000000000000000000000000000000000" }), now: "2025-01-05T15:00:00Z" },
    refusedOutcome: "OUTCOME_DENY_IMPLICIT",
    warnings: ["unscoped-signing-allow"],
  },
];
