/**
 * Response schemas: the records the service returns parse, tolerate extra fields and the
 * optional parts of spec 2, and keep what the client reads.
 */
import { describe, expect, it } from "vitest";
import {
  Activity,
  ApiKey,
  EnabledVault,
  EthTransaction,
  Invitation,
  operations,
  Policy,
  SessionProfile,
  SmartContractInterface,
  User,
  WalletAccount,
  WebhookEndpoint,
} from "../../sdk/wire";

const ts = { seconds: "1732212345", nanos: "678000000" };
const ORG = "5f1d7a3e-4b0c-4d8e-9a61-0c2b7e9f1a42";

const apiKey = {
  credential: { publicKey: "02" + "ab".repeat(32), type: "CREDENTIAL_TYPE_API_KEY_P256" },
  apiKeyId: "k1",
  apiKeyName: "ci",
  createdAt: ts,
  updatedAt: ts,
  expirationSeconds: "3600",
};

describe("records", () => {
  it("an API key, with a login credential's session profile", () => {
    expect(ApiKey.parse(apiKey).expirationSeconds).toBe("3600");
    const login = { ...apiKey, credential: { ...apiKey.credential, type: "CREDENTIAL_TYPE_LOGIN", sessionProfileId: "sp1" } };
    expect(ApiKey.parse(login).credential.sessionProfileId).toBe("sp1");
    expect(ApiKey.safeParse({ ...apiKey, credential: { ...apiKey.credential, type: "CREDENTIAL_TYPE_PASSWORD" } }).success).toBe(false);
  });

  it("a user (v1User) with keys and tag ids, extra fields ignored", () => {
    const user = {
      userId: "u1", userName: "ada", userEmail: "ada@example.com", authenticators: [], apiKeys: [apiKey], userTags: ["t1"],
      oauthProviders: [], createdAt: ts, updatedAt: ts, mfaPolicies: [], someFutureField: { x: 1 },
    };
    const parsed = User.parse(user);
    expect(parsed.userTags).toEqual(["t1"]);
    expect(parsed).not.toHaveProperty("someFutureField");
    expect(User.safeParse({ ...user, apiKeys: undefined }).success).toBe(false);
  });

  it("a policy whose empty condition and consensus were left out reads them as empty", () => {
    const parsed = Policy.parse({ policyId: "p", policyName: "n", effect: "EFFECT_DENY", createdAt: ts, updatedAt: ts, notes: "why" });
    expect(parsed).toMatchObject({ condition: "", consensus: "", notes: "why" });
  });

  it("an invitation in the organization view uses receiverEmail", () => {
    const invitation = Invitation.parse({
      invitationId: "i", receiverUserName: "g", receiverEmail: "g@example.com", receiverUserTags: [], accessType: "ACCESS_TYPE_ALL",
      status: "INVITATION_STATUS_CREATED", createdAt: ts, updatedAt: ts, senderUserId: "u",
    });
    expect(invitation.receiverEmail).toBe("g@example.com");
  });

  it("a wallet account with walletDetails (spec 2.3)", () => {
    const account = {
      walletAccountId: "wa", organizationId: ORG, walletId: "w", curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32",
      path: "m/84'/0'/0'/0/0", addressFormat: "ADDRESS_FORMAT_BITCOIN_TESTNET_P2WPKH", address: "tb1qexample", createdAt: ts, updatedAt: ts,
      publicKey: "02" + "cd".repeat(32), name: "btc-0", caip2Prefix: "bip122",
      walletDetails: { walletId: "w", walletName: "Treasury", createdAt: ts, updatedAt: ts, exported: false, imported: true },
    };
    expect(WalletAccount.parse(account).walletDetails?.imported).toBe(true);
    expect(WalletAccount.safeParse({ ...account, walletDetails: { ...account.walletDetails, exported: undefined } }).success).toBe(false);
  });

  it("a webhook endpoint and a session profile", () => {
    expect(WebhookEndpoint.parse({ endpointId: "e", organizationId: ORG, url: "https://h.example", name: "n", isActive: true, subscriptions: [{ eventType: "BALANCE_CONFIRMED_UPDATES" }] }).subscriptions).toHaveLength(1);
    expect(SessionProfile.parse({ sessionProfileId: "s", sessionProfileName: "ro", scope: "read_only", createdAt: ts, updatedAt: ts }).notes).toBeUndefined();
  });

  it("a smart contract interface record takes the short or the wire type", () => {
    const record = { organizationId: ORG, smartContractInterfaceId: "sci", smartContractAddress: "0x1", smartContractInterface: "[]", label: "l", notes: "", createdAt: ts, updatedAt: ts };
    expect(SmartContractInterface.parse({ ...record, type: "ETHEREUM" }).type).toBe("ETHEREUM");
    expect(SmartContractInterface.parse({ ...record, type: "SMART_CONTRACT_INTERFACE_TYPE_SOLANA" }).type).toBe("SMART_CONTRACT_INTERFACE_TYPE_SOLANA");
  });

  it("an EVM transaction with transfers, fee, block and operator", () => {
    const tx = {
      transactionHash: "0x" + "ab".repeat(32),
      block: { number: "21000000", hash: "0x" + "cd".repeat(32), timestamp: "2025-11-21T19:43:00Z" },
      status: "FINALIZED",
      origin: "keyform",
      from: "0x1",
      fee: { amount: "21000000000000", caip19: "eip155:1/slip44:60" },
      transfers: [
        { direction: "OUT", amount: "1000000", counterparty: "0x2", asset: { caip19: "eip155:1/erc20:0xa0b8", symbol: "USDC", name: "USD Coin", decimals: 6 }, display: { usd: "1.00" } },
      ],
      operator: { sponsored: true, activityFingerprint: "sha256:00", submittedAt: "2025-11-21T19:42:58Z" },
    };
    const parsed = EthTransaction.parse(tx);
    expect(parsed.to).toBeUndefined();
    expect(parsed.operator?.sponsored).toBe(true);
    expect(EthTransaction.safeParse({ ...tx, transfers: [{ ...tx.transfers[0], direction: "SIDEWAYS" }] }).success).toBe(false);
    // The hosted service's branded key for the operator object reads as `operator`.
    const { operator, ...rest } = tx;
    expect(EthTransaction.parse({ ...rest, turnkey: operator }).operator).toEqual(operator);
  });

  it("an enabled vault is all optional", () => {
    expect(EnabledVault.parse({})).toEqual({});
    expect(EnabledVault.parse({ wrapperAddress: "0x4", provider: "EARN_PROVIDER_AAVE", depositsDisabled: false }).provider).toBe("EARN_PROVIDER_AAVE");
  });
});

describe("responses", () => {
  const activity = {
    id: "a", organizationId: ORG, status: "ACTIVITY_STATUS_COMPLETED", type: "ACTIVITY_TYPE_CREATE_POLICY_V3",
    intent: { createPolicyIntentV3: {} }, result: { createPolicyResult: { policyId: "p" } }, votes: [], fingerprint: "sha256:00",
    canApprove: false, canReject: false, createdAt: "1732212345678", updatedAt: "1732212345678",
  };

  it("activity timestamps are strings; the object form converts to the same milliseconds", () => {
    expect(Activity.parse(activity).createdAt).toBe("1732212345678");
    expect(Activity.parse({ ...activity, createdAt: ts, updatedAt: ts }).createdAt).toBe("1732212345678");
  });

  it("get_organization with every organizationData field optional", () => {
    expect(operations.getOrganization.response.parse({ organizationData: {} })).toEqual({ organizationData: {} });
    const data = operations.getOrganization.response.parse({
      organizationData: { organizationId: ORG, name: "acme", rootQuorum: { threshold: 1, userIds: ["u"] }, features: [{ name: "FEATURE_NAME_WEBAUTHN_ORIGINS", value: "x" }], tags: [{ tagId: "t", tagName: "ops", tagType: "TAG_TYPE_USER", createdAt: ts, updatedAt: ts }] },
    });
    expect(data.organizationData.rootQuorum?.threshold).toBe(1);
  });

  it("whoami uses the lowercase username", () => {
    expect(operations.whoami.response.parse({ organizationId: ORG, organizationName: "acme", userId: "u", username: "ada" }).username).toBe("ada");
  });

  it("signup_v2 response with wallet and app proofs", () => {
    const parsed = operations.signupV2.response.parse({
      organizationId: ORG, userId: "u", wallet: { walletId: "w", addresses: ["0x1"] },
      appProofs: [{ scheme: "SIGNATURE_SCHEME_EPHEMERAL_KEY_P256", publicKey: "04ab", proofPayload: "{}", signature: "30" }],
    });
    expect(parsed.wallet?.addresses).toEqual(["0x1"]);
  });

  it("activity results of the spec's activities", () => {
    expect(operations.earnSetWrapperState.result.parse({ wrapperAddress: "0x4", depositsDisabled: true })).toEqual({ wrapperAddress: "0x4", depositsDisabled: true });
    expect(operations.removeIpAllowlist.result.parse({})).toEqual({});
    expect(operations.otpAuth.result.parse({ userId: "u" })).toEqual({ userId: "u" });
    expect(operations.createPrivateKeys.result.parse({ privateKeys: [{ privateKeyId: "k", addresses: [{ format: "ADDRESS_FORMAT_ETHEREUM", address: "0x1" }] }] }).privateKeys).toHaveLength(1);
    expect(operations.getEarnWithdrawStatus.response.safeParse({ status: "DONE" }).success).toBe(false);
  });
});
