/**
 * The parts of the lockout proof that need no server: which IP allowlist applies (the service's
 * activation rule, as `sdk/emulator/handlers/ip-allowlists.ts` enforces it), the order a destroy
 * is played in, and how the deploying user's standing with the root quorum decides a request.
 * The whole proof against the emulator is `test/resources/lockout-verdict-generated.test.ts`.
 */
import { describe, expect, it } from "vitest";
import { blockedAfterPlan, destroyOrder, refusalOf } from "../../sdk/resources/runtime/deployer-access";
import { allowlistInForce, type ManagedObject, type OrganizationAfterPlan } from "../../sdk/resources/runtime/org-after-plan";

const here = [{ cidr: "127.0.0.0/8" }];
const elsewhere = [{ cidr: "203.0.113.0/24" }];
const deployer = { userId: "u-d", userName: "deployer", userTags: [] as string[] };
const tag: ManagedObject = { kind: "UserTag", name: "ops", inputs: { userTagName: "ops", userIds: [] }, olds: {}, id: "t-ops" };
const org = (over: Partial<OrganizationAfterPlan>): OrganizationAfterPlan => ({ policies: [], deployer, deployerKey: "02ab", rootQuorum: { userIds: ["root"], threshold: 1 }, managed: [tag], ...over });

describe("allowlistInForce", () => {
  it("follows the activation rule: the key's own list only while the organization-level list is enabled", () => {
    const key = { rules: elsewhere, enabled: true };
    const on = { rules: here, enabled: true };
    const off = { rules: here, enabled: false };
    expect(allowlistInForce({ keyList: key })).toBeUndefined();
    expect(allowlistInForce({ keyList: key, organizationList: off })).toBeUndefined();
    expect(allowlistInForce({ keyList: key, organizationList: on })).toEqual({ which: "key", list: key });
    expect(allowlistInForce({ organizationList: on })).toEqual({ which: "organization", list: on });
    expect(allowlistInForce({})).toBeUndefined();
  });
});

describe("blockedAfterPlan", () => {
  it("a new organization-level list that lets the address in still blocks the read through the key's own list", () => {
    const blocked = blockedAfterPlan(org({ keyList: { rules: elsewhere, enabled: true }, organizationList: { rules: here, enabled: true, declaredBy: 'IpAllowlist "org"' } }), "02ab", "CREDENTIAL_TYPE_API_KEY_P256", "127.0.0.1");
    expect(blocked).toHaveLength(1);
    expect(blocked[0]!.goal).toBe("read");
    expect(blocked[0]!.witness).toMatch(/the IP allowlist of the API key keyform signs with leaves out 127\.0\.0\.1.*IpAllowlist "org", the enabled organization-level list, switches per-key lists on/);
    // Without the organization-level list the key's own list is off: the read goes through.
    const reads = blockedAfterPlan(org({ keyList: { rules: elsewhere, enabled: true } }), "02ab", "CREDENTIAL_TYPE_API_KEY_P256", "127.0.0.1").filter((b) => b.goal === "read");
    expect(reads).toEqual([]);
  });

  it("an unknown address cannot be proved once a list is in force", () => {
    const blocked = blockedAfterPlan(org({ organizationList: { rules: here, enabled: true } }), "02ab", "CREDENTIAL_TYPE_API_KEY_P256", undefined);
    expect(blocked[0]!.witness).toMatch(/cannot be proved to let keyform in/);
  });

  it("a threshold-1 quorum member bypasses policies; a member of a larger quorum waits; anyone else needs an ALLOW", () => {
    const quorum = (threshold: number) => ({ userIds: ["u-d", "root"], threshold });
    expect(blockedAfterPlan(org({ rootQuorum: quorum(1) }), "02ab", "CREDENTIAL_TYPE_API_KEY_P256", "127.0.0.1")).toEqual([]);
    const member = blockedAfterPlan(org({ rootQuorum: quorum(2) }), "02ab", "CREDENTIAL_TYPE_API_KEY_P256", "127.0.0.1");
    expect(member.map((b) => b.activity)).toEqual(["ACTIVITY_TYPE_UPDATE_USER_TAG", "ACTIVITY_TYPE_DELETE_USER_TAGS"]);
    expect(member[0]!.witness).toMatch(/it would wait for the root quorum \(threshold 2\)/);
    const allow = { policyId: "p", policyName: "deployer", effect: "EFFECT_ALLOW", consensus: "approvers.any(user, user.id == 'u-d')" };
    expect(blockedAfterPlan(org({ policies: [allow] }), "02ab", "CREDENTIAL_TYPE_API_KEY_P256", "127.0.0.1")).toEqual([]);
  });

  it("plays the destroy with each delete taking away what it granted", () => {
    const byTag = { policyId: "p-tag", policyName: "ops do anything", effect: "EFFECT_ALLOW", consensus: "approvers.any(user, 't-ops' in user.tags)" };
    const allowObject: ManagedObject = { kind: "Policy", name: "ops-allow", inputs: { effect: "EFFECT_ALLOW" }, olds: {}, id: "p-tag" };
    // The tag goes before the ALLOW; once the deployer is out of it, the ALLOW no longer applies to its own delete.
    const blocked = blockedAfterPlan(org({ policies: [byTag], deployer: { ...deployer, userTags: ["t-ops"] }, managed: [allowObject, tag] }), "02ab", "CREDENTIAL_TYPE_API_KEY_P256", "127.0.0.1");
    expect(blocked.map((b) => `${b.goal}: ${b.activity}`)).toEqual([
      "destroy what this stack manages: ACTIVITY_TYPE_DELETE_POLICY",
      "destroy what this stack manages: ACTIVITY_TYPE_DELETE_POLICIES",
    ]);
  });
});

describe("the plan's own steps and the root quorum it declares", () => {
  const allow = { policyId: "p", policyName: "deployer", effect: "EFFECT_ALLOW", consensus: "approvers.any(user, user.id == 'u-d')" };
  const denyUsers = { policyId: "no-users", policyName: "no user changes", effect: "EFFECT_DENY", condition: "activity.resource == 'USER' && activity.action == 'CREATE'" };

  it("asks each request the plan's step submits, with its parameters, in the organization after the plan", () => {
    const creating: ManagedObject = { ...tag, id: undefined, kinds: ["CREATE_USER_TAG"] };
    const blocked = blockedAfterPlan(org({ policies: [allow, denyUsers], managed: [creating] }), "02ab", "CREDENTIAL_TYPE_API_KEY_P256", "127.0.0.1");
    // Only the create is denied: the update and the delete of the tag stay allowed.
    expect(blocked.map((b) => `${b.goal}: ${b.activity}`)).toEqual(["carry out this plan: ACTIVITY_TYPE_CREATE_USER_TAG"]);
    expect(blocked[0]!.witness).toMatch(/ACTIVITY_TYPE_CREATE_USER_TAG \{"userTagName":"ops","userIds":\[\]\} submitted by user "deployer" \(u-d\) alone: OUTCOME_DENY_EXPLICIT: 403 code 7 \(DENY policy "no user changes" applies\)/);
    // Without the step (the plan leaves the tag as it is), nothing is asked of the create.
    expect(blockedAfterPlan(org({ policies: [allow, denyUsers] }), "02ab", "CREDENTIAL_TYPE_API_KEY_P256", "127.0.0.1")).toEqual([]);
    // An update step sends what applying the plan again sends: it is asked once, as the latter.
    const updating: ManagedObject = { ...tag, kinds: ["UPDATE_USER_TAG"] };
    const denyUpdates = { ...denyUsers, condition: "activity.resource == 'USER' && activity.action == 'UPDATE'" };
    const updates = blockedAfterPlan(org({ policies: [allow, denyUpdates], managed: [updating] }), "02ab", "CREDENTIAL_TYPE_API_KEY_P256", "127.0.0.1");
    expect(updates.map((b) => `${b.goal}: ${b.activity}`)).toEqual(["apply this plan again: ACTIVITY_TYPE_UPDATE_USER_TAG"]);
  });

  it("names the RootQuorum of the plan that leaves the deploying user out, or makes it wait", () => {
    const quorum = (userIds: string[], threshold: number) => ({ userIds, threshold, declaredBy: 'RootQuorum "root"' });
    const outside = blockedAfterPlan(org({ rootQuorum: quorum(["root"], 1) }), "02ab", "CREDENTIAL_TYPE_API_KEY_P256", "127.0.0.1");
    expect(outside[0]!.witness).toMatch(/OUTCOME_DENY_IMPLICIT: 403 code 7 \(.*\); the root quorum of RootQuorum "root" leaves the user out$/);
    const waiting = blockedAfterPlan(org({ rootQuorum: quorum(["u-d", "root"], 2) }), "02ab", "CREDENTIAL_TYPE_API_KEY_P256", "127.0.0.1");
    expect(waiting[0]!.witness).toMatch(/it would wait for the root quorum of RootQuorum "root" \(threshold 2\)/);
  });

  it("gives one refusal: the first blocked request with its witness, the others by name", () => {
    const blocked = blockedAfterPlan(org({ rootQuorum: { userIds: ["u-d", "root"], threshold: 2 } }), "02ab", "CREDENTIAL_TYPE_API_KEY_P256", "127.0.0.1");
    expect(blocked).toHaveLength(2);
    const refusal = refusalOf(blocked, "org-1");
    expect(refusal.match(/Witness:/g)).toHaveLength(1);
    expect(refusal).toMatch(/^after this plan the deploying API key could not apply this plan again in organization org-1: ACTIVITY_TYPE_UPDATE_USER_TAG for UserTag "ops" would be refused\. Witness: /);
    expect(refusal).toMatch(/Also refused: destroy what this stack manages: ACTIVITY_TYPE_DELETE_USER_TAGS for UserTag "ops"\. Change the plan so it keeps that access, or set keyform:allowLockout/);
  });
});

describe("destroyOrder", () => {
  it("allowlists first, then other objects, DENYs, tags, and ALLOWs last; by name within each", () => {
    const o = (kind: string, name: string, inputs: Record<string, unknown> = {}): ManagedObject => ({ kind, name, inputs, olds: {} });
    const order = destroyOrder([o("Policy", "b-allow", { effect: "EFFECT_ALLOW" }), o("UserTag", "t"), o("Policy", "deny", { effect: "EFFECT_DENY" }), o("Wallet", "w"), o("IpAllowlist", "ips"), o("Policy", "a-allow", { effect: "EFFECT_ALLOW" })]);
    expect(order.map((x) => x.name)).toEqual(["ips", "w", "deny", "t", "a-allow", "b-allow"]);
  });
});
