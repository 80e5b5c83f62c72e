/**
 * Every operation of the registry: a realistic request built from the spec's field tables (and
 * docs/service-facts.md for the extras) parses with its schema, and every definition carries a path of
 * its family and, for activities, a versioned type and its intent and result keys.
 */
import { describe, expect, it } from "vitest";
import { describeZodError, operationAtPath, operations, type OperationDef } from "../../sdk/wire";

const ORG = "5f1d7a3e-4b0c-4d8e-9a61-0c2b7e9f1a42";
const USER = "0b9c2f6e-7a1d-4e3b-8c5f-2d4a6e8b1c03";
const P256_PUBLIC_KEY = "02f3a1c9d07e5b2a48c6d1e0f9a7b3c5d2e4f6a8b0c1d3e5f7a9b2c4d6e8f0a1b3";
const ETH_ADDRESS = "0x8Ba1f109551bD432803012645Ac136ddd64DBA72";
const WRAPPER = "0x4c9EDD5852cd905f086C759E8383e09bff1E68B3";
const ABI = JSON.stringify([
  { type: "function", name: "transfer", inputs: [{ name: "to", type: "address" }, { name: "value", type: "uint256" }], outputs: [{ type: "bool" }] },
]);
const clientSignature = {
  publicKey: P256_PUBLIC_KEY,
  scheme: "CLIENT_SIGNATURE_SCHEME_API_P256",
  message: "9a7e1f0c-3b2d-4e5f-8a6b-7c8d9e0f1a2b" + P256_PUBLIC_KEY,
  signature: "3045022100c3a1e0f7b9d2c4a6e8f0b1d3c5e7a9b2c4d6e8f0a1b3c5d7e9f1a2b4c6d8e0f2022041b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b3",
};
const ethAccount = {
  curve: "CURVE_SECP256K1",
  pathFormat: "PATH_FORMAT_BIP32",
  path: "m/44'/60'/0'/0/0",
  addressFormat: "ADDRESS_FORMAT_ETHEREUM",
};

/** Example bodies: query and auth-proxy requests as sent, activity `parameters` only. */
const examples: Record<keyof typeof operations, Record<string, unknown>> = {
  // Spec 4.2
  signupV2: {
    userEmail: "ada@example.com",
    userName: "Ada Lovelace",
    organizationName: "Ada's org",
    verificationToken: "eyJhbGciOiJFUzI1NiJ9.eyJpZCI6IjEyMyJ9.c2ln",
    apiKeys: [{ apiKeyName: "laptop", publicKey: P256_PUBLIC_KEY, curveType: "API_KEY_CURVE_P256", expirationSeconds: "86400" }],
    authenticators: [
      {
        authenticatorName: "Ada's passkey",
        challenge: "c2lnbi1tZS1wbGVhc2U",
        attestation: {
          credentialId: "q2l2ZWQtY3JlZGVudGlhbC1pZA",
          clientDataJson: "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0",
          attestationObject: "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YQ",
          transports: ["AUTHENTICATOR_TRANSPORT_INTERNAL", "AUTHENTICATOR_TRANSPORT_HYBRID"],
        },
      },
    ],
    oauthProviders: [
      { providerName: "google", oidcToken: "ZXlKaGJHY2lPaUpTVXpJMU5pSjk=", oidcClaims: { iss: "https://accounts.google.com", sub: "1098", aud: "client-1" } },
    ],
    wallet: { walletName: "Default wallet", accounts: [ethAccount], mnemonicLength: 24 },
    clientSignature,
  },
  otpLoginV2: {
    verificationToken: "eyJhbGciOiJFUzI1NiJ9.eyJpZCI6IjEyMyJ9.c2ln",
    publicKey: P256_PUBLIC_KEY,
    clientSignature,
    invalidateExisting: true,
    organizationId: ORG,
  },
  otpInit: { otpType: "OTP_TYPE_EMAIL", contact: "alice@example.com" },
  otpVerify: { otpId: "7d1e5c2a-9b3f-4a6e-8c0d-1f2e3a4b5c6d", otpCode: "482913", publicKey: P256_PUBLIC_KEY },
  // Spec 4.3
  listEthTransactionHistory: {
    organizationId: ORG,
    address: ETH_ADDRESS,
    caip2: "eip155:8453",
    paginationOptions: { limit: "25", after: "opaque-cursor" },
  },
  listWalletAccounts: {
    organizationId: ORG,
    walletId: "c1f0e2d3-4b5a-6978-8a9b-0c1d2e3f4a5b",
    includeWalletDetails: true,
    paginationOptions: { limit: "100" },
  },
  listWebhookEndpoints: { organizationId: ORG },
  getSessionProfile: { organizationId: ORG, sessionProfileId: "e2a4c6e8-0b1d-4f3a-9c5e-7a9b1c3d5e7f" },
  getApiKeys: { organizationId: ORG, userId: USER },
  listSmartContractInterfaces: { organizationId: ORG },
  // Spec 4.4
  createInvitations: {
    invitations: [
      { receiverUserName: "Grace", receiverUserEmail: "grace@example.com", receiverUserTags: [], accessType: "ACCESS_TYPE_WEB", senderUserId: USER },
    ],
  },
  updateUser: { userId: USER, userName: "Ada L.", userEmail: "ada@example.org", userTagIds: [], userPhoneNumber: "+447700900123" },
  updateUserName: { userId: USER, userName: "Ada King" },
  otpAuth: {
    otpId: "7d1e5c2a-9b3f-4a6e-8c0d-1f2e3a4b5c6d",
    otpCode: "482913",
    targetPublicKey: "04" + "ab".repeat(64),
    apiKeyName: "OTP Auth 1732212345",
    expirationSeconds: "900",
    invalidateExisting: false,
  },
  createApiKeys: {
    apiKeys: [
      { apiKeyName: "ci-deployer", publicKey: P256_PUBLIC_KEY, curveType: "API_KEY_CURVE_P256", expirationSeconds: "2592000" },
      { apiKeyName: "signer", publicKey: "ed".repeat(32), curveType: "API_KEY_CURVE_ED25519" },
    ],
    userId: USER,
  },
  createPolicies: {
    policies: [
      { policyName: "Deny exports", effect: "EFFECT_DENY", condition: "activity.action == 'EXPORT'", notes: "" },
      { policyName: "Allow ops", effect: "EFFECT_ALLOW", consensus: "approvers.any(user, user.id == 'u-1')", notes: "ops" },
    ],
  },
  deletePolicies: { policyIds: ["policy-1", "policy-2"] },
  createPolicy: {
    policyName: "Treasury needs two approvals",
    effect: "EFFECT_ALLOW",
    condition: "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'",
    consensus: "approvers.filter(user, user.tags.contains('treasury')).count() >= 2",
    notes: "quorum for outgoing transfers",
  },
  deletePrivateKeys: { privateKeyIds: ["a7c9e1b3-d5f7-4a9c-8e1b-3d5f7a9c1e3b"], deleteWithoutExport: true },
  createUserTag: { userTagName: "treasury", userIds: [USER] },
  deleteUserTags: { userTagIds: ["f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9"] },
  exportWalletAccount: { address: ETH_ADDRESS, targetPublicKey: "04" + "cd".repeat(64) },
  removeIpAllowlist: { publicKey: P256_PUBLIC_KEY },
  setIpAllowlist: { publicKey: P256_PUBLIC_KEY, rules: [{ cidr: "203.0.113.0/24", label: "CI runners" }], onEvaluationError: "DENY" },
  updateWallet: { walletId: "c1f0e2d3-4b5a-6978-8a9b-0c1d2e3f4a5b", walletName: "treasury" },
  deleteWallets: { walletIds: ["c1f0e2d3-4b5a-6978-8a9b-0c1d2e3f4a5b"], deleteWithoutExport: true },
  createPrivateKeyTag: { privateKeyTagName: "hot", privateKeyIds: ["a7c9e1b3-d5f7-4a9c-8e1b-3d5f7a9c1e3b"] },
  updatePrivateKeyTag: { privateKeyTagId: "b7c9e1b3-d5f7-4a9c-8e1b-3d5f7a9c1e3b", newPrivateKeyTagName: "cold", addPrivateKeyIds: [], removePrivateKeyIds: ["a7c9e1b3-d5f7-4a9c-8e1b-3d5f7a9c1e3b"] },
  deletePrivateKeyTags: { privateKeyTagIds: ["b7c9e1b3-d5f7-4a9c-8e1b-3d5f7a9c1e3b"] },
  deleteInvitation: { invitationId: "3b5d7f9a-1c3e-4b5d-8f9a-1c3e5b7d9f1a" },
  earnWithdraw: { wrapperAddress: WRAPPER, signWith: ETH_ADDRESS, chainCaip2: "eip155:8453", sponsor: true, amountValue: "MAX" },
  earnSetWrapperState: { wrapperAddress: WRAPPER, depositsDisabled: true },
  // Operations beyond the spec (docs/service-facts.md)
  updateUserTag: { userTagId: "f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9", newUserTagName: "ops", addUserIds: [USER], removeUserIds: [] },
  listUserTags: { organizationId: ORG },
  getActivity: { organizationId: ORG, activityId: "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b" },
  listActivities: {
    organizationId: ORG,
    filterByStatus: ["ACTIVITY_STATUS_CONSENSUS_NEEDED"],
    filterByType: ["ACTIVITY_TYPE_CREATE_POLICY_V3"],
    paginationOptions: { limit: "50" },
  },
  approveActivity: { fingerprint: "sha256:" + "0f".repeat(32) },
  rejectActivity: { fingerprint: "sha256:" + "1e".repeat(32) },
  whoami: { organizationId: ORG },
  getOrganization: { organizationId: ORG },
  updateRootQuorum: { threshold: 2, userIds: [USER, "5b2c1f0e-8d3a-4c6b-9e7f-0a1b2c3d4e5f"] },
  listUsers: { organizationId: ORG },
  getUser: { organizationId: ORG, userId: USER },
  createUsers: {
    users: [
      {
        userName: "ci-bot",
        userEmail: "ci@example.com",
        apiKeys: [{ apiKeyName: "ci", publicKey: P256_PUBLIC_KEY, curveType: "API_KEY_CURVE_P256" }],
        authenticators: [],
        oauthProviders: [],
        userTags: [],
      },
    ],
  },
  deleteUsers: { userIds: [USER] },
  getPolicy: { organizationId: ORG, policyId: "2c4e6a8c-0e2a-4c6e-8a0c-2e4a6c8e0a2c" },
  listPolicies: { organizationId: ORG },
  getPolicyEvaluations: { organizationId: ORG, activityId: "7b1e2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d" },
  updatePolicy: { policyId: "2c4e6a8c-0e2a-4c6e-8a0c-2e4a6c8e0a2c", policyName: "Treasury (3 of 5)", policyEffect: "EFFECT_DENY", policyNotes: "tightened" },
  deletePolicy: { policyId: "2c4e6a8c-0e2a-4c6e-8a0c-2e4a6c8e0a2c" },
  getApiKey: { organizationId: ORG, apiKeyId: "6e8a0c2e-4a6c-4e0a-8c2e-4a6c8e0a2c4e" },
  deleteApiKeys: { userId: USER, apiKeyIds: ["6e8a0c2e-4a6c-4e0a-8c2e-4a6c8e0a2c4e"] },
  createSmartContractInterface: {
    smartContractAddress: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
    smartContractInterface: ABI,
    type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM",
    label: "USDC",
    notes: "ERC-20 subset",
  },
  deleteSmartContractInterface: { smartContractInterfaceId: "8a0c2e4a-6c8e-4a2c-9e4a-6c8e0a2c4e6a" },
  getSmartContractInterface: { organizationId: ORG, smartContractInterfaceId: "8a0c2e4a-6c8e-4a2c-9e4a-6c8e0a2c4e6a" },
  earnDeployWrapper: { vaultAddress: "0xBEEF01735c132Ada46AA9aA4c54623cAA92A64CB", chainCaip2: "eip155:1", clientFeeBps: "25", clientFeeWallet: ETH_ADDRESS },
  listEarnEnabledVaults: { organizationId: ORG, provider: "EARN_PROVIDER_MORPHO", includeExposure: true },
  getEarnWithdrawStatus: { organizationId: ORG, withdrawRequestId: "wr_01J9Z7Q4K2" },
  createWallet: {
    walletName: "Treasury",
    accounts: [ethAccount, { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/84'/0'/0'/0/0", addressFormat: "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH" }],
    mnemonicLength: 12,
  },
  createWalletAccounts: {
    walletId: "c1f0e2d3-4b5a-6978-8a9b-0c1d2e3f4a5b",
    accounts: [{ curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA", name: "sol-0" }],
  },
  getWallets: { organizationId: ORG },
  getWallet: { organizationId: ORG, walletId: "c1f0e2d3-4b5a-6978-8a9b-0c1d2e3f4a5b" },
  createPrivateKeys: {
    privateKeys: [{ privateKeyName: "hot-key", curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] }],
  },
  signRawPayload: { signWith: ETH_ADDRESS, payload: "0x" + "ab".repeat(32), encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_NO_OP" },
  signRawPayloads: { signWith: ETH_ADDRESS, payloads: ["68656c6c6f"], encoding: "PAYLOAD_ENCODING_HEXADECIMAL", hashFunction: "HASH_FUNCTION_KECCAK256" },
  signTransaction: { signWith: ETH_ADDRESS, unsignedTransaction: "02e50180843b9aca00850df847580082520894" + "8ba1f109551bd432803012645ac136ddd64dba72" + "0180c0", type: "TRANSACTION_TYPE_ETHEREUM" },
  exportWallet: { walletId: "c1f0e2d3-4b5a-6978-8a9b-0c1d2e3f4a5b", targetPublicKey: "04" + "cd".repeat(64), language: "MNEMONIC_LANGUAGE_ENGLISH" },
  exportPrivateKey: { privateKeyId: "a7c9e1b3-d5f7-4a9c-8e1b-3d5f7a9c1e3b", targetPublicKey: "04" + "cd".repeat(64) },
  getPrivateKey: { organizationId: ORG, privateKeyId: "a7c9e1b3-d5f7-4a9c-8e1b-3d5f7a9c1e3b" },
  listPrivateKeys: { organizationId: ORG },
  listWallets: { organizationId: ORG },
  listPrivateKeyTags: { organizationId: ORG },
  getIpAllowlist: { organizationId: ORG, publicKey: P256_PUBLIC_KEY },
  createWebhookEndpoint: {
    url: "https://hooks.example.com/keyform",
    name: "activity feed",
    subscriptions: [{ eventType: "ACTIVITY_UPDATES", filtersJson: '{"status":["ACTIVITY_STATUS_COMPLETED"]}', isActive: true }],
  },
  updateWebhookEndpoint: { endpointId: "0a2c4e6a-8c0e-4a4c-8e6a-0c2e4a6c8e0a", isActive: false },
  deleteWebhookEndpoint: { endpointId: "0a2c4e6a-8c0e-4a4c-8e6a-0c2e4a6c8e0a" },
  createSessionProfile: { sessionProfileName: "read-only", scope: "read_only", expirationSeconds: "3600", notes: "dashboards" },
  getSessionProfiles: { organizationId: ORG },
};

/** The operations the spec itself lists (4.2, 4.3, 4.4). */
const SPEC_OPERATIONS = [
  "signup_v2", "otp_login_v2",
  "list_eth_transaction_history", "list_wallet_accounts", "list_webhook_endpoints", "get_session_profile",
  "get_api_keys", "list_smart_contract_interfaces",
  "create_invitations", "update_user", "update_user_name", "otp_auth", "create_api_keys", "create_policy",
  "delete_private_keys", "create_user_tag", "delete_user_tags", "export_wallet_account", "remove_ip_allowlist",
  "delete_invitation", "earn_withdraw", "earn_set_wrapper_state",
];

const camel = (wireName: string) => wireName.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const entries = Object.entries(operations) as [keyof typeof operations, OperationDef][];

/** The full body a client sends for an operation, given its example. */
function bodyFor(def: OperationDef, example: Record<string, unknown>): unknown {
  if (def.kind !== "activity") return example;
  return { type: def.type, timestampMs: "1732212345678", organizationId: ORG, parameters: example };
}

describe("wire registry", () => {
  it("registers every operation the spec lists", () => {
    const names = entries.map(([, def]) => def.name);
    for (const wireName of SPEC_OPERATIONS) expect(names).toContain(wireName);
  });

  it.each(entries)("%s: name, path family, activity type and keys", (key, def) => {
    expect(key).toBe(camel(def.name));
    expect(operationAtPath(def.path)).toBe(def);
    if (def.kind === "query") expect(def.path).toBe(`/public/v1/query/${def.name}`);
    if (def.kind === "authProxy") expect(def.path).toBe(`/v1/${def.name}`);
    if (def.kind === "activity") {
      expect(def.path).toBe(`/public/v1/submit/${def.name}`);
      expect(def.type).toMatch(/^ACTIVITY_TYPE_[A-Z0-9_]+$/);
      expect(def.intentKey).toMatch(/^[a-z][A-Za-z0-9]*Intent(V\d+)?$/);
      expect(def.resultKey).toMatch(/^[a-z][A-Za-z0-9]*Result(V\d+)?$/);
      // The intent key and the result key name the same operation.
      expect(def.intentKey.replace(/Intent(V\d+)?$/, "")).toBe(def.resultKey.replace(/Result(V\d+)?$/, ""));
    }
  });

  it("keeps the version quirks of the service", () => {
    const quirks = [
      ["createPolicy", "ACTIVITY_TYPE_CREATE_POLICY_V3", "createPolicyIntentV3", "createPolicyResult"],
      ["createApiKeys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", "createApiKeysIntentV2", "createApiKeysResult"],
      ["createUsers", "ACTIVITY_TYPE_CREATE_USERS_V4", "createUsersIntentV4", "createUsersResult"],
      ["updatePolicy", "ACTIVITY_TYPE_UPDATE_POLICY_V2", "updatePolicyIntentV2", "updatePolicyResultV2"],
      ["createPrivateKeys", "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2", "createPrivateKeysIntentV2", "createPrivateKeysResultV2"],
      // The signing activities keep the version in the intent key only (@turnkey/http's types).
      ["signRawPayload", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", "signRawPayloadIntentV2", "signRawPayloadResult"],
      ["signTransaction", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", "signTransactionIntentV2", "signTransactionResult"],
    ] as const;
    for (const [key, type, intentKey, resultKey] of quirks) {
      expect(operations[key]).toMatchObject({ kind: "activity", type, intentKey, resultKey });
    }
  });

  it("marks the paginated queries with their item key", () => {
    expect(operations.listWalletAccounts.pageItems).toBe("accounts");
    expect(operations.listActivities.pageItems).toBe("activities");
    expect(operations.listEthTransactionHistory.pageItems).toBe("transactions");
    expect(operations.listUsers).not.toHaveProperty("pageItems");
  });

  it("has an example for every operation", () => {
    expect(Object.keys(examples).sort()).toEqual(Object.keys(operations).sort());
  });

  it.each(entries)("%s: the example request parses", (key, def) => {
    const result = def.request.safeParse(bodyFor(def, examples[key]));
    expect(result.success, result.success ? "" : describeZodError(result.error)).toBe(true);
  });

  it("rejects an activity envelope whose type belongs to another version", () => {
    const body = bodyFor(operations.createPolicy, examples.createPolicy) as Record<string, unknown>;
    const result = operations.createPolicy.request.safeParse({ ...body, type: "ACTIVITY_TYPE_CREATE_POLICY_V2" });
    expect(result.success).toBe(false);
    expect(describeZodError(result.error!)).toMatch(/^type: /);
  });

  it("strips unknown keys instead of rejecting them", () => {
    const parsed = operations.deleteInvitation.parameters.parse({ invitationId: "x", extra: 1 });
    expect(parsed).toEqual({ invitationId: "x" });
  });
});
