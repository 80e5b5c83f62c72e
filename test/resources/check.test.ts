/**
 * `check` of every resource: valid inputs pass and are kept as declared, bad inputs fail naming the
 * property, and values unknown during preview never fail.
 */
import { describe, expect, it } from "vitest";
import { handlers } from "../../sdk/resources/runtime";
import { UNKNOWN } from "../../sdk/resources/runtime/values";

const ETH = "0x1111111111111111111111111111111111111111";
const P256_PUB = "02" + "ab".repeat(32);
const ABI = [{ type: "function", name: "transfer", inputs: [{ name: "to", type: "address" }, { name: "value", type: "uint256" }] }];

async function check(kind: string, news: Record<string, unknown>) {
  return handlers[kind]!.check({}, news);
}

describe("check: valid inputs pass and are kept as declared", () => {
  // Each case: the declared inputs, and outputs of the same object as the service reports it
  // (defaults filled in, sets sorted, documents canonical). State keeps the inputs as declared:
  // no default or canonical form is echoed into it, and diff still finds nothing to change.
  it.each([
    ["UserTag", { userTagName: "ops", userIds: ["u2", "u1", "u2"] }, { userTagName: "ops", userIds: ["u1", "u2"] }],
    ["Policy", { policyName: "p", effect: "EFFECT_ALLOW" }, { policyName: "p", effect: "EFFECT_ALLOW" }],
    ["ApiKey", { userId: "u", apiKeyName: "k", expirationSeconds: 3600 }, { userId: "u", apiKeyName: "k", curveType: "API_KEY_CURVE_P256", expirationSeconds: "3600", publicKey: P256_PUB, privateKey: "cd".repeat(32) }],
    [
      "Invitation",
      { receiverUserName: "A", receiverUserEmail: "a@example.com", accessType: "ACCESS_TYPE_WEB", senderUserId: "u" },
      { receiverUserName: "A", receiverUserEmail: "a@example.com", receiverUserTags: [], accessType: "ACCESS_TYPE_WEB", senderUserId: "u" },
    ],
    [
      "SmartContractInterface",
      { smartContractAddress: ETH, smartContractInterface: ABI, type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM", label: "l" },
      {
        smartContractAddress: ETH,
        smartContractInterface: '[{"inputs":[{"name":"to","type":"address"},{"name":"value","type":"uint256"}],"name":"transfer","type":"function"}]',
        type: "ETHEREUM",
        label: "l",
      },
    ],
    ["EarnWrapperState", { wrapperAddress: ETH, depositsDisabled: true }, { wrapperAddress: ETH, depositsDisabled: true }],
  ])("%s", async (kind, news, outputs) => {
    const result = await check(kind, { ...news, __provider: "code" });
    expect(result.failures).toEqual([]);
    expect(result.inputs).toEqual({ ...news, __provider: "code" });
    const diff = await handlers[kind]!.diff("id-1", { ...outputs, organizationId: "org-1" }, { ...result.inputs, organizationId: "org-1" });
    expect(diff.changes, JSON.stringify(diff.diffs)).toBe(false);
  });
});

describe("check: bad inputs fail on the named property", () => {
  it.each([
    ["Policy", "wrong enum", { policyName: "p", effect: "EFFECT_MAYBE" }, "effect"],
    ["Policy", "missing required", { effect: "EFFECT_DENY" }, "policyName"],
    ["UserTag", "empty name", { userTagName: "", userIds: [] }, "userTagName"],
    ["UserTag", "empty member id", { userTagName: "t", userIds: [""] }, "userIds"],
    ["ApiKey", "wrong curve", { userId: "u", apiKeyName: "k", curveType: "API_KEY_CURVE_RSA" }, "curveType"],
    ["ApiKey", "missing userId", { apiKeyName: "k" }, "userId"],
    ["ApiKey", "malformed public key", { userId: "u", apiKeyName: "k", publicKey: "04abcd" }, "publicKey"],
    ["ApiKey", "ed25519 key on P-256", { userId: "u", apiKeyName: "k", publicKey: "ab".repeat(32) }, "publicKey"],
    ["ApiKey", "expiration not digits", { userId: "u", apiKeyName: "k", expirationSeconds: "1h" }, "expirationSeconds"],
    ["Invitation", "wrong access type", { receiverUserName: "A", receiverUserEmail: "a@example.com", accessType: "ACCESS_TYPE_SSH", senderUserId: "u" }, "accessType"],
    ["Invitation", "malformed email", { receiverUserName: "A", receiverUserEmail: "not-an-email", accessType: "ACCESS_TYPE_WEB", senderUserId: "u" }, "receiverUserEmail"],
    ["Invitation", "missing sender", { receiverUserName: "A", receiverUserEmail: "a@example.com", accessType: "ACCESS_TYPE_WEB" }, "senderUserId"],
    ["SmartContractInterface", "malformed address", { smartContractAddress: "0x1234", smartContractInterface: ABI, type: "ETHEREUM", label: "l" }, "smartContractAddress"],
    ["SmartContractInterface", "Solana address check", { smartContractAddress: "0OIl", smartContractInterface: "{}", type: "SOLANA", label: "l" }, "smartContractAddress"],
    ["SmartContractInterface", "wrong type", { smartContractAddress: ETH, smartContractInterface: ABI, type: "BITCOIN", label: "l" }, "type"],
    ["SmartContractInterface", "ABI not JSON", { smartContractAddress: ETH, smartContractInterface: "[{", type: "ETHEREUM", label: "l" }, "smartContractInterface"],
    ["SmartContractInterface", "missing label", { smartContractAddress: ETH, smartContractInterface: ABI, type: "ETHEREUM" }, "label"],
    ["EarnWrapperState", "malformed address", { wrapperAddress: "wrapper-1", depositsDisabled: true }, "wrapperAddress"],
    ["EarnWrapperState", "flag not boolean", { wrapperAddress: ETH, depositsDisabled: "yes" }, "depositsDisabled"],
    ["Policy", "empty organizationId", { policyName: "p", effect: "EFFECT_ALLOW", organizationId: "" }, "organizationId"],
  ])("%s: %s", async (kind, _case, news, property) => {
    const { failures } = await check(kind, news);
    expect(failures?.map((f) => f.property)).toContain(property);
    const failure = failures!.find((f) => f.property === property)!;
    // The engine prints "property <name> value {…} has a problem: <reason>".
    expect(failure.reason.length).toBeGreaterThan(5);
    expect(failure.reason).not.toMatch(new RegExp(`^${property}:`));
  });

  it("reports every bad property at once", async () => {
    const { failures } = await check("Invitation", { receiverUserEmail: "nope", accessType: "X" });
    expect(failures!.map((f) => f.property).sort()).toEqual(["accessType", "receiverUserEmail", "receiverUserName", "senderUserId"]);
  });
});

describe("check: unknown values during preview never fail", () => {
  it.each([
    ["UserTag", { userTagName: UNKNOWN, userIds: [UNKNOWN, "u1"] }],
    ["UserTag", { userTagName: "t", userIds: UNKNOWN }],
    ["Policy", { policyName: "p", effect: UNKNOWN, consensus: UNKNOWN }],
    ["ApiKey", { userId: UNKNOWN, apiKeyName: "k", publicKey: UNKNOWN, curveType: UNKNOWN }],
    ["Invitation", { receiverUserName: "A", receiverUserEmail: UNKNOWN, receiverUserTags: [UNKNOWN], accessType: "ACCESS_TYPE_ALL", senderUserId: UNKNOWN }],
    ["SmartContractInterface", { smartContractAddress: UNKNOWN, smartContractInterface: { abi: UNKNOWN }, type: "ETHEREUM", label: UNKNOWN }],
    ["EarnWrapperState", { wrapperAddress: UNKNOWN, depositsDisabled: UNKNOWN }],
  ])("%s", async (kind, news) => {
    const result = await check(kind, news);
    expect(result.failures).toEqual([]);
    // Unknown values pass through untouched, to be checked again when known.
    for (const [key, value] of Object.entries(news)) expect((result.inputs as Record<string, unknown>)[key]).toEqual(value);
  });
});
