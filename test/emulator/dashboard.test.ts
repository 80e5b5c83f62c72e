/**
 * The emulator's dashboard in a real browser (Debian's Chromium at /usr/bin/chromium, driven by
 * playwright-core): objects, the activity feed with its policy evaluations and reasons, a vote
 * cast in the page that really changes the organization, and the access matrix from the prover.
 * Also its JSON endpoints over plain HTTP (they need no browser). A second organization has the
 * rest: webhook deliveries to a real receiver, IP allowlists, session profiles, the OTP outbox,
 * the request log, names that are markup, and a reset of the data.
 *
 * The browser part skips, saying so, only when Chromium is not installed (CI installs it with
 * scripts/install-chromium). KEYFORM_DASHBOARD_SCREENSHOTS=<folder> saves a PNG per section.
 */
import * as fs from "node:fs";
import * as http from "node:http";
import * as os from "node:os";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { recoverTransactionAddress, serializeTransaction } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { KeyformClient } from "../../sdk/client/client";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { SCRIPT_JS } from "../../sdk/emulator/dashboard/assets/script";
import { isLoopback } from "../../sdk/emulator/dashboard";
import { RequestLog } from "../../sdk/emulator/dashboard/request-log";
import { AuthProxyClient } from "../../sdk/client/auth-proxy-client";
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
    // Who acted: the submitter is recorded with every activity, not only with held ones.
    expect(walletByCarol.submittedBy).toEqual({ id: carolId, name: "dev-carol" });
    expect(feed.find((a: any) => a.type === "ACTIVITY_TYPE_CREATE_POLICY_V3" || a.type === "ACTIVITY_TYPE_CREATE_POLICY").submittedBy).toEqual({ id: rootId, name: "root" });
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
    // Each allowed cell names the policy behind it, and the approvals a consensus needs.
    const reasonOf = (kind: string) => matrix.reasons[`${carolRow},${matrix.kinds.indexOf(kind)}`];
    expect(reasonOf("CREATE_WALLET")).toBe('allowed by policy "developers create wallets"');
    expect(reasonOf("SIGN_TRANSACTION")).toMatch(/^needs approvals under policy "signing needs two approvers" \(consensus: approvers\.count\(\) >= 2\); for example approved by (root|approver-bo)/);
    expect(matrix.reasons[`${rootRow},${matrix.kinds.indexOf("CREATE_USER_TAG")}`]).toBe("needs the root quorum: 2 approvals of root, approver-bo");
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

describe("dashboard reset with the start's configuration", () => {
  it("applies the configured IP allowlist and the fixtures again, and changes nothing when they cannot be", async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-reset-"));
    const fixtures = path.join(folder, "fixtures.json");
    const mnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
    fs.writeFileSync(fixtures, JSON.stringify({ wallets: [{ walletName: "seeded", mnemonic, accounts: [ETH] }] }));
    const r = await startTestEmulator({ fixturesFile: fixtures, ipAllowlists: [{ allow: ["127.0.0.0/8", "::1/128"] }] });
    try {
      const org = r.emulator.bootstrap.organizationId;
      const reset = () => fetch(`${r.emulator.url}${API}/reset`, { method: "POST", headers: { "x-keyform-dashboard": "1" }, body: JSON.stringify({ confirm: "reset" }) });
      const seeded = (await r.client.listWallets()).wallets;
      const seededAccount = (await r.client.listWalletAccounts({ walletId: seeded[0]!.walletId })).accounts[0]!.address;
      await r.client.createWallet({ walletName: "scratch", accounts: [ETH] });
      await r.client.setIpAllowlist({ enabled: true, rules: [{ cidr: "127.0.0.1/32", label: "narrower" }] });
      const first = await reset();
      expect(first.status).toBe(200);
      expect((await first.json()).removed).toMatchObject({ wallets: 2, ip_allowlists: 1, activities: 2 });
      // As at the start: the fixture wallet (same address), the configured list, nothing else.
      const wallets = (await r.client.listWallets()).wallets;
      expect(wallets.map((w) => w.walletName)).toEqual(["seeded"]);
      expect((await r.client.listWalletAccounts({ walletId: wallets[0]!.walletId })).accounts[0]!.address).toBe(seededAccount);
      const auth = await (await fetch(`${r.emulator.url}${API}/organizations/${org}/auth`)).json();
      expect(auth.organizationAllowlist).toMatchObject({ enabled: true, configured: true, rules: [{ cidr: "127.0.0.0/8" }, { cidr: "::1/128" }] });

      // Without the fixtures file the reset cannot give a first start's data: it changes nothing.
      await r.client.createWallet({ walletName: "kept", accounts: [] });
      fs.rmSync(fixtures);
      const failed = await reset();
      expect(failed.status).toBe(400);
      expect((await failed.json()).message).toMatch(/^reset: nothing was changed: fixtures file .*fixtures\.json/);
      expect((await r.client.listWallets()).wallets.map((w) => w.walletName)).toEqual(["seeded", "kept"]);
    } finally {
      await r.stop();
      fs.rmSync(folder, { recursive: true, force: true });
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
    expect(await page.getByTestId("cell-about").innerText()).toMatch(/dev-carol · SIGN_TRANSACTION: allowed with approvals \(only for another (private key|wallet).*\) — needs approvals under policy "signing needs two approvers"/);
    await carolRow.locator("td[data-kind=CREATE_WALLET]").click();
    expect(await page.getByTestId("cell-about").innerText()).toBe('dev-carol · CREATE_WALLET: allowed alone — allowed by policy "developers create wallets"');
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

/**
 * The rest of the dashboard, on an emulator of its own: webhook deliveries (a receiver that
 * refuses the first one, and a port where nothing listens), IP allowlists, a session profile,
 * the OTP outbox, the request log, policies over a tag, votes that count, names that are markup,
 * then the reset.
 */
describe("dashboard: webhooks, auth, requests, voters, names and reset", () => {
  // Markup in names: shown as text, never run (a run would set window.__xss or load /x).
  const XSS = `<script>window.__xss=1</script><img src=x onerror="window.__xss=2">`;
  let e: TestEmulator;
  let receiver: http.Server;
  let receiverUrl: string;
  const received: number[] = [];
  let orgOf: string;
  const ids: Record<string, string> = {};
  let dan: KeyformClient;
  let danKey: { publicKey: string; privateKey: string };
  let treasuryTagId: string;
  let heldId: string;
  let otpCode: string;
  const url = (p: string) => `${e.emulator.url}${API}${p}`;
  const json = async (p: string): Promise<any> => {
    const response = await fetch(url(p));
    expect(response.status, p).toBe(200);
    return response.json();
  };
  const clientOf = (pair: { publicKey: string; privateKey: string }) =>
    new KeyformClient({ baseUrl: e.emulator.url, organizationId: orgOf, stamper: new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }), retry: { maxRetries: 0 }, poll: { intervalMs: 50 } });

  beforeAll(async () => {
    // The receiver refuses the first delivery (500) and takes every later one.
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        received.push(received.length);
        if (received.length === 1) res.writeHead(500).end("not yet");
        else res.writeHead(200).end("thanks");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    e = await startTestEmulator({ webhooks: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 100, timeoutMs: 5000 } });
    orgOf = e.emulator.bootstrap.organizationId;
    const root = e.client;
    // Endpoints first: every later activity is delivered.
    await root.createWebhookEndpoint({ url: receiverUrl, name: `hooks${XSS}`, subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] });
    // A port that was free a moment ago: nothing listens, every attempt fails to connect.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await root.createWebhookEndpoint({ url: `http://127.0.0.1:${closedPort}/hook`, name: "dead-end", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] });
    danKey = generateApiKeyPair();
    const key = (userName: string, publicKey = generateApiKeyPair().publicKey) => [{ apiKeyName: `${userName.slice(0, 12)}-key`, publicKey, curveType: "API_KEY_CURVE_P256" as const }];
    const { userIds } = await root.createUsers({
      users: [
        { userName: "treasurer-ann", userEmail: "ann@example.com", apiKeys: key("treasurer-ann"), authenticators: [], oauthProviders: [], userTags: [] },
        { userName: "treasurer-ted", apiKeys: key("treasurer-ted"), authenticators: [], oauthProviders: [], userTags: [] },
        { userName: "dev-dan", apiKeys: key("dev-dan", danKey.publicKey), authenticators: [], oauthProviders: [], userTags: [] },
        { userName: `mallory${XSS}`, apiKeys: key("mallory"), authenticators: [], oauthProviders: [], userTags: [] },
      ],
    });
    [ids.ann, ids.ted, ids.dan, ids.mallory] = userIds as string[];
    dan = clientOf(danKey);
    treasuryTagId = (await root.createUserTag({ userTagName: "treasury", userIds: [ids.ann!, ids.ted!] })).userTagId;
    await root.createPolicy({
      policyName: "treasury approves user tags",
      effect: "EFFECT_ALLOW",
      condition: "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'",
      consensus: `approvers.any(user, user.tags.contains('${treasuryTagId}'))`,
      notes: "",
    });
    await root.createPolicy({ policyName: "dan never signs", effect: "EFFECT_DENY", condition: `activity.action == 'SIGN' && approvers.any(u, u.id == '${ids.dan}')`, notes: "" });
    await root.setIpAllowlist({ enabled: true, rules: [{ cidr: "127.0.0.0/8", label: "this machine" }, { cidr: "::1/128" }], onEvaluationError: "DENY" });
    await root.setIpAllowlist({ publicKey: danKey.publicKey, rules: [{ cidr: "127.0.0.1/32", label: "dan's laptop" }] });
    await root.createSessionProfile({ sessionProfileName: `short${XSS}`, scope: "activity.resource == 'WALLET'", expirationSeconds: "900", notes: "quarter hour" });
    const proxy = new AuthProxyClient({ authProxyUrl: e.emulator.authProxyUrl, authProxyConfigId: e.emulator.bootstrap.authProxyConfigId });
    await proxy.otpInit({ otpType: "OTP_TYPE_EMAIL", contact: "ann@example.com" });
    const outbox = (await (await fetch(`${e.emulator.url}/_keyform/otp-outbox?contact=ann%40example.com`)).json()) as { messages: { code: string }[] };
    otpCode = outbox.messages[0]!.code;
    // Dan: refused a wallet (no policy), then a user tag that waits for the treasury.
    await expect(dan.createWallet({ walletName: "dan-wallet", accounts: [] })).rejects.toMatchObject({ status: 403 });
    const held = await dan.submitActivity("createUserTag", { userTagName: "dan-team", userIds: [] }, { allowIncomplete: true });
    expect(held.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    heldId = held.id;
    // A request whose stamp is not verified.
    const forged = await fetch(`${e.emulator.url}/public/v1/query/whoami`, { method: "POST", headers: { "x-stamp": "not-a-stamp" }, body: JSON.stringify({ organizationId: orgOf }) });
    expect(forged.status).toBeGreaterThanOrEqual(400);
  });
  afterAll(async () => {
    await e?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it("records each webhook delivery attempt: the refusal and its retry, and the attempts to a port where nothing listens", async () => {
    // Retries run in the background: wait until the dead end was given up and the receiver took one.
    await expect
      .poll(async () => {
        const { endpoints } = await json(`/organizations/${orgOf}/webhooks`);
        const dead = endpoints.find((x: any) => x.name === "dead-end");
        return dead.deliveries.some((d: any) => d.attempt === 3) && endpoints[0].deliveries.some((d: any) => d.ok);
      }, { timeout: 60_000, interval: 100 })
      .toBe(true);
    const { endpoints } = await json(`/organizations/${orgOf}/webhooks`);
    expect(endpoints.map((x: any) => x.name)).toEqual([`hooks${XSS}`, "dead-end"]);
    const hooks = endpoints[0];
    expect(hooks).toMatchObject({ url: receiverUrl, isActive: true, subscriptions: [{ eventType: "ACTIVITY_UPDATES", filtersJson: null, isActive: true }] });
    const first = hooks.deliveries.find((d: any) => !d.ok);
    expect(first).toMatchObject({ attempt: 1, statusCode: 500, response: "not yet", error: "the endpoint answered HTTP 500", nextAttemptMs: expect.any(Number) });
    const retry = hooks.deliveries.find((d: any) => d.eventId === first.eventId && d.attempt === 2);
    expect(retry).toMatchObject({ ok: true, statusCode: 200, response: "thanks", error: null, nextAttemptMs: null });
    expect(retry.atMs).toBeGreaterThanOrEqual(first.atMs);
    const dead = endpoints[1].deliveries.filter((d: any) => d.eventId === endpoints[1].deliveries.at(-1).eventId);
    expect(dead.map((d: any) => d.attempt).sort()).toEqual([1, 2, 3]);
    for (const d of dead) expect(d).toMatchObject({ ok: false, statusCode: null, error: expect.stringMatching(/ECONNREFUSED/) });
    // The last attempt schedules nothing: the event was given up.
    expect(dead.find((d: any) => d.attempt === 3).nextAttemptMs).toBeNull();
  });

  it("lists the IP allowlists, session profiles and the OTP outbox from the store", async () => {
    const auth = await json(`/organizations/${orgOf}/auth`);
    expect(auth.organizationAllowlist).toMatchObject({ enabled: true, configured: false, onEvaluationError: "DENY" });
    expect(auth.organizationAllowlist.rules.map((r: any) => [r.cidr, r.label])).toEqual([["127.0.0.0/8", "this machine"], ["::1/128", ""]]);
    expect(auth.keyAllowlists).toEqual([expect.objectContaining({ publicKey: danKey.publicKey, apiKeyName: "dev-dan-key", userName: "dev-dan", rules: [expect.objectContaining({ cidr: "127.0.0.1/32", label: "dan's laptop" })] })]);
    expect(auth.sessionProfiles).toEqual([expect.objectContaining({ sessionProfileName: `short${XSS}`, scope: "activity.resource == 'WALLET'", expirationSeconds: "900", notes: "quarter hour" })]);
    const { messages } = await json("/otp-outbox");
    expect(messages[0]).toMatchObject({ otpType: "OTP_TYPE_EMAIL", contact: "ann@example.com", code: otpCode, state: "valid", users: ["treasurer-ann (keyform emulator)"] });
  });

  it("logs the API's requests with who made them and what came of it", async () => {
    const { requests, capacity } = await json(`/requests?organizationId=${orgOf}`);
    expect(capacity).toBe(500);
    const refused = requests.find((r: any) => r.path === "/public/v1/submit/create_wallet");
    expect(refused).toMatchObject({ method: "POST", organizationId: orgOf, user: { id: ids.dan, name: "dev-dan", apiKeyName: "dev-dan-key" }, status: 403 });
    expect(refused.outcome).toMatch(/You don't have sufficient permissions/);
    const held = requests.find((r: any) => r.path === "/public/v1/submit/create_user_tag" && r.user?.name === "dev-dan");
    expect(held).toMatchObject({ status: 200, outcome: "CONSENSUS_NEEDED" });
    const forged = requests.find((r: any) => r.path === "/public/v1/query/whoami" && r.status >= 400);
    expect(forged.user).toBeUndefined();
    expect(requests.find((r: any) => r.path === "/v1/otp_init")).toMatchObject({ status: 200, outcome: "ok" });
    // Newest first, and the dashboard's own reads are not in it.
    expect(requests.map((r: any) => r.atMs)).toEqual([...requests.map((r: any) => r.atMs)].sort((a: number, b: number) => b - a));
    expect(requests.some((r: any) => r.path.startsWith("/_keyform"))).toBe(false);
  });

  it("keeps the request log bounded, newest first", () => {
    const log = new RequestLog(3);
    for (let i = 0; i < 5; i++) log.add({ atMs: i, method: "POST", path: `/v1/p${i}`, organizationId: "", status: 200, outcome: "ok", durationMs: 0 });
    expect(log.list().map((r) => r.path)).toEqual(["/v1/p4", "/v1/p3", "/v1/p2"]);
  });

  it("offers a vote only to the users the consensus can count, and names who acted", async () => {
    const feed = await json(`/organizations/${orgOf}/activities`);
    const held = feed.find((a: any) => a.id === heldId);
    expect(held.submittedBy).toEqual({ id: ids.dan, name: "dev-dan" });
    // Only the treasury's members: root, Mallory (and Dan, who voted by submitting) cannot make it hold.
    expect(held.waiting.voters.map((v: any) => v.name).sort()).toEqual(["treasurer-ann", "treasurer-ted"]);
    const policies = (await json(`/organizations/${orgOf}/objects`)).policies;
    expect(policies[0].references).toEqual([{ id: treasuryTagId, kind: "user tag", name: "treasury" }]);
    expect(policies[1].references).toEqual([{ id: ids.dan, kind: "user", name: "dev-dan" }]);
  });

  it("offers a vote to each user a consensus over two tags needs, and to no one else", async () => {
    const { userTagId: auditors } = await e.client.createUserTag({ userTagName: "auditors", userIds: [ids.mallory!] });
    await e.client.createPolicy({
      policyName: "treasury and audit approve key tags",
      effect: "EFFECT_ALLOW",
      condition: "activity.type == 'ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG'",
      consensus: `approvers.any(u, u.tags.contains('${treasuryTagId}')) && approvers.any(u, u.tags.contains('${auditors}'))`,
      notes: "",
    });
    const held = await dan.submitActivity("createPrivateKeyTag", { privateKeyTagName: "dan-keys", privateKeyIds: [] }, { allowIncomplete: true });
    expect(held.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    const voters = async () => (await json(`/organizations/${orgOf}/activities`)).find((a: any) => a.id === held.id).waiting.voters.map((v: any) => v.id).sort();
    // Either treasurer, or the auditor: none alone makes it hold, each is needed with the other side.
    expect(await voters()).toEqual([ids.ann, ids.ted, ids.mallory].sort());
    // Once the auditor approved, only the treasury is still needed.
    const vote = await fetch(url(`/organizations/${orgOf}/votes`), { method: "POST", headers: { "x-keyform-dashboard": "1" }, body: JSON.stringify({ fingerprint: held.fingerprint, userId: ids.mallory, approve: true }) });
    expect(vote.status).toBe(200);
    expect(await voters()).toEqual([ids.ann, ids.ted].sort());
  });

  it("refuses a reset without the dashboard header or the confirmation, naming what is missing", async () => {
    const noHeader = await fetch(url("/reset"), { method: "POST", body: JSON.stringify({ confirm: "reset" }) });
    expect(noHeader.status).toBe(400);
    expect((await noHeader.json()).message).toMatch(/^x-keyform-dashboard:/);
    const unconfirmed = await fetch(url("/reset"), { method: "POST", headers: { "x-keyform-dashboard": "1" }, body: JSON.stringify({ confirm: true }) });
    expect(unconfirmed.status).toBe(400);
    expect((await unconfirmed.json()).message).toMatch(/^confirm:/);
    expect(isLoopback("127.0.0.1") && isLoopback("::1") && isLoopback("::ffff:127.0.0.1")).toBe(true);
    expect(isLoopback("10.1.2.3") || isLoopback("::ffff:192.168.0.1") || isLoopback("1270.0.0.1")).toBe(false);
    // Nothing was reset.
    expect((await e.client.listUsers()).users).toHaveLength(5);
    expect((await e.client.listUserTags()).userTags.map((tag) => tag.tagName)).toEqual(["treasury", "auditors"]);
  });

  describe.skipIf(!haveChromium)("in Chromium", () => {
    let browser: Browser;
    let page: Page;
    const failedResponses: string[] = [];
    const consoleErrors: string[] = [];
    beforeAll(async () => {
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
      page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
      page.on("pageerror", (error) => {
        throw error;
      });
      page.on("console", (message) => {
        if (message.type() === "error") consoleErrors.push(message.text());
      });
      page.on("response", (response) => {
        if (response.status() >= 400) failedResponses.push(`${response.status()} ${response.url()}`);
      });
      await page.goto(`${e.emulator.url}/`);
      await page.waitForSelector("body[data-loaded=objects]");
    });
    afterAll(async () => {
      await browser?.close();
    });
    const open = async (section: string) => {
      await page.evaluate("document.body.removeAttribute('data-loaded')");
      await page.click(`nav a[data-section=${section}]`);
      await page.waitForSelector(`body[data-loaded=${section}]`);
    };
    const shot = async (name: string) => {
      if (screenshots) await page.screenshot({ path: path.join(screenshots, `dashboard-${name}.png`), fullPage: true });
    };

    it("shows names that are markup as text, and policies with tag and user names instead of ids", async () => {
      const section = page.getByTestId("section-objects");
      expect(await section.getByTestId("user-row").allInnerTexts()).toContainEqual(expect.stringContaining(`mallory${XSS}`));
      expect(await page.evaluate("window.__xss")).toBeUndefined();
      const policyRows = await section.getByTestId("policy-row").allInnerTexts();
      expect(policyRows[0]).toContain("approvers.any(user, user.tags.contains(user tag treasury))");
      expect(policyRows[1]).toContain("approvers.any(u, u.id == user dev-dan)");
      for (const row of policyRows) expect(row).not.toMatch(new RegExp(`${treasuryTagId}|${ids.dan}`));
      // The id is still there, on hover.
      expect(await section.getByTestId("ref").first().getAttribute("title")).toBe(`user tag ${treasuryTagId}`);
      await shot("names");
    });

    it("lets the page vote only as a user whose approval counts; the feed names the submitter and each voter", async () => {
      await open("activity");
      const card = page.locator(`[data-testid=activity][data-id="${heldId}"]`);
      expect(await card.getByTestId("submitter").innerText()).toBe("by dev-dan");
      const options = await card.getByTestId("voter").locator("option").allInnerTexts();
      expect(options.sort()).toEqual(["treasurer-ann", "treasurer-ted"]);
      await card.getByTestId("voter").selectOption({ label: "treasurer-ted" });
      await card.getByTestId("approve").click();
      const done = page.locator(`[data-testid=activity][data-id="${heldId}"][data-status=ACTIVITY_STATUS_COMPLETED]`);
      await done.waitFor();
      expect(await done.getByTestId("votes").innerText()).toMatch(/dev-dan ✓[\s\S]*treasurer-ted ✓/);
      // The approval itself says who cast it.
      const approval = page.locator("[data-testid=activity][data-type=ACTIVITY_TYPE_APPROVE_ACTIVITY]").first();
      expect(await approval.getByTestId("submitter").innerText()).toBe("by treasurer-ted");
      expect((await e.client.listUserTags()).userTags.map((tag) => tag.tagName)).toContain("dan-team");
    });

    it("names the policy and the approvals behind an access cell", async () => {
      await open("access");
      const row = page.locator("[data-testid=access-row][data-user=dev-dan]");
      await row.locator("td[data-kind=CREATE_USER_TAG]").click();
      expect(await page.getByTestId("cell-about").innerText()).toMatch(
        /^dev-dan · CREATE_USER_TAG: allowed with approvals — needs approvals under policy "treasury approves user tags" \(consensus: approvers\.any\(user, user\.tags\.contains\(user tag treasury\)\)\); for example approved by treasurer-(ann|ted)$/,
      );
    });

    it("shows each webhook delivery attempt", async () => {
      await open("webhooks");
      const hooks = page.locator("[data-testid=webhook]").first();
      expect(await hooks.locator("h2").innerText()).toContain(`hooks${XSS}`);
      expect(await hooks.locator("[data-testid=delivery-row][data-ok=no]").first().innerText()).toMatch(/HTTP 500[\s\S]*the endpoint answered HTTP 500[\s\S]*retry at/);
      expect(await hooks.locator("[data-testid=delivery-row][data-ok=yes]").count()).toBeGreaterThan(0);
      const dead = page.locator("[data-testid=webhook][data-name=dead-end]");
      expect(await dead.locator("[data-testid=delivery-row]").allInnerTexts()).toContainEqual(expect.stringMatching(/no answer[\s\S]*ECONNREFUSED[\s\S]*given up/));
      expect(await page.evaluate("window.__xss")).toBeUndefined();
      await shot("webhooks");
    });

    it("shows the IP allowlists, the session profiles and the OTP code to log in with", async () => {
      await open("auth");
      expect(await page.getByTestId("card-org-allowlist").innerText()).toMatch(/enabled[\s\S]*127\.0\.0\.0\/8\s+this machine/);
      expect(await page.getByTestId("key-allowlist").innerText()).toMatch(/dev-dan-key of dev-dan[\s\S]*127\.0\.0\.1\/32\s+dan's laptop/);
      expect(await page.getByTestId("session-profile-row").innerText()).toContain(`short${XSS}`);
      const otp = page.locator("[data-testid=otp-row]").first();
      expect(await otp.getByTestId("otp-code").innerText()).toBe(otpCode);
      expect(await otp.innerText()).toMatch(/EMAIL\s+ann@example\.com\s+treasurer-ann \(keyform emulator\)/);
      await shot("auth");
    });

    it("shows the request log", async () => {
      await open("requests");
      const rows = await page.locator("[data-testid=request-row][data-status='403']").allInnerTexts();
      expect(rows).toContainEqual(expect.stringMatching(/submit\/create_wallet\s+dev-dan \(key dev-dan-key\)\s+403\s+You don't have sufficient permissions/));
      await shot("requests");
    });

    it("resets the data after a confirmation: the organization is as fresh, and the server still answers signed requests", async () => {
      await open("objects");
      await page.getByTestId("reset").click();
      await page.getByTestId("reset-confirm").waitFor();
      // Cancel changes nothing.
      await page.getByTestId("reset-no").click();
      expect(await page.getByTestId("reset-confirm").isHidden()).toBe(true);
      expect((await e.client.listUsers()).users).toHaveLength(5);
      await page.getByTestId("reset").click();
      await page.evaluate("document.body.removeAttribute('data-loaded')");
      await page.getByTestId("reset-yes").click();
      await page.waitForSelector("body[data-loaded=objects]");
      expect(await page.locator("#toast").innerText()).toMatch(/^Reset: \d+ rows removed/);
      expect(await page.getByTestId("section-objects").getByTestId("user-row").allInnerTexts()).toEqual([expect.stringMatching(/^root\t/)]);
      expect(await page.getByTestId("reset-confirm").isHidden()).toBe(true);

      // As a first start: the root user alone, its bootstrap key, no policies, webhooks, lists or codes.
      const objects = await json(`/organizations/${orgOf}/objects`);
      expect(objects.users.map((u: any) => [u.userId, u.userName])).toEqual([[e.emulator.bootstrap.userId, "root"]]);
      expect(objects.organization.rootQuorum).toEqual({ threshold: 1, userIds: [e.emulator.bootstrap.userId] });
      expect(objects.apiKeys.map((k: any) => [k.apiKeyName, k.credential.publicKey])).toEqual([["bootstrap", e.emulator.bootstrap.apiPublicKey]]);
      for (const list of ["policies", "userTags", "wallets", "privateKeys", "invitations"]) expect(objects[list], list).toEqual([]);
      expect((await json(`/organizations/${orgOf}/webhooks`)).endpoints).toEqual([]);
      expect(await json(`/organizations/${orgOf}/auth`)).toEqual({ organizationAllowlist: null, keyAllowlists: [], sessionProfiles: [] });
      expect((await json("/otp-outbox")).messages).toEqual([]);
      expect(await json(`/organizations/${orgOf}/activities`)).toEqual([]);
      expect((await json("/organizations")).map((o: any) => o.id)).toEqual([orgOf]);

      // The server answers signed requests with the bootstrap key: reads, and an activity that runs.
      const whoami = await e.client.whoami();
      expect(whoami).toMatchObject({ organizationId: orgOf, userId: e.emulator.bootstrap.userId, username: "root" });
      const { walletId } = await e.client.createWallet({ walletName: "after-reset", accounts: [ETH] });
      expect((await e.client.listWallets()).wallets.map((w) => [w.walletId, w.walletName])).toEqual([[walletId, "after-reset"]]);
      // Dan's key is gone with him.
      await expect(dan.whoami()).rejects.toMatchObject({ status: 401 });
      await shot("after-reset");
    });

    it("served the page with its icon, and the browser saw no failed request and no console error", async () => {
      const icon = await fetch(`${e.emulator.url}/favicon.ico`);
      expect(icon.status).toBe(200);
      expect(icon.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
      expect(await icon.text()).toMatch(/^<svg /);
      expect(await page.locator("link[rel=icon]").getAttribute("href")).toBe("/favicon.ico");
      // Loading the icon in the page itself: it answers as an image.
      expect(await page.evaluate(`new Promise((ok) => { const i = new Image(); i.onload = () => ok(i.naturalWidth > 0); i.onerror = () => ok(false); i.src = "/favicon.ico"; })`)).toBe(true);
      expect(failedResponses).toEqual([]);
      expect(consoleErrors).toEqual([]);
      expect(await page.evaluate("window.__xss")).toBeUndefined();
    });
  });
});
