/**
 * @module wire/enums
 * Every enumeration of the interface (spec 2.9–2.11, and docs/service-facts.md for the values
 * the spec leaves out). One zod enum per list; `z.infer` gives the TypeScript union.
 */
import { z } from "zod";

const BITCOIN_NETWORKS = ["MAINNET", "TESTNET", "SIGNET", "REGTEST"] as const;
const BITCOIN_SCRIPTS = ["P2PKH", "P2SH", "P2WPKH", "P2WSH", "P2TR"] as const;

type BitcoinAddressFormat =
  `ADDRESS_FORMAT_BITCOIN_${(typeof BITCOIN_NETWORKS)[number]}_${(typeof BITCOIN_SCRIPTS)[number]}`;

/** The twenty `ADDRESS_FORMAT_BITCOIN_<NETWORK>_<SCRIPT>` values (spec 2.9). */
export const BITCOIN_ADDRESS_FORMATS = BITCOIN_NETWORKS.flatMap((network) =>
  BITCOIN_SCRIPTS.map((script) => `ADDRESS_FORMAT_BITCOIN_${network}_${script}` as BitcoinAddressFormat),
);

/** Spec 2.9: every address format, the Bitcoin combinations included. */
export const ADDRESS_FORMATS = [
  "ADDRESS_FORMAT_UNCOMPRESSED",
  "ADDRESS_FORMAT_COMPRESSED",
  "ADDRESS_FORMAT_ETHEREUM",
  "ADDRESS_FORMAT_SOLANA",
  "ADDRESS_FORMAT_COSMOS",
  "ADDRESS_FORMAT_TRON",
  "ADDRESS_FORMAT_SUI",
  "ADDRESS_FORMAT_APTOS",
  "ADDRESS_FORMAT_SEI",
  "ADDRESS_FORMAT_XLM",
  "ADDRESS_FORMAT_DOGE_MAINNET",
  "ADDRESS_FORMAT_DOGE_TESTNET",
  "ADDRESS_FORMAT_TON_V3R2",
  "ADDRESS_FORMAT_TON_V4R2",
  "ADDRESS_FORMAT_TON_V5R1",
  "ADDRESS_FORMAT_XRP",
  "ADDRESS_FORMAT_SPARK_MAINNET",
  "ADDRESS_FORMAT_SPARK_REGTEST",
  ...BITCOIN_ADDRESS_FORMATS,
] as const;
export const AddressFormat = z.enum(ADDRESS_FORMATS as unknown as [string, ...string[]], {
  // The default message would list all 38 values.
  error: "must be an address format of spec 2.9, such as ADDRESS_FORMAT_ETHEREUM or ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH",
}) as unknown as z.ZodEnum<{
  [K in (typeof ADDRESS_FORMATS)[number] | BitcoinAddressFormat]: K;
}>;
export type AddressFormat = z.infer<typeof AddressFormat>;

/** Spec 2.3: curves of wallet accounts and private keys. */
export const Curve = z.enum(["CURVE_SECP256K1", "CURVE_ED25519", "CURVE_P256"]);
export type Curve = z.infer<typeof Curve>;

/** Spec 2.3: derivation path formats. */
export const PathFormat = z.enum(["PATH_FORMAT_BIP32"]);
export type PathFormat = z.infer<typeof PathFormat>;

/** Spec 2.10: credential types. */
export const CredentialType = z.enum([
  "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR",
  "CREDENTIAL_TYPE_API_KEY_P256",
  "CREDENTIAL_TYPE_RECOVER_USER_KEY_P256",
  "CREDENTIAL_TYPE_API_KEY_SECP256K1",
  "CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256",
  "CREDENTIAL_TYPE_API_KEY_ED25519",
  "CREDENTIAL_TYPE_OTP_AUTH_KEY_P256",
  "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256",
  "CREDENTIAL_TYPE_OAUTH_KEY_P256",
  "CREDENTIAL_TYPE_LOGIN",
]);
export type CredentialType = z.infer<typeof CredentialType>;

/** Spec 2.11: curves of API keys. */
export const ApiKeyCurve = z.enum(["API_KEY_CURVE_P256", "API_KEY_CURVE_SECP256K1", "API_KEY_CURVE_ED25519"]);
export type ApiKeyCurve = z.infer<typeof ApiKeyCurve>;

/** Spec 2.11: WebAuthn authenticator transports. */
export const AuthenticatorTransport = z.enum([
  "AUTHENTICATOR_TRANSPORT_BLE",
  "AUTHENTICATOR_TRANSPORT_INTERNAL",
  "AUTHENTICATOR_TRANSPORT_NFC",
  "AUTHENTICATOR_TRANSPORT_USB",
  "AUTHENTICATOR_TRANSPORT_HYBRID",
]);
export type AuthenticatorTransport = z.infer<typeof AuthenticatorTransport>;

/** Spec 2.11: invitation access types. */
export const AccessType = z.enum(["ACCESS_TYPE_WEB", "ACCESS_TYPE_API", "ACCESS_TYPE_ALL"]);
export type AccessType = z.infer<typeof AccessType>;

/** Spec 2.11: policy effects. */
export const Effect = z.enum(["EFFECT_ALLOW", "EFFECT_DENY"]);
export type Effect = z.infer<typeof Effect>;

/** Spec 2.11: chains of `list_eth_transaction_history`. */
export const HistoryCaip2 = z.enum([
  "eip155:1",
  "eip155:11155111",
  "eip155:8453",
  "eip155:84532",
  "eip155:137",
  "eip155:80002",
  "eip155:42161",
  "eip155:4217",
  "eip155:42431",
  "eip155:421614",
  "eip155:56",
  "eip155:97",
]);
export type HistoryCaip2 = z.infer<typeof HistoryCaip2>;

/** Spec 2.11: chains Earn vaults live on. */
export const EarnChainCaip2 = z.enum(["eip155:1", "eip155:8453", "eip155:42161", "eip155:137", "eip155:56", "eip155:4217"]);
export type EarnChainCaip2 = z.infer<typeof EarnChainCaip2>;

/** docs/service-facts.md#36-earn-yield-vault-wrappers: Earn vault providers. */
export const EarnProvider = z.enum(["EARN_PROVIDER_MORPHO", "EARN_PROVIDER_AAVE"]);
export type EarnProvider = z.infer<typeof EarnProvider>;

/** Spec 2.1: client signature scheme. */
export const ClientSignatureScheme = z.enum(["CLIENT_SIGNATURE_SCHEME_API_P256"]);

/** Spec 2.1: App Proof scheme. */
export const AppProofScheme = z.enum(["SIGNATURE_SCHEME_EPHEMERAL_KEY_P256"]);

/** docs/service-facts.md#12-other-api-key-curves-and-schemes: stamp schemes of the `X-Stamp` header. */
export const StampScheme = z.enum([
  "SIGNATURE_SCHEME_TK_API_P256",
  "SIGNATURE_SCHEME_TK_API_SECP256K1",
  "SIGNATURE_SCHEME_TK_API_ED25519",
  "SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191",
]);
export type StampScheme = z.infer<typeof StampScheme>;

/** docs/service-facts.md#4-activity-lifecycle: activity statuses. */
export const ActivityStatus = z.enum([
  "ACTIVITY_STATUS_CREATED",
  "ACTIVITY_STATUS_PENDING",
  "ACTIVITY_STATUS_COMPLETED",
  "ACTIVITY_STATUS_FAILED",
  "ACTIVITY_STATUS_CONSENSUS_NEEDED",
  "ACTIVITY_STATUS_REJECTED",
  "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED",
]);
export type ActivityStatus = z.infer<typeof ActivityStatus>;

/** Spec 2.7 / docs/service-facts.md#35-smart-contract-interfaces: smart contract interface types, short and wire forms. */
export const SmartContractInterfaceType = z.enum([
  "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM",
  "SMART_CONTRACT_INTERFACE_TYPE_SOLANA",
]);
export type SmartContractInterfaceType = z.infer<typeof SmartContractInterfaceType>;

/** docs/service-facts.md#34-invitations: invitation statuses. */
export const InvitationStatus = z.enum([
  "INVITATION_STATUS_CREATED",
  "INVITATION_STATUS_ACCEPTED",
  "INVITATION_STATUS_REVOKED",
]);

/** docs/service-facts.md#shared-object-shapes: tag types. */
export const TagType = z.enum(["TAG_TYPE_USER", "TAG_TYPE_PRIVATE_KEY"]);

/** Spec 2.8: EVM transaction statuses, transfer directions. */
export const EthTransactionStatus = z.enum(["CONFIRMED", "FINALIZED"]);
export const TransferDirection = z.enum(["IN", "OUT"]);

/** Spec 6: webhook event types named for subscriptions. */
export const WebhookEventType = z.enum(["ACTIVITY_UPDATES", "BALANCE_CONFIRMED_UPDATES", "BALANCE_FINALIZED_UPDATES"]);

/** docs/service-facts.md#2-request-and-response-envelope: vote selections. */
export const VoteSelection = z.enum(["VOTE_SELECTION_APPROVED", "VOTE_SELECTION_REJECTED"]);

/** docs/service-facts.md#36-earn-yield-vault-wrappers: status of Earn requests (withdrawals, deposits, deployments). */
export const EarnRequestStatus = z.enum(["PENDING", "COMPLETED", "FAILED"]);
