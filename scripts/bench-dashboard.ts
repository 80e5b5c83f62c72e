/**
 * Benchmark of the emulator's dashboard endpoints: an organization with U users (each with a
 * user tag), P policies (ALLOW conditions on activity kinds, one with a consensus) and about
 * A activities is built through the client, with one activity of user-0 waiting for a policy's
 * consensus (the feed then works out whose vote counts, over every user) and a webhook endpoint
 * where nothing listens (its delivery attempts are recorded); then each JSON endpoint the page reads is timed
 * over HTTP (median of 5, after one warm-up; the access matrix's first answer, which loads the
 * prover, is reported on its own, then an uncached one after a policy change) with the response
 * size. Prints the figures; asserts nothing.
 *
 *   npm run build && node dist/scripts/bench-dashboard.js              # U=20 P=10 A=300
 *   npm run build && node dist/scripts/bench-dashboard.js 50 20 1000   # other sizes
 */
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { ApiKeyStamper } from "../sdk/protocol/api-key-stamper";
import { KeyformClient } from "../sdk/client/client";
import { generateApiKeyPair } from "../sdk/protocol/keys";
import { startEmulator } from "../sdk/emulator";

const API = "/_keyform/dashboard/api";
const KINDS = ["WALLET", "PRIVATE_KEY", "POLICY", "USER", "ORGANIZATION"];
const ACTIONS = ["CREATE", "UPDATE", "DELETE", "SIGN", "EXPORT"];

async function timed(url: string): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  const response = await fetch(url);
  const body = await response.arrayBuffer();
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return { ms: performance.now() - started, bytes: body.byteLength };
}

async function median(url: string, runs = 5): Promise<{ ms: number; bytes: number }> {
  await timed(url);
  const samples: { ms: number; bytes: number }[] = [];
  for (let i = 0; i < runs; i++) samples.push(await timed(url));
  samples.sort((a, b) => a.ms - b.ms);
  return samples[Math.floor(runs / 2)]!;
}

async function main(): Promise<void> {
  const [users = 20, policies = 10, activities = 300] = process.argv.slice(2).map(Number);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-bench-dashboard-"));
  // Retries far apart: the timed reads are not competing with a burst of failing deliveries.
  const emulator = await startEmulator({ port: 0, dataDir, logLevel: "silent", webhooks: { maxAttempts: 2, baseDelayMs: 60_000 } });
  try {
    const { bootstrap } = emulator;
    const client = new KeyformClient({
      baseUrl: emulator.url,
      organizationId: bootstrap.organizationId,
      stamper: new ApiKeyStamper({ apiPublicKey: bootstrap.apiPublicKey, apiPrivateKey: bootstrap.apiPrivateKey }),
      poll: { intervalMs: 20 },
    });
    const firstUserKey = generateApiKeyPair();
    // A port that was free a moment ago: nothing listens, every delivery attempt fails and is recorded.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const freePort = (probe.address() as net.AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    await client.createWebhookEndpoint({ url: `http://127.0.0.1:${freePort}/hook`, name: "nowhere", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] });
    const { userIds } = await client.createUsers({
      users: Array.from({ length: users }, (_, i) => ({
        userName: `user-${i}`,
        apiKeys: [{ apiKeyName: `user-${i}-key`, publicKey: (i === 0 ? firstUserKey : generateApiKeyPair()).publicKey, curveType: "API_KEY_CURVE_P256" as const }],
        authenticators: [],
        oauthProviders: [],
        userTags: [],
      })),
    });
    let made = 2;
    for (let i = 0; i < users; i++, made++) await client.createUserTag({ userTagName: `team-${i}`, userIds: [userIds[i]!] });
    for (let i = 0; i < policies; i++, made++) {
      const condition = `activity.resource == '${KINDS[i % KINDS.length]}' && activity.action == '${ACTIONS[Math.floor(i / KINDS.length) % ACTIONS.length]}'`;
      await client.createPolicy({ policyName: `policy-${i}`, effect: "EFFECT_ALLOW", condition, ...(i === 0 ? { consensus: "approvers.count() >= 2" } : {}), notes: "" });
    }
    for (; made < activities - 1; made++) await client.createUserTag({ userTagName: `filler-${made}`, userIds: [] });
    // policy-0 lets anyone create a wallet with two approvers: user-0's wallet waits for a second.
    const userZero = new KeyformClient({
      baseUrl: emulator.url,
      organizationId: bootstrap.organizationId,
      stamper: new ApiKeyStamper({ apiPublicKey: firstUserKey.publicKey, apiPrivateKey: firstUserKey.privateKey }),
      poll: { intervalMs: 20 },
    });
    const held = await userZero.submitActivity("createWallet", { walletName: "held", accounts: [] }, { allowIncomplete: true });
    if (held.status !== "ACTIVITY_STATUS_CONSENSUS_NEEDED") throw new Error(`user-0's wallet should wait for consensus, it is ${held.status}`);
    made++;

    const org = `${emulator.url}${API}/organizations/${bootstrap.organizationId}`;
    const rows: [string, { ms: number; bytes: number }][] = [];
    rows.push(["page (/)", await median(`${emulator.url}/`)]);
    rows.push(["organizations", await median(`${emulator.url}${API}/organizations`)]);
    rows.push(["objects", await median(`${org}/objects`)]);
    rows.push(["activities (newest 200, 1 waiting)", await median(`${org}/activities`)]);
    rows.push(["webhooks (with deliveries)", await median(`${org}/webhooks`)]);
    rows.push(["auth (allowlists, session profiles)", await median(`${org}/auth`)]);
    rows.push(["otp-outbox", await median(`${emulator.url}${API}/otp-outbox`)]);
    rows.push(["requests (the log, up to 500)", await median(`${emulator.url}${API}/requests`)]);
    rows.push(["access, first (loads the prover)", await timed(`${org}/access`)]);
    await client.createPolicy({ policyName: "one more", effect: "EFFECT_ALLOW", condition: "activity.resource == 'WALLET' && activity.action == 'EXPORT'", notes: "" });
    rows.push(["access, after a policy change", await timed(`${org}/access`)]);
    rows.push(["access, unchanged (cached)", await median(`${org}/access`)]);

    process.stdout.write(`dashboard endpoints: ${users} users, ${policies + 1} policies, ${made} activities (Node ${process.version}, ${os.cpus().length} cores)\n`);
    for (const [name, { ms, bytes }] of rows) {
      process.stdout.write(`  ${name.padEnd(36)} ${ms.toFixed(1).padStart(8)} ms ${(bytes / 1024).toFixed(1).padStart(8)} KiB\n`);
    }
  } finally {
    await emulator.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  // The prover's WebAssembly threads keep the process alive.
  process.exit(0);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
