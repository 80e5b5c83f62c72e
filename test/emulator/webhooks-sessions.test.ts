/**
 * Webhook endpoints and event delivery (a receiver started in the test gets ACTIVITY_UPDATES
 * events, verifies their signature with the exported helper, and sees a retry after it
 * answered 500 once), plus session profiles, over real HTTP.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyformClient } from "../../sdk/client/client";
import { verifyWebhookSignature } from "../../sdk/client";
import type { RunningEmulator } from "../../sdk/emulator";
import { startTestEmulator } from "../support/emulator";
import { envelope, post, rootStamper } from "./raw";

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  status: number;
}

/** A webhook receiver that answers `plan()` (default 200) and records every request. */
class Receiver {
  readonly requests: Received[] = [];
  plan: (n: number) => number = () => 200;
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const status = this.plan(this.requests.length + 1);
      this.requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), status });
      res.writeHead(status).end();
    });
  });
  url = "";

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  async waitFor(predicate: (r: Received[]) => boolean, timeoutMs = 5000): Promise<void> {
    const start = Date.now();
    while (!predicate(this.requests)) {
      if (Date.now() - start > timeoutMs) throw new Error(`timed out; received ${this.requests.length} requests`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

const receiver = new Receiver();
let emu: RunningEmulator;
let client: KeyformClient;
let orgId: string;
let stopEmulator: () => Promise<void>;

beforeAll(async () => {
  await receiver.start();
  ({ emulator: emu, client, stop: stopEmulator } = await startTestEmulator({ webhooks: { baseDelayMs: 50, maxDelayMs: 200, maxAttempts: 3, timeoutMs: 2000 } }));
  orgId = emu.bootstrap.organizationId;
});
afterAll(async () => {
  await stopEmulator?.();
  await receiver.close();
});

const submit = (type: string, name: string, parameters: unknown) =>
  post(emu.url, `/public/v1/submit/${name}`, envelope(type, orgId, parameters), rootStamper(emu.bootstrap));

describe("webhook endpoints", () => {
  let endpointId: string;

  it("creates, lists, updates and deletes endpoints", async () => {
    const created = await client.createWebhookEndpoint({
      url: "http://127.0.0.1:9/unused",
      name: "unused",
      subscriptions: [{ eventType: "BALANCE_CONFIRMED_UPDATES", filtersJson: '{"caip2":"eip155:1"}' }],
    });
    expect(created.webhookEndpoint).toMatchObject({
      endpointId: created.endpointId,
      organizationId: orgId,
      url: "http://127.0.0.1:9/unused",
      name: "unused",
      isActive: true,
      subscriptions: [{ eventType: "BALANCE_CONFIRMED_UPDATES", filtersJson: '{"caip2":"eip155:1"}', isActive: true }],
    });
    const updated = await client.updateWebhookEndpoint({ endpointId: created.endpointId, name: "renamed", isActive: false });
    expect(updated.webhookEndpoint).toMatchObject({ name: "renamed", isActive: false, url: "http://127.0.0.1:9/unused" });
    expect(updated.webhookEndpoint.subscriptions).toHaveLength(1);
    const { webhookEndpoints } = await client.listWebhookEndpoints({});
    expect(webhookEndpoints.find((e) => e.endpointId === created.endpointId)?.name).toBe("renamed");
    expect(await client.deleteWebhookEndpoint({ endpointId: created.endpointId })).toEqual({ endpointId: created.endpointId });
    expect((await client.listWebhookEndpoints({})).webhookEndpoints.map((e) => e.endpointId)).not.toContain(created.endpointId);
    const again = await submit("ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT", "delete_webhook_endpoint", { endpointId: created.endpointId });
    expect(again).toMatchObject({ status: 404, body: { code: 5 } });
    expect(again.body.message).toMatch(/^endpointId: /);
    const badUrl = await submit("ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT", "create_webhook_endpoint", { url: "ftp://x", name: "bad" });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.message).toMatch(/url/);
  });

  it("delivers signed ACTIVITY_UPDATES events after commit, and retries after a 500", async () => {
    ({ endpointId } = await client.createWebhookEndpoint({
      url: receiver.url,
      name: "receiver",
      subscriptions: [{ eventType: "ACTIVITY_UPDATES" }],
    }));
    // The endpoint's own creation is already an event; wait for it, then fail the next one once.
    await receiver.waitFor((r) => r.length >= 1);
    const firstCount = receiver.requests.length;
    receiver.plan = (n) => (n === firstCount + 1 ? 500 : 200);
    const activity = await client.submitActivity("createUserTag", { userTagName: "webhook-tag", userIds: [] });
    await receiver.waitFor((r) => r.length >= firstCount + 2);

    const [failed, retried] = receiver.requests.slice(firstCount) as [Received, Received];
    expect(failed.status).toBe(500);
    expect(retried.status).toBe(200);
    expect(retried.body).toBe(failed.body);
    expect(failed.headers["x-keyform-delivery-attempt"]).toBe("1");
    expect(retried.headers["x-keyform-delivery-attempt"]).toBe("2");
    expect(retried.headers["x-keyform-event-id"]).toBe(failed.headers["x-keyform-event-id"]);
    const event = JSON.parse(retried.body);
    expect(event).toMatchObject({
      eventType: "ACTIVITY_UPDATES",
      organizationId: orgId,
      endpointId,
      data: { activity: { id: activity.id, type: "ACTIVITY_TYPE_CREATE_USER_TAG", status: "ACTIVITY_STATUS_COMPLETED", fingerprint: activity.fingerprint } },
    });
    for (const delivery of [failed, retried]) {
      const signature = delivery.headers["x-keyform-signature"] as string;
      const timestamp = delivery.headers["x-keyform-timestamp"] as string;
      expect(verifyWebhookSignature({ body: delivery.body, timestamp, signature, signerPublicKey: emu.bootstrap.signerPublicKey })).toBe(true);
      // Any change to body, timestamp or key breaks it.
      expect(verifyWebhookSignature({ body: delivery.body.replace("COMPLETED", "FAILED"), timestamp, signature, signerPublicKey: emu.bootstrap.signerPublicKey })).toBe(false);
      expect(verifyWebhookSignature({ body: delivery.body, timestamp: String(Number(timestamp) + 1), signature, signerPublicKey: emu.bootstrap.signerPublicKey })).toBe(false);
      expect(verifyWebhookSignature({ body: delivery.body, timestamp, signature, signerPublicKey: emu.bootstrap.apiPublicKey })).toBe(false);
    }
    expect(verifyWebhookSignature({ body: retried.body, timestamp: retried.headers["x-keyform-timestamp"] as string, signature: retried.headers["x-keyform-signature"] as string, signerPublicKey: emu.bootstrap.signerPublicKey, nowMs: Date.now() + 10 * 60_000 })).toBe(false);
  });

  it("gives up after maxAttempts, and sends nothing for refused activities or inactive endpoints", async () => {
    let count = receiver.requests.length;
    receiver.plan = () => 503;
    await client.createUserTag({ userTagName: "always-failing", userIds: [] });
    await receiver.waitFor((r) => r.length >= count + 3);
    await new Promise((r) => setTimeout(r, 400));
    expect(receiver.requests.length).toBe(count + 3);

    receiver.plan = () => 200;
    count = receiver.requests.length;
    const refused = await submit("ACTIVITY_TYPE_CREATE_USER_TAG", "create_user_tag", { userTagName: "webhook-tag", userIds: [] });
    expect(refused.status).toBe(409);
    // Endpoints are read after the commit, so the deactivation itself is not delivered either.
    await client.updateWebhookEndpoint({ endpointId, isActive: false });
    await client.createUserTag({ userTagName: "while-inactive", userIds: [] });
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests.length).toBe(count);
  });

  it("applies a subscription filter on type and status", async () => {
    await client.createWebhookEndpoint({
      url: receiver.url,
      name: "filtered",
      subscriptions: [{ eventType: "ACTIVITY_UPDATES", filtersJson: JSON.stringify({ type: ["ACTIVITY_TYPE_CREATE_POLICY_V3"] }) }],
    });
    const count = receiver.requests.length;
    await client.createUserTag({ userTagName: "not-a-policy", userIds: [] });
    await client.createPolicy({ policyName: "filtered-policy", effect: "EFFECT_ALLOW", notes: "" });
    await receiver.waitFor((r) => r.length >= count + 1);
    await new Promise((r) => setTimeout(r, 300));
    const delivered = receiver.requests.slice(count).map((r) => JSON.parse(r.body).data.activity.type);
    expect(delivered).toEqual(["ACTIVITY_TYPE_CREATE_POLICY_V3"]);
  });
});

describe("session profiles", () => {
  it("creates, gets and lists profiles; names are unique; missing ids are 404", async () => {
    const { sessionProfileId } = await client.createSessionProfile({ sessionProfileName: "read-only", scope: "read", expirationSeconds: "900", notes: "dashboards" });
    const { sessionProfile } = await client.getSessionProfile({ sessionProfileId });
    expect(sessionProfile).toMatchObject({ sessionProfileId, sessionProfileName: "read-only", scope: "read", expirationSeconds: "900", notes: "dashboards" });
    expect(sessionProfile.createdAt.seconds).toMatch(/^\d+$/);
    await client.createSessionProfile({ sessionProfileName: "bare", scope: "all" });
    const { sessionProfiles } = await client.getSessionProfiles({});
    expect(sessionProfiles.map((p) => p.sessionProfileName)).toEqual(["read-only", "bare"]);
    expect(sessionProfiles[1]?.expirationSeconds).toBeUndefined();
    const dup = await submit("ACTIVITY_TYPE_CREATE_SESSION_PROFILE", "create_session_profile", { sessionProfileName: "bare", scope: "all" });
    expect(dup).toMatchObject({ status: 409, body: { code: 6 } });
    const missing = await post(emu.url, "/public/v1/query/get_session_profile", { organizationId: orgId, sessionProfileId: "nope" }, rootStamper(emu.bootstrap));
    expect(missing).toMatchObject({ status: 404, body: { code: 5 } });
    expect(missing.body.message).toMatch(/^sessionProfileId: /);
  });
});
