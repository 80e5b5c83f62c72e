/**
 * Rejections: wrong enum values, missing required fields and the rules the spec states, each
 * reported by `describeZodError` under the offending field's dotted path.
 */
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { ADDRESS_FORMATS, describeZodError, operations } from "../../sdk/wire";

const ORG = "5f1d7a3e-4b0c-4d8e-9a61-0c2b7e9f1a42";
const KEY = "02" + "ab".repeat(32);

/** Parses, expects failure, and returns the one-line description. */
function failure(schema: z.ZodType, value: unknown, root?: string): string {
  const result = schema.safeParse(value);
  expect(result.success).toBe(false);
  return describeZodError(result.error!, root);
}

function envelope(type: string, parameters: unknown) {
  return { type, timestampMs: "1732212345678", organizationId: ORG, parameters };
}

const apiKey = { apiKeyName: "ci", publicKey: KEY, curveType: "API_KEY_CURVE_P256" };
const account = { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" };

describe("wrong enum values", () => {
  it("names the API key curve by its full path in the envelope", () => {
    const message = failure(
      operations.createApiKeys.request,
      envelope("ACTIVITY_TYPE_CREATE_API_KEYS_V2", { apiKeys: [apiKey, { ...apiKey, curveType: "P256" }], userId: "u" }),
    );
    expect(message).toMatch(/^parameters\.apiKeys\.1\.curveType: Invalid option: expected one of "API_KEY_CURVE_P256"/);
  });

  it.each([
    ["createPolicy", { policyName: "p", effect: "ALLOW", notes: "" }, "effect"],
    ["createInvitations", { invitations: [{ receiverUserName: "g", receiverUserEmail: "g@example.com", receiverUserTags: [], accessType: "WEB", senderUserId: "u" }] }, "invitations.0.accessType"],
    ["earnWithdraw", { wrapperAddress: "0x1", signWith: "0x2", chainCaip2: "eip155:11155111", amountValue: "1" }, "chainCaip2"],
    ["createSmartContractInterface", { smartContractAddress: "0x1", smartContractInterface: "[]", type: "ETHEREUM", label: "l" }, "type"],
    ["createWallet", { walletName: "w", accounts: [{ ...account, curve: "CURVE_SECP256R1" }] }, "accounts.0.curve"],
    ["createWallet", { walletName: "w", accounts: [{ ...account, pathFormat: "PATH_FORMAT_SLIP10" }] }, "accounts.0.pathFormat"],
    ["updatePolicy", { policyId: "p", policyEffect: "EFFECT_MAYBE" }, "policyEffect"],
    ["listActivities", { organizationId: ORG, filterByStatus: ["DONE"] }, "filterByStatus.0"],
  ] as const)("%s rejects %j at %s", (name, value, path) => {
    const def = operations[name];
    const schema = def.kind === "activity" ? def.parameters : def.request;
    const root = def.kind === "activity" ? "parameters" : undefined;
    expect(failure(schema, value, root)).toMatch(new RegExp(`^${(root ? `${root}.` : "") + path.replace(/\./g, "\\.")}: `));
  });

  it("knows all 38 address formats, the 20 Bitcoin ones included, and words the rejection briefly", () => {
    expect(ADDRESS_FORMATS).toHaveLength(38);
    for (const addressFormat of ADDRESS_FORMATS) {
      expect(operations.createWallet.parameters.safeParse({ walletName: "w", accounts: [{ ...account, addressFormat }] }).success).toBe(true);
    }
    const message = failure(operations.createWallet.parameters, { walletName: "w", accounts: [{ ...account, addressFormat: "ADDRESS_FORMAT_BITCOIN_MAINNET_P2PK" }] }, "parameters");
    expect(message).toBe(
      "parameters.accounts.0.addressFormat: must be an address format of spec 2.9, such as ADDRESS_FORMAT_ETHEREUM or ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH",
    );
  });

  it("rejects a transport outside spec 2.11 in a sign-up authenticator", () => {
    const body = {
      apiKeys: [],
      oauthProviders: [],
      authenticators: [{ authenticatorName: "pk", challenge: "c", attestation: { credentialId: "i", clientDataJson: "j", attestationObject: "o", transports: ["AUTHENTICATOR_TRANSPORT_WIFI"] } }],
    };
    expect(failure(operations.signupV2.request, body)).toMatch(/^authenticators\.0\.attestation\.transports\.0: Invalid option/);
  });

  it("rejects a history chain outside the spec's list", () => {
    expect(failure(operations.listEthTransactionHistory.request, { organizationId: ORG, address: "0x1", caip2: "eip155:10" })).toMatch(/^caip2: /);
  });
});

describe("missing required fields", () => {
  it("says which field is required", () => {
    expect(failure(operations.createApiKeys.parameters, { apiKeys: [apiKey] }, "parameters")).toBe(
      "parameters.userId: is required (expected string, received undefined)",
    );
  });

  it.each([
    ["signupV2", { apiKeys: [], authenticators: [] }, "oauthProviders"],
    ["otpLoginV2", { verificationToken: "t", publicKey: KEY }, "clientSignature"],
    ["getSessionProfile", { organizationId: ORG }, "sessionProfileId"],
    ["listWalletAccounts", {}, "organizationId"],
    ["createPolicy", { policyName: "p", effect: "EFFECT_ALLOW" }, "notes"],
    ["otpAuth", { otpId: "o", targetPublicKey: KEY }, "otpCode"],
    ["earnSetWrapperState", { wrapperAddress: "0x1" }, "depositsDisabled"],
    ["exportWalletAccount", { targetPublicKey: KEY }, "address"],
    ["createInvitations", { invitations: [{ receiverUserName: "g", receiverUserEmail: "g@example.com", accessType: "ACCESS_TYPE_API", senderUserId: "u" }] }, "invitations.0.receiverUserTags"],
    ["updateUserTag", { userTagId: "t", addUserIds: [] }, "removeUserIds"],
  ] as const)("%s without %s fails there", (name, value, path) => {
    const def = operations[name];
    const schema = def.kind === "activity" ? def.parameters : def.request;
    expect(describeZodError(schema.safeParse(value).error!)).toContain(`${path}: `);
  });

  it("rejects an empty identifier", () => {
    expect(failure(operations.deleteInvitation.parameters, { invitationId: "" }, "parameters")).toBe("parameters.invitationId: must not be empty");
  });

  it("rejects an envelope without timestampMs or organizationId", () => {
    const message = failure(operations.deleteInvitation.request, { type: "ACTIVITY_TYPE_DELETE_INVITATION", parameters: { invitationId: "i" } });
    expect(message).toContain("timestampMs: is required");
    expect(message).toContain("organizationId: is required");
  });
});

describe("rules the spec states", () => {
  it("phone numbers are E.164", () => {
    expect(failure(operations.updateUser.parameters, { userId: "u", userPhoneNumber: "(415) 555-0123" }, "parameters")).toBe(
      "parameters.userPhoneNumber: must be an E.164 phone number such as +14155550123",
    );
    expect(operations.updateUser.parameters.safeParse({ userId: "u", userPhoneNumber: "+14155550123" }).success).toBe(true);
  });

  it.each([12, 15, 18, 21, 24])("mnemonicLength %i is accepted", (mnemonicLength) => {
    expect(operations.createWallet.parameters.safeParse({ walletName: "w", accounts: [], mnemonicLength }).success).toBe(true);
  });

  it.each([11, 13, 16, 25, 12.5])("mnemonicLength %s is rejected", (mnemonicLength) => {
    const message = failure(operations.signupV2.request, { apiKeys: [], authenticators: [], oauthProviders: [], wallet: { walletName: "w", accounts: [], mnemonicLength } });
    expect(message).toMatch(/^wallet\.mnemonicLength: /);
  });

  it("paginationOptions.limit is 1 to 100", () => {
    const request = (limit: string) => ({ organizationId: ORG, paginationOptions: { limit } });
    expect(operations.listWalletAccounts.request.safeParse(request("1")).success).toBe(true);
    expect(operations.listWalletAccounts.request.safeParse(request("100")).success).toBe(true);
    expect(failure(operations.listWalletAccounts.request, request("101"))).toBe("paginationOptions.limit: must be between 1 and 100");
    expect(failure(operations.listWalletAccounts.request, request("0"))).toBe("paginationOptions.limit: must be between 1 and 100");
    expect(failure(operations.listActivities.request, request("ten"))).toMatch(/^paginationOptions\.limit: must be a string of decimal digits/);
  });

  it("amountValue is raw units or MAX", () => {
    const withdraw = (amountValue: string) => ({ wrapperAddress: "0x1", signWith: "0x2", chainCaip2: "eip155:1", amountValue });
    expect(operations.earnWithdraw.parameters.safeParse(withdraw("1000000")).success).toBe(true);
    expect(operations.earnWithdraw.parameters.safeParse(withdraw("MAX")).success).toBe(true);
    for (const bad of ["1.5", "max", "-1", "", "1e6"]) {
      expect(failure(operations.earnWithdraw.parameters, withdraw(bad), "parameters")).toBe(
        "parameters.amountValue: must be a string of decimal digits (raw on-chain units) or MAX",
      );
    }
  });

  it("64-bit integers are decimal strings that fit", () => {
    const key = (expirationSeconds: unknown) => ({ apiKeys: [{ ...apiKey, expirationSeconds }], userId: "u" });
    expect(operations.createApiKeys.parameters.safeParse(key("18446744073709551615")).success).toBe(true);
    expect(failure(operations.createApiKeys.parameters, key("18446744073709551616"), "parameters")).toBe(
      "parameters.apiKeys.0.expirationSeconds: must fit in an unsigned 64-bit integer",
    );
    expect(failure(operations.createApiKeys.parameters, key("3600s"), "parameters")).toMatch(/^parameters\.apiKeys\.0\.expirationSeconds: must be a string of decimal digits/);
    expect(failure(operations.createApiKeys.parameters, key(3600), "parameters")).toMatch(/^parameters\.apiKeys\.0\.expirationSeconds: /);
    expect(failure(operations.deleteInvitation.request, { ...envelope("ACTIVITY_TYPE_DELETE_INVITATION", { invitationId: "i" }), timestampMs: 1732212345678 })).toMatch(/^timestampMs: /);
  });

  it("a smart contract interface is JSON text", () => {
    const create = (smartContractInterface: string) => ({ smartContractAddress: "0x1", smartContractInterface, type: "SMART_CONTRACT_INTERFACE_TYPE_SOLANA", label: "prog" });
    expect(operations.createSmartContractInterface.parameters.safeParse(create('{"version":"0.1.0","instructions":[]}')).success).toBe(true);
    expect(failure(operations.createSmartContractInterface.parameters, create("function transfer(address,uint256)"), "parameters")).toBe(
      "parameters.smartContractInterface: must be valid JSON text",
    );
    expect(failure(operations.createSmartContractInterface.parameters, create(JSON.stringify("x".repeat(400 * 1024))), "parameters")).toBe(
      "parameters.smartContractInterface: must be at most 400 KB of JSON text",
    );
  });

  it("clientFeeBps is at most 10000 and may be given as a number", () => {
    const deploy = (clientFeeBps: unknown) => ({ vaultAddress: "0x1", chainCaip2: "eip155:1", clientFeeBps, clientFeeWallet: "0x2" });
    expect(operations.earnDeployWrapper.parameters.parse(deploy(25)).clientFeeBps).toBe("25");
    expect(failure(operations.earnDeployWrapper.parameters, deploy("10001"), "parameters")).toBe("parameters.clientFeeBps: must be at most 10000 basis points");
  });

  it("a webhook URL is absolute http(s)", () => {
    expect(failure(operations.createWebhookEndpoint.parameters, { url: "hooks.example.com", name: "n" }, "parameters")).toBe(
      "parameters.url: must be an absolute http or https URL",
    );
    expect(failure(operations.createWebhookEndpoint.parameters, { url: "https://h.example", name: "n", subscriptions: [{ eventType: "ACTIVITY_UPDATES", filtersJson: "{" }] }, "parameters")).toBe(
      "parameters.subscriptions.0.filtersJson: must be valid JSON text",
    );
  });
});
