/**
 * `diff` of every resource: `olds` are the previous outputs, `news` the checked inputs. In-place
 * updates where the service has one, replacement where it has none, nothing for changes that
 * carry no meaning (order of a set, formatting of an ABI, case of an address).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { handlers } from "../../sdk/resources/runtime";
import { UNKNOWN } from "../../sdk/resources/runtime/values";

const ORG = "org-1";
const ETH = "0xAbCdEf0000000000000000000000000000000001";
const ABI_TEXT = '[{"inputs":[],"name":"totalSupply","outputs":[{"name":"","type":"uint256"}],"type":"function"}]';

const tag = { userTagId: "t1", userTagName: "ops", userIds: ["u1", "u2"], organizationId: ORG };
const policy = { policyId: "p1", policyName: "p", effect: "EFFECT_ALLOW", condition: "", consensus: "", notes: "", organizationId: ORG };
const generatedKey = { apiKeyId: "k1", apiKeyName: "ci", publicKey: "02" + "aa".repeat(32), privateKey: "11".repeat(32), userId: "u1", curveType: "API_KEY_CURVE_P256", organizationId: ORG };
const declaredKey = { ...generatedKey, privateKey: undefined };
const invitation = { invitationId: "i1", status: "INVITATION_STATUS_CREATED", receiverUserName: "A", receiverUserEmail: "a@example.com", receiverUserTags: ["t1", "t2"], accessType: "ACCESS_TYPE_WEB", senderUserId: "u1", organizationId: ORG };
const sci = { smartContractInterfaceId: "s1", smartContractAddress: ETH, smartContractInterface: ABI_TEXT, type: "ETHEREUM", label: "token", notes: "", organizationId: ORG };
const earn = { wrapperAddress: ETH, depositsDisabled: false, organizationId: ORG };

async function diff(kind: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
  // Like the engine: news went through check first.
  const checked = await handlers[kind]!.check(olds, news);
  return handlers[kind]!.diff("id", olds, checked.inputs as Record<string, unknown>);
}

function inputsOf(outputs: Record<string, unknown>, drop: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(outputs).filter(([k, v]) => !drop.includes(k) && k !== "organizationId" && v !== undefined));
}

let savedOrg: string | undefined;
beforeEach(() => {
  savedOrg = process.env.KEYFORM_ORGANIZATION_ID;
  process.env.KEYFORM_ORGANIZATION_ID = ORG;
});
afterEach(() => {
  if (savedOrg === undefined) delete process.env.KEYFORM_ORGANIZATION_ID;
  else process.env.KEYFORM_ORGANIZATION_ID = savedOrg;
});

type Row = [kind: string, what: string, olds: Record<string, unknown>, news: Record<string, unknown>, changes: boolean, replaces: string[]];

const tagIn = inputsOf(tag, ["userTagId"]);
const policyIn = inputsOf(policy, ["policyId"]);
const keyIn = inputsOf(generatedKey, ["apiKeyId", "publicKey", "privateKey"]);
const invIn = inputsOf(invitation, ["invitationId", "status"]);
const sciIn = inputsOf(sci, ["smartContractInterfaceId"]);
const earnIn = inputsOf(earn, []);

const rows: Row[] = [
  ["UserTag", "same inputs", tag, tagIn, false, []],
  ["UserTag", "members in another order, repeated", tag, { ...tagIn, userIds: ["u2", "u1", "u1"] }, false, []],
  ["UserTag", "rename is in place", tag, { ...tagIn, userTagName: "ops2" }, true, []],
  ["UserTag", "membership is in place", tag, { ...tagIn, userIds: ["u1"] }, true, []],
  ["UserTag", "unknown members is an update", tag, { ...tagIn, userIds: [UNKNOWN] }, true, []],
  ["UserTag", "importId alone changes nothing", tag, { ...tagIn, importId: "t1" }, false, []],
  // Checked again at up, with the value known, before any step runs.
  ["UserTag", "unknown organization is no replace", tag, { ...tagIn, organizationId: UNKNOWN }, false, []],
  ["Policy", "same inputs", policy, policyIn, false, []],
  ["Policy", "unset condition equals empty", policy, { policyName: "p", effect: "EFFECT_ALLOW" }, false, []],
  ["Policy", "effect is in place", policy, { ...policyIn, effect: "EFFECT_DENY" }, true, []],
  ["Policy", "condition is in place", policy, { ...policyIn, condition: "activity.action == 'SIGN'" }, true, []],
  ["Policy", "notes and name in place", policy, { ...policyIn, notes: "n", policyName: "q" }, true, []],
  ["ApiKey", "same inputs, generated key kept", generatedKey, keyIn, false, []],
  ["ApiKey", "name replaces", generatedKey, { ...keyIn, apiKeyName: "ci2" }, true, ["apiKeyName"]],
  ["ApiKey", "curve replaces", generatedKey, { ...keyIn, curveType: "API_KEY_CURVE_ED25519" }, true, ["curveType"]],
  ["ApiKey", "expiration replaces", generatedKey, { ...keyIn, expirationSeconds: 60 }, true, ["expirationSeconds"]],
  ["ApiKey", "declared key kept", declaredKey, { ...keyIn, publicKey: declaredKey.publicKey }, false, []],
  ["ApiKey", "declared key, other case", declaredKey, { ...keyIn, publicKey: declaredKey.publicKey.toUpperCase() }, false, []],
  ["ApiKey", "declared key dropped: generate one", declaredKey, keyIn, true, ["publicKey"]],
  ["ApiKey", "new declared key replaces", generatedKey, { ...keyIn, publicKey: "03" + "bb".repeat(32) }, true, ["publicKey"]],
  ["ApiKey", "unknown user replaces", generatedKey, { ...keyIn, userId: UNKNOWN }, true, ["userId"]],
  ["Invitation", "same inputs", invitation, invIn, false, []],
  ["Invitation", "tags in another order", invitation, { ...invIn, receiverUserTags: ["t2", "t1"] }, false, []],
  ["Invitation", "email replaces", invitation, { ...invIn, receiverUserEmail: "b@example.com" }, true, ["receiverUserEmail"]],
  ["Invitation", "access type replaces", invitation, { ...invIn, accessType: "ACCESS_TYPE_ALL" }, true, ["accessType"]],
  ["SmartContractInterface", "same inputs", sci, sciIn, false, []],
  ["SmartContractInterface", "ABI as an object", sci, { ...sciIn, smartContractInterface: JSON.parse(ABI_TEXT) }, false, []],
  [
    "SmartContractInterface",
    "ABI text with other whitespace and key order",
    sci,
    { ...sciIn, smartContractInterface: '[ {\n  "type": "function", "name": "totalSupply",\n  "outputs": [ { "type": "uint256", "name": "" } ], "inputs": [] } ]' },
    false,
    [],
  ],
  ["SmartContractInterface", "address in other case", sci, { ...sciIn, smartContractAddress: ETH.toLowerCase() }, false, []],
  ["SmartContractInterface", "wire form of type", sci, { ...sciIn, type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM" }, false, []],
  ["SmartContractInterface", "another ABI replaces", sci, { ...sciIn, smartContractInterface: "[]" }, true, ["smartContractInterface"]],
  ["SmartContractInterface", "label replaces", sci, { ...sciIn, label: "other" }, true, ["label"]],
  ["EarnWrapperState", "same inputs", earn, earnIn, false, []],
  ["EarnWrapperState", "flag is in place", earn, { ...earnIn, depositsDisabled: true }, true, []],
  ["EarnWrapperState", "address in other case", earn, { ...earnIn, wrapperAddress: ETH.toLowerCase() }, false, []],
  ["EarnWrapperState", "another wrapper replaces", earn, { ...earnIn, wrapperAddress: "0x" + "22".repeat(20) }, true, ["wrapperAddress"]],
];

describe("diff", () => {
  it.each(rows)("%s: %s", async (kind, _what, olds, news, changes, replaces) => {
    const result = await diff(kind, olds, news);
    expect(result.changes).toBe(changes);
    expect([...(result.replaces ?? [])].sort()).toEqual([...replaces].sort());
  });

  it("an organization setting that moved fails the plan, naming both organizations: never a replace", async () => {
    process.env.KEYFORM_ORGANIZATION_ID = "org-2";
    await expect(diff("UserTag", tag, tagIn)).rejects.toThrow(
      /^UserTag id: lives in organization org-1 \(recorded in state\), but the setting keyform:organizationId \(KEYFORM_ORGANIZATION_ID\) now says org-2\. keyform never replaces or deletes/,
    );
  });

  it("another organizationId argument fails the plan the same way, naming the argument", async () => {
    for (const kind of ["UserTag", "ApiKey"]) {
      const olds = kind === "UserTag" ? tag : generatedKey;
      const news = kind === "UserTag" ? tagIn : keyIn;
      await expect(diff(kind, olds, { ...news, organizationId: "org-2" })).rejects.toThrow(/its organizationId argument now says org-2\. .* If that is a mistake, set organizationId back to "org-1"\./);
    }
  });

  it("without any organization setting, an unset organizationId is no change", async () => {
    delete process.env.KEYFORM_ORGANIZATION_ID;
    expect((await diff("Policy", policy, policyIn)).changes).toBe(false);
  });

  it("ApiKey replacements that keep the name or the public key delete the old key first", async () => {
    expect((await diff("ApiKey", generatedKey, { ...keyIn, curveType: "API_KEY_CURVE_SECP256K1" })).deleteBeforeReplace).toBe(true);
    expect((await diff("ApiKey", declaredKey, { ...keyIn, apiKeyName: "new", publicKey: declaredKey.publicKey })).deleteBeforeReplace).toBe(true);
    expect((await diff("ApiKey", generatedKey, { ...keyIn, apiKeyName: "new" })).deleteBeforeReplace).toBe(false);
  });

  it("SmartContractInterface replacements at the same address delete the old one first", async () => {
    expect((await diff("SmartContractInterface", sci, { ...sciIn, label: "x" })).deleteBeforeReplace).toBe(true);
    expect((await diff("SmartContractInterface", sci, { ...sciIn, smartContractAddress: "0x" + "33".repeat(20) })).deleteBeforeReplace).toBe(false);
  });
});
