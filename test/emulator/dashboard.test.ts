/**
 * The emulator's dashboard in a real browser (Debian's Chromium at /usr/bin/chromium, driven by
 * playwright-core): objects, the activity feed with its policy evaluations and reasons, a vote
 * cast in the page that really changes the organization, and the access matrix from the prover.
 * Also its JSON endpoints over plain HTTP (they need no browser).
 *
 * The browser part skips, saying so, only when Chromium is not installed (CI installs it with
 * scripts/install-chromium). KEYFORM_DASHBOARD_SCREENSHOTS=<folder> saves a PNG per section.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { recoverTransactionAddress, serializeTransaction } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { KeyformClient } from "../../sdk/client/client";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { SCRIPT_JS } from "../../sdk/emulator/dashboard/assets/script";
import { simulate, type PolicyRecord } from "../../sdk/policy";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

const CHROMIUM = process.env.KEYFORM_CHROMIUM ?? "/usr/bin/chromium";
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium) {
  console.warn(`dashboard browser test skipped: no Chromium at ${CHROMIUM} (install it with: bash scripts/install-chromium)`);
}
const screenshots = process.env.KEYFORM_DASHBOARD_SCREENSHOTS;
const API = "/_keyform/dashboard/api";

let t: TestEmulator;
let root: KeyformClient;
let orgId: string;
let rootId: string;
let approverId: string;
let carolId: string;
let carol: KeyformClient;
const ETH = { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" } as const;
const CAROL_MAY_CREATE_WALLETS = "activity.resource == 'WALLET' && activity.action == 'CREATE'";
const SIGNING = "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'";
const CREDENTIAL_CLAUSE = "credentials.any(c, c.type == 'CREDENTIAL_TYPE_API_KEY_P256')";

function clientFor(pair: { publicKey: string; privateKey: string }): KeyformClient {
  return new KeyformClient({
    baseUrl: t.emulator.url,
    organizationId: orgId,
    stamper: new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }),
    retry: { maxRetries: 0 },
    poll: { intervalMs: 50 },
  });
}

async function getJson(urlPath: string): Promise<any> {
  const response = await fetch(`${t.emulator.url}${urlPath}`);
  expect(response.status, urlPath).toBe(200);
  return response.json();
}

beforeAll(async () => {
  t = await startTestEmulator();
  root = t.client;
  orgId = t.emulator.bootstrap.organizationId;
  rootId = t.emulator.bootstrap.userId;
  const approverKey = generateApiKeyPair();
  const carolKey = generateApiKeyPair();
  const user = (userName: string, publicKey: string) => ({
    userName,
    apiKeys: [{ apiKeyName: `${userName}-key`, publicKey, curveType: "API_KEY_CURVE_P256" as const }],
    authenticators: [],
    oauthProviders: [],
    userTags: [],
  });
  const { userIds } = await root.createUsers({ users: [user("approver-bo", approverKey.publicKey), user("dev-carol", carolKey.publicKey)] });
  [approverId, carolId] = userIds as [string, string];
  carol = clientFor(carolKey);
  const { userTagId } = await root.createUserTag({ userTagName: "developers", userIds: [carolId] });
  await root.createPolicy({ policyName: "developers create wallets", effect: "EFFECT_ALLOW", condition: CAROL_MAY_CREATE_WALLETS, notes: "" });
  await root.createPolicy({ policyName: "nobody deletes users", effect: "EFFECT_DENY", condition: "activity.resource == 'USER' && activity.action == 'DELETE'", notes: "" });
  await root.createPolicy({ policyName: "signing needs two approvers", effect: "EFFECT_ALLOW", condition: SIGNING, consensus: "approvers.count() >= 2", notes: "" });
  await root.createPolicy({ policyName: "key tags need a second approver", effect: "EFFECT_ALLOW", condition: "activity.type == 'ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG'", consensus: "approvers.count() >= 2", notes: "" });
  // Credentials are outside the prover's fragment: the matrix must say "not proved" for it.
  await root.createPolicy({ policyName: "API keys write policies", effect: "EFFECT_ALLOW", condition: "activity.resource == 'POLICY' && activity.action == 'CREATE'", consensus: CREDENTIAL_CLAUSE, notes: "" });
  await root.createWallet({ walletName: "treasury", accounts: [ETH] });
  await root.createPrivateKeys({ privateKeys: [{ privateKeyName: "hot-signer", curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] }] });
  await root.createInvitations({
    invitations: [{ receiverUserName: "new-hire", receiverUserEmail: "new-hire@example.com", receiverUserTags: [userTagId], accessType: "ACCESS_TYPE_WEB", senderUserId: rootId }],
  });
  // Carol creates a wallet under the ALLOW policy, and is refused a tag (no policy allows it).
  await carol.createWallet({ walletName: "carol-sandbox", accounts: [] });
  await expect(carol.createUserTag({ userTagName: "carol-tag", userIds: [] })).rejects.toMatchObject({ status: 403 });
  // A root quorum of two: root's next activity waits for approver-bo.
  await root.updateRootQuorum({ threshold: 2, userIds: [rootId, approverId] });
  const pending = await root.submitActivity("createUserTag", { userTagName: "auditors", userIds: [] }, { allowIncomplete: true });
  expect(pending.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
});
afterAll(async () => {
  await t?.stop();
});

describe("dashboard endpoints", () => {
  it("serves the page at / and /dashboard, and a script that parses", async () => {
    for (const page of ["/", "/dashboard"]) {
      const response = await fetch(`${t.emulator.url}${page}`);
      expect(response.headers.get("content-type")).toMatch(/text\/html/);
      expect(await response.text()).toContain("/_keyform/dashboard/assets/dashboard.js");
    }
    expect(() => new Function(SCRIPT_JS)).not.toThrow();
  });

  it("lists the organization's objects and the feed with evaluations, the denial and why the pending activity waits", async () => {
    const objects = await getJson(`${API}/organizations/${orgId}/objects`);
    // Users created by one activity share a creation time: their order is by id.
    expect(objects.users.map((u: { userName: string }) => u.userName).sort()).toEqual(["approver-bo", "dev-carol", "root"]);
    expect(objects.organization.rootQuorum).toEqual({ threshold: 2, userIds: [rootId, approverId] });
    expect(objects.wallets.map((w: { walletName: string }) => w.walletName)).toEqual(["treasury", "carol-sandbox"]);
    expect(objects.wallets[0].accounts[0].address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(JSON.stringify(objects)).not.toMatch(/mnemonic/i);

    const feed = await getJson(`${API}/organizations/${orgId}/activities`);
    const walletByCarol = feed.find((a: any) => a.type === "ACTIVITY_TYPE_CREATE_WALLET" && a.intent.createWalletIntent.walletName === "carol-sandbox");
    expect(walletByCarol.evaluations[0].policies).toContainEqual({ policyId: expect.any(String), policyName: "developers create wallets", outcome: "OUTCOME_ALLOW" });
    const denial = feed.find((a: any) => a.kind === "denial");
    expect(denial).toMatchObject({ type: "ACTIVITY_TYPE_CREATE_USER_TAG", submittedBy: { id: carolId, name: "dev-carol" } });
    expect(denial.reason).not.toBe("");
    const waiting = feed.find((a: any) => a.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect(waiting.waiting).toMatchObject({ heldBy: "root quorum", approvals: 1, threshold: 2, voters: [{ id: approverId, name: "approver-bo" }] });
  });

  it("refuses a vote without the dashboard header, and names the bad field", async () => {
    const url = `${t.emulator.url}${API}/organizations/${orgId}/votes`;
    const noHeader = await fetch(url, { method: "POST", body: JSON.stringify({ fingerprint: "x", userId: approverId, approve: true }) });
    expect(noHeader.status).toBe(400);
    expect((await noHeader.json()).message).toMatch(/x-keyform-dashboard/);
    const badApprove = await fetch(url, { method: "POST", headers: { "x-keyform-dashboard": "1" }, body: JSON.stringify({ fingerprint: "x", userId: approverId, approve: "yes" }) });
    expect((await badApprove.json()).message).toMatch(/^approve:/);
    // Carol is not in the root quorum: the emulator's consensus code refuses her vote.
    const feed = await getJson(`${API}/organizations/${orgId}/activities`);
    const fingerprint = feed.find((a: any) => a.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED").fingerprint;
    const outsider = await fetch(url, { method: "POST", headers: { "x-keyform-dashboard": "1" }, body: JSON.stringify({ fingerprint, userId: carolId, approve: true }) });
    expect(outsider.status).toBe(403);
    expect((await outsider.json()).message).toMatch(/not a member of the root quorum/);
  });

  it("votes as a chosen user on an activity a policy's consensus holds, through the emulator's consensus code", async () => {
    const held = await carol.submitActivity("createPrivateKeyTag", { privateKeyTagName: "carol-keys", privateKeyIds: [] }, { allowIncomplete: true });
    expect(held.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    const waiting = (await getJson(`${API}/organizations/${orgId}/activities`)).find((a: any) => a.id === held.id);
    expect(waiting.waiting).toMatchObject({ heldBy: "policy consensus", approvals: 1 });
    expect(waiting.waiting.reason).toMatch(/key tags need a second approver/);
    expect(waiting.waiting.voters.map((v: { name: string }) => v.name).sort()).toEqual(["approver-bo", "root"]);
    expect(waiting.waiting.now).toContainEqual(expect.objectContaining({ policyName: "key tags need a second approver", outcome: "OUTCOME_REQUIRES_CONSENSUS" }));

    const vote = await fetch(`${t.emulator.url}${API}/organizations/${orgId}/votes`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-keyform-dashboard": "1" },
      body: JSON.stringify({ fingerprint: held.fingerprint, userId: approverId, approve: true }),
    });
    expect(vote.status).toBe(200);
    // The vote is an approve_activity of approver-bo, and the held activity ran.
    expect((await vote.json()).activity).toMatchObject({ type: "ACTIVITY_TYPE_APPROVE_ACTIVITY", status: "ACTIVITY_STATUS_COMPLETED" });
    const done = (await root.getActivity({ activityId: held.id })).activity;
    expect(done.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(done.votes.map((v) => v.userId).sort()).toEqual([carolId, approverId].sort());
    expect((await root.listPrivateKeyTags()).privateKeyTags.map((tag) => tag.tagName)).toContain("carol-keys");
    const settled = (await getJson(`${API}/organizations/${orgId}/activities`)).find((a: any) => a.id === held.id);
    const approval = (await getJson(`${API}/organizations/${orgId}/activities`)).find((a: any) => a.type === "ACTIVITY_TYPE_APPROVE_ACTIVITY");
    expect(approval).toMatchObject({ votesOn: { id: held.id, type: held.type }, notEvaluated: "vote" });
    const outcomes = settled.evaluations.map((round: any) => round.policies.find((p: any) => p.policyName === "key tags need a second approver").outcome);
    expect(outcomes).toEqual(["OUTCOME_REQUIRES_CONSENSUS", "OUTCOME_ALLOW"]);
  });

  it("gives an access matrix whose allowed cells the policy evaluator confirms", async () => {
    const matrix = await getJson(`${API}/organizations/${orgId}/access`);
    const carolRow = matrix.users.findIndex((u: { id: string }) => u.id === carolId);
    const rootRow = matrix.users.findIndex((u: { id: string }) => u.id === rootId);
    expect(matrix.users[rootRow].standing).toBe("quorum member");
    const policies: PolicyRecord[] = (await root.listPolicies()).policies.map((p) => ({ policyId: p.policyId, policyName: p.policyName, effect: p.effect, condition: p.condition, consensus: p.consensus }));
    // Every kind Carol may submit alone or not: the evaluator on the kind's activity, submitted by her alone.
    matrix.kinds.forEach((kind: string, k: number) => {
      const cell = matrix.cells[carolRow][k];
      const decision = simulate(policies, { type: `ACTIVITY_TYPE_${kind}`, approvers: [{ id: carolId, tags: [] }] });
      if (cell === "alone") expect(decision.outcome, kind).toBe("OUTCOME_ALLOW");
      if (cell === "refused" || cell === "with approvers") expect(decision.outcome, kind).not.toBe("OUTCOME_ALLOW");
    });
    const carolCells = (value: string) => matrix.kinds.filter((_k: string, k: number) => matrix.cells[carolRow][k] === value);
    expect(carolCells("alone")).toEqual(["CREATE_WALLET", "CREATE_WALLET_ACCOUNTS"]);
    expect(carolCells("with approvers")).toEqual(expect.arrayContaining(["SIGN_TRANSACTION", "SIGN_RAW_PAYLOAD"]));
    // The evaluator lets her create a policy with her API key, but the prover cannot show it: it says so.
    expect(carolCells("not proved")).toEqual(expect.arrayContaining(["CREATE_POLICY"]));
    expect(matrix.notProved.join(" ")).toContain("credentials.any");
    // The root quorum's members need each other for what no policy allows them.
    expect(matrix.cells[rootRow][matrix.kinds.indexOf("CREATE_USER_TAG")]).toBe("with approvers");
  });
});

describe("dashboard access matrix without an ALLOW policy", () => {
  it("refuses every kind to a user outside the root quorum; the root quorum alone has every kind", async () => {
    const fresh = await startTestEmulator();
    try {
      const { userIds } = await fresh.client.createUsers({
        users: [{ userName: "visitor", apiKeys: [{ apiKeyName: "visitor-key", publicKey: generateApiKeyPair().publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
      });
      await fresh.client.createPolicy({ policyName: "no exports", effect: "EFFECT_DENY", condition: "activity.action == 'EXPORT'", notes: "" });
      const response = await fetch(`${fresh.emulator.url}${API}/organizations/${fresh.emulator.bootstrap.organizationId}/access`);
      const matrix = await response.json();
      const row = (id: string) => matrix.cells[matrix.users.findIndex((u: { id: string }) => u.id === id)];
      expect(new Set(row(userIds[0]!))).toEqual(new Set(["refused"]));
      expect(new Set(row(fresh.emulator.bootstrap.userId))).toEqual(new Set(["root quorum"]));
      expect(matrix.kinds.length).toBeGreaterThan(50);
    } finally {
      await fresh.stop();
    }
  });
});

describe.skipIf(!haveChromium)("dashboard in Chromium", () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on("pageerror", (error) => {
      throw error;
    });
  });
  afterAll(async () => {
    await browser?.close();
  });
  const shot = async (name: string) => {
    if (screenshots) await page.screenshot({ path: path.join(screenshots, `dashboard-${name}.png`), fullPage: true });
  };
  // Each call changes the section (the page reads on a hash change). The mark of the last load
  // is cleared first, so the wait is for a read of this section made after the click.
  const open = async (section: string) => {
    await page.evaluate("document.body.removeAttribute('data-loaded')");
    await page.click(`nav a[data-section=${section}]`);
    await page.waitForSelector(`body[data-loaded=${section}]`);
  };

  it("shows the objects, the feed, approves the pending activity and shows the change", async () => {
    await page.goto(`${t.emulator.url}/`);
    await page.waitForSelector("body[data-loaded=objects]");
    const section = page.getByTestId("section-objects");
    const userRows = await section.getByTestId("user-row").allInnerTexts();
    expect(userRows.map((row) => row.split("\t")[0]).sort()).toEqual(["approver-bo", "dev-carol", "root"]);
    expect(await section.getByTestId("wallet-row").first().innerText()).toContain("treasury");
    expect(await section.getByTestId("policy-row").allInnerTexts()).toEqual([
      expect.stringContaining("developers create wallets"),
      expect.stringContaining("nobody deletes users"),
      expect.stringContaining("signing needs two approvers"),
      expect.stringContaining("key tags need a second approver"),
      expect.stringContaining("API keys write policies"),
    ]);
    expect(await section.getByTestId("private-key-row").innerText()).toContain("hot-signer");
    expect(await section.getByTestId("invitation-row").innerText()).toContain("new-hire");
    expect(await section.getByTestId("card-organization").innerText()).toContain("2 of root, approver-bo");
    await shot("objects");

    await open("activity");
    const pending = page.locator("[data-testid=activity][data-status=ACTIVITY_STATUS_CONSENSUS_NEEDED]");
    await expect(pending.count()).resolves.toBe(1);
    expect(await pending.getByTestId("reason").innerText()).toMatch(/Waits for root quorum: the root quorum needs 2 approvals; 1 so far \(root\)/);
    expect(await pending.getByTestId("evaluation-now").innerText()).toMatch(/signing needs two approvers\s+DENY_IMPLICIT\s+condition/);
    const denial = page.locator("[data-testid=activity][data-status=DENIED_BY_POLICY]");
    expect(await denial.innerText()).toMatch(/CREATE_USER_TAG[\s\S]*by dev-carol[\s\S]*Denied/);
    await shot("activity");

    await page.getByTestId("activity-filter").selectOption("refused");
    await expect(page.locator("[data-testid=activity]").count()).resolves.toBe(1);
    await page.getByTestId("activity-filter").selectOption("waiting");
    await expect(page.locator("[data-testid=activity]").count()).resolves.toBe(1);
    await page.getByTestId("activity-filter").selectOption("all");
    const pendingId = await pending.getAttribute("data-id");
    expect(pendingId).toMatch(/^[0-9a-f-]{36}$/);
    await pending.getByTestId("voter").selectOption({ label: "approver-bo" });
    await pending.getByTestId("approve").click();
    // The page redraws the feed after the vote: this activity (not another completed one of its
    // type, there from the start) is now completed, with two votes.
    const completed = page.locator(`[data-testid=activity][data-id="${pendingId}"][data-status=ACTIVITY_STATUS_COMPLETED]`);
    await completed.waitFor();
    expect(await completed.innerText()).toMatch(/root ✓[\s\S]*approver-bo ✓/);
    await expect(page.locator("[data-testid=activity][data-status=ACTIVITY_STATUS_CONSENSUS_NEEDED]").count()).resolves.toBe(0);
    await shot("activity-approved");

    // The organization changed: the client reads the new tag and the completed activity.
    expect((await root.listUserTags()).userTags.map((tag) => tag.tagName)).toContain("auditors");
    const activities = (await root.listActivities({})).activities.filter((a) => a.type === "ACTIVITY_TYPE_CREATE_USER_TAG_V2" || a.type === "ACTIVITY_TYPE_CREATE_USER_TAG");
    const approved = activities.find((a) => JSON.stringify(a.intent).includes("auditors"))!;
    expect(approved.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(approved.votes.map((v) => v.userId).sort()).toEqual([rootId, approverId].sort());
    // And the page shows it among the objects.
    await open("objects");
    expect(await page.getByTestId("section-objects").getByTestId("tag-row").allInnerTexts()).toEqual([expect.stringContaining("developers"), expect.stringContaining("auditors")]);
  });

  it("rejects a pending activity in the page: it is REJECTED and changes nothing", async () => {
    const pending = await root.submitActivity("createUserTag", { userTagName: "never", userIds: [] }, { allowIncomplete: true });
    expect(pending.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    await open("activity");
    const card = page.locator("[data-testid=activity][data-status=ACTIVITY_STATUS_CONSENSUS_NEEDED]");
    await card.getByTestId("voter").selectOption({ label: "approver-bo" });
    await card.getByTestId("reject").click();
    const rejected = page.locator("[data-testid=activity][data-status=ACTIVITY_STATUS_REJECTED]");
    await rejected.waitFor();
    expect(await rejected.innerText()).toMatch(/Rejected by a vote[\s\S]*approver-bo ✗/);
    expect((await root.getActivity({ activityId: pending.id })).activity.status).toBe("ACTIVITY_STATUS_REJECTED");
    expect((await root.listUserTags()).userTags.map((tag) => tag.tagName)).not.toContain("never");
  });

  it("shows the access matrix, with Carol allowed to create wallets alone", async () => {
    await open("access");
    const matrix = page.getByTestId("access-matrix");
    const carolRow = matrix.locator("[data-testid=access-row][data-user=dev-carol]");
    await expect(carolRow.locator("td[data-kind=CREATE_WALLET]").getAttribute("data-cell")).resolves.toBe("alone");
    await expect(carolRow.locator("td[data-kind=SIGN_TRANSACTION]").getAttribute("data-cell")).resolves.toBe("with approvers");
    await expect(carolRow.locator("td[data-kind=CREATE_POLICY]").getAttribute("data-cell")).resolves.toBe("not proved");
    await carolRow.locator("td[data-kind=SIGN_TRANSACTION]").click();
    expect(await page.getByTestId("cell-about").innerText()).toMatch(/dev-carol · SIGN_TRANSACTION: allowed with approvals \(only for another (private key|wallet)/);
    expect(await page.getByTestId("not-proved").innerText()).toContain("credentials.any");
    const rootRow = matrix.locator("[data-testid=access-row][data-user=root]");
    expect(await rootRow.innerText()).toContain("quorum member");
    await shot("access");
  });
  it("shows a held signing request, why it waits, and approves it in the page: the transaction is signed", async () => {
    const { walletId } = (await root.listWallets()).wallets.find((w) => w.walletName === "treasury")!;
    const address = (await root.listWalletAccounts({ walletId })).accounts[0]!.address;
    const unsignedTransaction = serializeTransaction({ type: "eip1559", chainId: 1, to: "0x1111111111111111111111111111111111111111", value: 5n, gas: 21000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }).slice(2);
    const held = await carol.submitActivity("signTransaction", { signWith: address, unsignedTransaction, type: "TRANSACTION_TYPE_ETHEREUM" }, { allowIncomplete: true });
    expect(held.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    await page.goto(`${t.emulator.url}/`);
    await page.waitForSelector("body[data-loaded=objects]");
    await open("activity");
    const card = page.locator("[data-testid=activity][data-type=ACTIVITY_TYPE_SIGN_TRANSACTION_V2][data-status=ACTIVITY_STATUS_CONSENSUS_NEEDED]");
    expect(await card.getByTestId("reason").innerText()).toMatch(/signing needs two approvers/);
    // What is signed, decoded: the approver need not read hex.
    expect(await card.getByTestId("signing").innerText()).toBe(`Signs: Ethereum TYPE_2 transaction on chain 1: 5 wei to 0x1111111111111111111111111111111111111111 · key ${address} (wallet account)`);
    await shot("signing-held");
    await card.getByTestId("voter").selectOption({ label: "approver-bo" });
    await card.getByTestId("approve").click();
    await page.locator("[data-testid=activity][data-type=ACTIVITY_TYPE_SIGN_TRANSACTION_V2][data-status=ACTIVITY_STATUS_COMPLETED]").waitFor();
    const done = (await root.getActivity({ activityId: held.id })).activity;
    expect(done.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const signed = `0x${(done.result as { signTransactionResult: { signedTransaction: string } }).signTransactionResult.signedTransaction}` as `0x02${string}`;
    expect(await recoverTransactionAddress({ serializedTransaction: signed })).toBe(address);
  });
});
