/**
 * The emulator runs policies as the service documents them, over real HTTP with a non-root
 * user's key: a DENY that errors for an activity (the documented raw-payload DENY reading
 * `activity.params.hash_function`, a chain keyword on a non-signing activity) counts as no
 * match and does not block it, and get_policy_evaluations shows each erroring policy's error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { KeyformClient } from "../../sdk/client/client";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { DOCUMENTED_EXAMPLES } from "../policy/examples";

let t: TestEmulator;
let bot: KeyformClient;
let botId = "";
const policyIds: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestEmulator();
  const pair = generateApiKeyPair();
  const { userIds } = await t.client.createUsers({
    users: [{ userName: "semantics-bot", apiKeys: [{ apiKeyName: "bot", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
  });
  botId = userIds[0]!;
  bot = new KeyformClient({
    baseUrl: t.emulator.url,
    organizationId: t.emulator.bootstrap.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }),
    retry: { maxRetries: 0 },
    poll: { intervalMs: 50 },
  });
  const rawPayloadDeny = DOCUMENTED_EXAMPLES.find((e) => e.name.startsWith("14 "))!.policies[0]!;
  const declared = [
    { policyName: "bot manages tags", effect: "EFFECT_ALLOW" as const, condition: "activity.resource == 'USER' && activity.kind == 'CREATE_USER_TAG'", consensus: `approvers.any(u, u.id == '${botId}')` },
    { policyName: "No blind raw-payload signing", effect: "EFFECT_DENY" as const, condition: rawPayloadDeny.condition! },
    { policyName: "No mainnet", effect: "EFFECT_DENY" as const, condition: "eth.tx.chain_id == 1" },
  ];
  for (const p of declared) policyIds[p.policyName] = (await t.client.createPolicy({ ...p, notes: "" })).policyId;
});
afterAll(async () => {
  await t?.stop();
});

describe("an erroring DENY counts as no match", () => {
  it("a non-root user creates a tag despite DENYs that error for it; the evaluations show why they did not apply", async () => {
    const activity = await bot.submitActivity("createUserTag", { userTagName: "allowed-despite-deny", userIds: [] });
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const [evaluation] = (await t.client.getPolicyEvaluations({ activityId: activity.id })).policyEvaluations;
    expect(evaluation!.policyEvaluations).toEqual(
      expect.arrayContaining([
        { policyId: policyIds["bot manages tags"], outcome: "OUTCOME_ALLOW" },
        { policyId: policyIds["No blind raw-payload signing"], outcome: "OUTCOME_ERROR", error: expect.stringContaining("no field 'hash_function' in this request") },
        { policyId: policyIds["No mainnet"], outcome: "OUTCOME_ERROR", error: expect.stringContaining("'eth' is not part of this request") },
      ]),
    );
  });

  it("without an ALLOW the user is still refused (implicit deny), with the erroring DENYs listed", async () => {
    const error = await bot.createPolicy({ policyName: "sneaky", effect: "EFFECT_ALLOW", condition: "true", notes: "" }).then(
      () => undefined,
      (e: unknown) => e as Record<string, any>,
    );
    expect(error).toMatchObject({ status: 403, code: 7 });
    expect(error!.details[0].message).toBe("No policies evaluated to outcome: Allow");
    expect(error!.details[0].policyEvaluations).toContainEqual(expect.objectContaining({ policyId: policyIds["No blind raw-payload signing"], outcome: "OUTCOME_ERROR" }));
  });
});

describe("the wallets keyword on a request naming several wallets", () => {
  it("a DENY on any treasury wallet refuses a delete that includes one and lets the others through", async () => {
    const { walletId: scratch } = await t.client.createWallet({ walletName: "scratch", accounts: [] });
    const { walletId: treasury } = await t.client.createWallet({ walletName: "treasury", accounts: [] });
    const allow = await t.client.createPolicy({
      policyName: "bot deletes wallets",
      effect: "EFFECT_ALLOW",
      condition: "activity.kind == 'DELETE_WALLETS'",
      consensus: `approvers.any(u, u.id == '${botId}')`,
      notes: "",
    });
    const deny = await t.client.createPolicy({
      policyName: "never the treasury",
      effect: "EFFECT_DENY",
      condition: "activity.kind == 'DELETE_WALLETS' && wallets.any(w, w.label == 'treasury')",
      notes: "",
    });
    try {
      const refused = await bot.deleteWallets({ walletIds: [scratch, treasury], deleteWithoutExport: true }).then(
        () => undefined,
        (e: unknown) => e as Record<string, any>,
      );
      expect(refused).toMatchObject({ status: 403, code: 7 });
      expect(refused!.details[0].policyEvaluations).toContainEqual(expect.objectContaining({ policyId: deny.policyId, outcome: "OUTCOME_DENY_EXPLICIT" }));
      expect((await t.client.listWallets({})).wallets.map((w) => w.walletId)).toEqual(expect.arrayContaining([scratch, treasury]));
      const activity = await bot.submitActivity("deleteWallets", { walletIds: [scratch], deleteWithoutExport: true });
      expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
      const ids = (await t.client.listWallets({})).wallets.map((w) => w.walletId);
      expect(ids).toContain(treasury);
      expect(ids).not.toContain(scratch);
    } finally {
      for (const { policyId } of [allow, deny]) await t.client.deletePolicy({ policyId });
    }
  });
});
