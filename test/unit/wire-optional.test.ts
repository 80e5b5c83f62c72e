/**
 * Optional fields as real clients send them (docs/service-facts.md#2-request-and-response-envelope): `null` means absent everywhere,
 * `""` means absent for non-strings and optional identifiers, and a string's "" stays a value.
 */
import { describe, expect, it } from "vitest";
import { describeZodError, operations, opt, optId } from "../../sdk/wire";
import { z } from "zod";

const ORG = "5f1d7a3e-4b0c-4d8e-9a61-0c2b7e9f1a42";

describe("opt()", () => {
  it("reads null and absent as undefined for every type", () => {
    for (const schema of [opt(z.string()), opt(z.boolean()), opt(z.number()), opt(z.array(z.string())), opt(z.object({ a: z.string() }))]) {
      expect(schema.parse(null)).toBeUndefined();
      expect(schema.parse(undefined)).toBeUndefined();
    }
  });

  it('reads "" as undefined for non-strings but keeps it for strings', () => {
    expect(opt(z.boolean()).parse("")).toBeUndefined();
    expect(opt(z.object({ a: z.string() })).parse("")).toBeUndefined();
    expect(opt(z.string()).parse("")).toBe("");
    expect(optId().parse("")).toBeUndefined();
  });

  it("still validates a value that is given", () => {
    expect(opt(z.boolean()).safeParse("yes").success).toBe(false);
    expect(opt(z.boolean()).parse(false)).toBe(false);
  });
});

describe("null and empty optional fields in requests", () => {
  it("an activity envelope with generateAppProofs null, as the Rust CLI sends it", () => {
    const body = { type: "ACTIVITY_TYPE_DELETE_INVITATION", timestampMs: "1732212345678", organizationId: ORG, parameters: { invitationId: "i" }, generateAppProofs: null };
    expect(operations.deleteInvitation.request.parse(body).generateAppProofs).toBeUndefined();
  });

  it('pagination with before: "" and limit: null', () => {
    const parsed = operations.listActivities.request.parse({ organizationId: ORG, paginationOptions: { limit: null, before: "", after: null }, filterByStatus: null, filterByType: "" });
    expect(JSON.parse(JSON.stringify(parsed))).toEqual({ organizationId: ORG, paginationOptions: {} });
  });

  it('paginationOptions null or "" is absent', () => {
    const accounts = operations.listWalletAccounts.request.parse({ organizationId: ORG, paginationOptions: null, includeWalletDetails: "", walletId: "" });
    expect([accounts.paginationOptions, accounts.includeWalletDetails, accounts.walletId]).toEqual([undefined, undefined, undefined]);
    const history = operations.listEthTransactionHistory.request.parse({ organizationId: ORG, address: "0x1", caip2: "eip155:1", paginationOptions: "" });
    expect(history.paginationOptions).toBeUndefined();
  });

  it.each([
    ["createPolicy", { policyName: "p", effect: "EFFECT_ALLOW", notes: "", condition: null, consensus: null, time: null }],
    ["updateUser", { userId: "u", userName: null, userEmail: null, userTagIds: null, userPhoneNumber: null }],
    ["updateUser", { userId: "u", userTagIds: "" }],
    ["otpAuth", { otpId: "o", otpCode: "1", targetPublicKey: "k", apiKeyName: null, expirationSeconds: null, invalidateExisting: "" }],
    ["createApiKeys", { apiKeys: [{ apiKeyName: "a", publicKey: "k", curveType: "API_KEY_CURVE_P256", expirationSeconds: null }], userId: "u" }],
    ["deletePrivateKeys", { privateKeyIds: ["k"], deleteWithoutExport: null }],
    ["earnWithdraw", { wrapperAddress: "w", signWith: "s", chainCaip2: "eip155:1", amountValue: "MAX", sponsor: "" }],
    ["removeIpAllowlist", { publicKey: null }],
    ["updatePolicy", { policyId: "p", policyName: null, policyEffect: "", policyCondition: null, policyConsensus: null, policyNotes: null }],
    ["createWallet", { walletName: "w", accounts: [], mnemonicLength: "" }],
    ["createWebhookEndpoint", { url: "https://h.example", name: "n", subscriptions: null }],
    ["createSmartContractInterface", { smartContractAddress: "0x1", smartContractInterface: "[]", type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM", label: "l", notes: null }],
  ] as const)("%s accepts %j", (name, parameters) => {
    const result = operations[name].parameters.safeParse(parameters);
    expect(result.success, result.success ? "" : describeZodError(result.error)).toBe(true);
    for (const [key, value] of Object.entries(parameters)) {
      if (value === null || (value === "" && typeof (result.data as Record<string, unknown>)[key] !== "string")) {
        expect((result.data as Record<string, unknown>)[key]).toBeUndefined();
      }
    }
  });

  it("signup_v2 with every optional field null", () => {
    const body = {
      userEmail: null, userPhoneNumber: null, userTag: null, userName: null, organizationName: null, verificationToken: null,
      apiKeys: [], authenticators: [], oauthProviders: [{ providerName: "google", oidcToken: null, oidcClaims: null }],
      wallet: null, clientSignature: null,
    };
    expect(JSON.parse(JSON.stringify(operations.signupV2.request.parse(body)))).toEqual({ apiKeys: [], authenticators: [], oauthProviders: [{ providerName: "google" }] });
  });

  it("otp_login_v2 with organizationId \"\" and invalidateExisting null", () => {
    const body = {
      verificationToken: "t",
      publicKey: "k",
      clientSignature: { publicKey: "k", scheme: "CLIENT_SIGNATURE_SCHEME_API_P256", message: "m", signature: "s" },
      invalidateExisting: null,
      organizationId: "",
    };
    const parsed = operations.otpLoginV2.request.parse(body);
    expect(parsed.organizationId).toBeUndefined();
    expect(parsed.invalidateExisting).toBeUndefined();
    // Absent values vanish when the parsed request is echoed as JSON (the activity intent).
    expect(JSON.parse(JSON.stringify(parsed))).toEqual({ verificationToken: "t", publicKey: "k", clientSignature: body.clientSignature });
  });

  it('remove_ip_allowlist rejects publicKey "" rather than widening to the whole organization', () => {
    const result = operations.removeIpAllowlist.parameters.safeParse({ publicKey: "" });
    expect(result.success).toBe(false);
    expect(describeZodError(result.error!, "parameters")).toBe("parameters.publicKey: must not be empty");
  });

  it("required fields stay required when null", () => {
    const result = operations.earnSetWrapperState.parameters.safeParse({ wrapperAddress: "w", depositsDisabled: null });
    expect(result.success).toBe(false);
    expect(describeZodError(result.error!, "parameters")).toMatch(/^parameters\.depositsDisabled: /);
  });
});
