/**
 * Authentication and input hardening: every kind of bad credential is refused with the right
 * status, and a few thousand malformed bodies across every registered operation produce no
 * server error.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { openDatabase, Store } from "../../sdk/emulator";
import type { OperationDef } from "../../sdk/wire/define";
import { operations } from "../../sdk/wire/registry";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { envelope, post, rootStamper } from "./raw";

let t: TestEmulator;
let url: string;
let orgId: string;
let root: ApiKeyStamper;

beforeAll(async () => {
  t = await startTestEmulator();
  url = t.emulator.url;
  orgId = t.emulator.bootstrap.organizationId;
  root = rootStamper(t.emulator.bootstrap);
});
afterAll(async () => {
  await t?.stop();
});

const WHOAMI = "/public/v1/query/whoami";

/** Adds an organization (optionally a sub-organization) with one user and key, straight in the store. */
function addOrganization(parentId: string | null) {
  const db = openDatabase(t.dataDir);
  try {
    const store = new Store(db);
    const pair = generateApiKeyPair();
    const ids = { organizationId: randomUUID(), userId: randomUUID() };
    const now = Date.now();
    db.transaction(() => {
      store.organizations.insert({ id: ids.organizationId, name: "other", parent_id: parentId, root_quorum_json: '{"threshold":1,"userIds":[]}', created_ms: now });
      store.users.insert({ id: ids.userId, org_id: ids.organizationId, name: "other-root", email: null, phone_number: null, created_ms: now, updated_ms: now });
      store.apiKeys.insert({
        id: randomUUID(),
        org_id: ids.organizationId,
        user_id: ids.userId,
        name: "k",
        public_key: pair.publicKey,
        credential_type: "CREDENTIAL_TYPE_API_KEY_P256",
        expiration_seconds: null,
        created_ms: now,
        updated_ms: now,
      });
    })();
    return { ...ids, stamper: new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }) };
  } finally {
    db.close();
  }
}

describe("authentication", () => {
  it("accepts the bootstrap key", async () => {
    expect((await post(url, WHOAMI, { organizationId: orgId }, root)).status).toBe(200);
  });

  it("refuses a request without a stamp (401 code 16)", async () => {
    const res = await post(url, WHOAMI, { organizationId: orgId }, null);
    expect(res).toMatchObject({ status: 401, body: { code: 16, details: [] } });
    expect(res.body.message).toMatch(/X-Stamp/);
  });

  it("answers a clear 401 for malformed WebAuthn stamps", async () => {
    const res = await post(url, WHOAMI, { organizationId: orgId }, null, { "X-Stamp-WebAuthn": "{}" });
    expect(res).toMatchObject({ status: 401, body: { code: 16 } });
    expect(res.body.message).toMatch(/X-Stamp-WebAuthn.*authenticatorData/);
  });

  it.each([
    ["garbage", "not-a-stamp!"],
    ["non-JSON base64url", Buffer.from("hello").toString("base64url")],
    ["JSON without fields", Buffer.from("{}").toString("base64url")],
    ["unknown scheme", Buffer.from(JSON.stringify({ publicKey: "02" + "11".repeat(32), scheme: "NOPE", signature: "3000" })).toString("base64url")],
    ["oversized", "A".repeat(10_000)],
  ])("refuses a malformed stamp: %s (401 code 16)", async (_label, value) => {
    const res = await post(url, WHOAMI, { organizationId: orgId }, null, { "X-Stamp": value });
    expect(res).toMatchObject({ status: 401, body: { code: 16 } });
  });

  it("refuses a stamp over another body (forged, 401)", async () => {
    const stamp = await root.stamp(JSON.stringify({ organizationId: orgId, other: 1 }));
    const res = await post(url, WHOAMI, { organizationId: orgId }, null, { [stamp.name]: stamp.value });
    expect(res).toMatchObject({ status: 401, body: { code: 16 } });
    expect(res.body.message).toMatch(/signature/i);
  });

  it("refuses a valid stamp of an unknown key (401, as the service words it)", async () => {
    const pair = generateApiKeyPair();
    const stranger = new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey });
    const res = await post(url, WHOAMI, { organizationId: orgId }, stranger);
    expect(res).toMatchObject({ status: 401, body: { code: 16 } });
    expect(res.body.message).toContain("could not find public key in organization or its parent organization");
  });

  it("refuses an expired API key (401) and accepts it before expiry", async () => {
    const pair = generateApiKeyPair();
    const created = await t.client.createApiKeys({
      userId: t.emulator.bootstrap.userId,
      apiKeys: [{ apiKeyName: "short-lived", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256", expirationSeconds: "2" }],
    });
    const stamper = new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey });
    const { apiKey } = await t.client.getApiKey({ apiKeyId: created.apiKeyIds[0]! });
    const expiresAt = (Number(apiKey.createdAt.seconds) + 2) * 1000;
    if (Date.now() < expiresAt - 200) expect((await post(url, WHOAMI, { organizationId: orgId }, stamper)).status).toBe(200);
    await new Promise((r) => setTimeout(r, Math.max(0, expiresAt - Date.now() + 50)));
    const res = await post(url, WHOAMI, { organizationId: orgId }, stamper);
    expect(res).toMatchObject({ status: 401, body: { code: 16 } });
    expect(res.body.message).toMatch(/expired/);
  });

  it("refuses stale and future activity timestamps (400 code 3 naming timestampMs)", async () => {
    // The documented window is ±5 minutes: written out, so a changed constant fails here.
    const minute = 60_000;
    for (const offset of [-6 * minute, 6 * minute]) {
      const body = envelope("ACTIVITY_TYPE_CREATE_USER_TAG", orgId, { userTagName: `ts-${offset}`, userIds: [] }, Date.now() + offset);
      const res = await post(url, "/public/v1/submit/create_user_tag", body, root);
      expect(res).toMatchObject({ status: 400, body: { code: 3 } });
      expect(res.body.message).toMatch(/^timestampMs: /);
    }
    // Inside the window is fine.
    const ok = envelope("ACTIVITY_TYPE_CREATE_USER_TAG", orgId, { userTagName: "ts-ok", userIds: [] }, Date.now() - 4 * minute);
    expect((await post(url, "/public/v1/submit/create_user_tag", ok, root)).status).toBe(200);
  });

  it("refuses acting on another organization (403 code 7); the parent organization's keys read but do not change", async () => {
    const other = addOrganization(null);
    // The other organization's key on our organization, and ours on theirs.
    let res = await post(url, WHOAMI, { organizationId: orgId }, other.stamper);
    expect(res).toMatchObject({ status: 403, body: { code: 7 } });
    res = await post(url, "/public/v1/submit/create_user_tag", envelope("ACTIVITY_TYPE_CREATE_USER_TAG", other.organizationId, { userTagName: "x", userIds: [] }), root);
    expect(res).toMatchObject({ status: 403, body: { code: 7 } });
    // Nothing was written to the other organization.
    res = await post(url, "/public/v1/query/list_user_tags", { organizationId: other.organizationId }, other.stamper);
    expect(res).toMatchObject({ status: 200, body: { userTags: [] } });

    // A sub-organization of ours: our key may read it but not change it (the service's rule),
    // its key may not act in ours.
    const sub = addOrganization(orgId);
    res = await post(url, "/public/v1/submit/create_user_tag", envelope("ACTIVITY_TYPE_CREATE_USER_TAG", sub.organizationId, { userTagName: "from-parent", userIds: [] }), root);
    expect(res).toMatchObject({ status: 403, body: { code: 7 } });
    expect(res.body.message).toMatch(/^organizationId: the API key belongs to the parent organization .* may read sub-organization .* but not change it/);
    res = await post(url, "/public/v1/query/list_user_tags", { organizationId: sub.organizationId }, root);
    expect(res).toMatchObject({ status: 200, body: { userTags: [] } });
    res = await post(url, WHOAMI, { organizationId: orgId }, sub.stamper);
    expect(res).toMatchObject({ status: 403, body: { code: 7 } });
  });

  it("names: only Unicode NFC, at most 256 characters, refused naming the field; expirationSeconds of 0 or below refused", async () => {
    const submit = async (path: string, type: string, parameters: Record<string, unknown>) =>
      post(url, `/public/v1/submit/${path}`, envelope(type, orgId, parameters), root);
    const decomposed = "cafe\u0301"; // "café" with a combining accent
    let res = await submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", { userTagName: decomposed, userIds: [] });
    expect(res).toMatchObject({ status: 400, body: { code: 3 } });
    expect(res.body.message).toMatch(/^userTagName: must be in Unicode normalization form NFC/);
    res = await submit("create_policy", "ACTIVITY_TYPE_CREATE_POLICY_V3", { policyName: "p".repeat(257), effect: "EFFECT_DENY", notes: "" });
    expect(res).toMatchObject({ status: 400, body: { code: 3 } });
    expect(res.body.message).toBe("policyName: must be at most 256 characters, got 257");
    // The composed spelling is accepted, and then taken: the decomposed one cannot sneak in beside it.
    res = await submit("create_user_tag", "ACTIVITY_TYPE_CREATE_USER_TAG", { userTagName: decomposed.normalize("NFC"), userIds: [] });
    expect(res.status).toBe(200);
    const key = generateApiKeyPair();
    for (const expirationSeconds of ["0"]) {
      res = await submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", {
        userId: t.emulator.bootstrap.userId,
        apiKeys: [{ apiKeyName: "short-lived", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256", expirationSeconds }],
      });
      expect(res).toMatchObject({ status: 400, body: { code: 3 } });
      expect(res.body.message).toBe("apiKeys[0].expirationSeconds: must be at least 1 (seconds), got 0");
    }
  });

  it("answers 404 for an organization that does not exist and 400 without organizationId", async () => {
    expect(await post(url, WHOAMI, { organizationId: randomUUID() }, root)).toMatchObject({ status: 404, body: { code: 5 } });
    const res = await post(url, WHOAMI, {}, root);
    expect(res).toMatchObject({ status: 400, body: { code: 3 } });
    expect(res.body.message).toMatch(/^organizationId/);
  });
});

describe("input hardening", () => {
  it("names the offending field of an invalid body (400 code 3)", async () => {
    const res = await post(url, "/public/v1/submit/create_user_tag", envelope("ACTIVITY_TYPE_CREATE_USER_TAG", orgId, { userIds: [] }), root);
    expect(res).toMatchObject({ status: 400, body: { code: 3, details: [] } });
    expect(res.body.message).toContain("parameters.userTagName");
    const wrongType = await post(url, "/public/v1/submit/create_user_tag", envelope("ACTIVITY_TYPE_CREATE_POLICY_V3", orgId, { userTagName: "a", userIds: [] }), root);
    expect(wrongType.body.message).toMatch(/^type: /);
  });

  it.each([
    ["invalid JSON", "{nope"],
    ["a JSON array", "[1,2]"],
    ["a JSON string", '"hello"'],
    ["null", "null"],
    ["an empty body", ""],
    ["invalid UTF-8", Buffer.from([0x7b, 0xff, 0x7d]).toString("latin1")],
  ])("refuses %s with 400", async (_label, body) => {
    const res = await post(url, WHOAMI, body, root);
    expect(res).toMatchObject({ status: 400, body: { code: 3 } });
  });

  it("accepts other content types but still parses the body as JSON", async () => {
    const text = JSON.stringify({ organizationId: orgId });
    const stamp = await root.stamp(text);
    const res = await fetch(url + WHOAMI, { method: "POST", headers: { "content-type": "text/plain", [stamp.name]: stamp.value }, body: text });
    expect(res.status).toBe(200);
  });

  it("refuses unknown operations (404) and oversized bodies (413)", async () => {
    expect(await post(url, "/public/v1/query/no_such_thing", { organizationId: orgId }, root)).toMatchObject({ status: 404, body: { code: 5 } });
    expect(await post(url, "/public/v1/other/whoami", { organizationId: orgId }, root)).toMatchObject({ status: 404, body: { code: 5 } });
    expect(await post(url, "/v1/no_such_thing", {}, null)).toMatchObject({ status: 404, body: { code: 5 } });
    const get = await fetch(url + WHOAMI);
    expect(get.status).toBe(404);
    const huge = JSON.stringify({ organizationId: orgId, pad: "x".repeat(3 * 1024 * 1024) });
    const res = await post(url, WHOAMI, huge, null);
    expect(res).toMatchObject({ status: 413, body: { code: 3 } });
  });

  it("tolerates the double slash of a base URL with a trailing slash", async () => {
    expect((await post(url, "/" + WHOAMI, { organizationId: orgId }, root)).status).toBe(200);
  });

  it("fuzz: thousands of malformed bodies across every operation cause no server error", async () => {
    // Deterministic pseudo-random numbers (a failure is reproducible).
    let seed = 0x2545f491;
    const rand = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 0x1_0000_0000;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
    const FIELDS = ["userIds", "userTagName", "userTagId", "policyName", "effect", "notes", "apiKeys", "userId", "publicKey",
      "curveType", "expirationSeconds", "invitations", "wrapperAddress", "depositsDisabled", "paginationOptions", "limit",
      "smartContractInterface", "type", "users", "walletId", "accounts", "fingerprint", "activityId", "policyId", "userTagIds"];
    const junk = (depth = 0): unknown =>
      pick<() => unknown>([
        () => null,
        () => true,
        () => 1e308,
        () => -1,
        () => 2 ** 64,
        () => "",
        () => "x".repeat(Math.floor(rand() * 200_000)),
        () => "😀\u0000\ud800",
        () => randomUUID(),
        () => "ACTIVITY_TYPE_CREATE_USER_TAG",
        () => (depth > 2 ? [] : [junk(depth + 1), junk(depth + 1)]),
        () => (depth > 2 ? {} : { [pick(FIELDS)]: junk(depth + 1), __proto__x: 1 }),
        () => ({ ["__proto__"]: { polluted: true } }),
      ])();
    const pub = generateApiKeyPair().publicKey;
    const uid = t.emulator.bootstrap.userId;
    // Valid parameters of the emulated activities, so that mutations also reach the handlers.
    const SAMPLES: Record<string, () => Record<string, unknown>> = {
      create_user_tag: () => ({ userTagName: `f-${randomUUID()}`, userIds: [uid] }),
      update_user_tag: () => ({ userTagId: randomUUID(), addUserIds: [uid], removeUserIds: [] }),
      delete_user_tags: () => ({ userTagIds: [randomUUID()] }),
      create_policy: () => ({ policyName: `f-${randomUUID()}`, effect: "EFFECT_ALLOW", notes: "" }),
      update_policy: () => ({ policyId: randomUUID(), policyName: "p" }),
      create_api_keys: () => ({ userId: uid, apiKeys: [{ apiKeyName: `f-${randomUUID()}`, publicKey: pub, curveType: "API_KEY_CURVE_P256" }] }),
      create_users: () => ({ users: [{ userName: `f-${randomUUID()}`, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }] }),
      update_user: () => ({ userId: uid, userTagIds: [] }),
      create_invitations: () => ({
        invitations: [{ receiverUserName: "r", receiverUserEmail: "r@example.com", receiverUserTags: [], accessType: "ACCESS_TYPE_WEB", senderUserId: uid }],
      }),
      create_smart_contract_interface: () => ({ smartContractAddress: `0x${randomUUID()}`, smartContractInterface: "[]", type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM", label: "l" }),
      earn_deploy_wrapper: () => ({ vaultAddress: "0x" + "1".repeat(40), chainCaip2: "eip155:1", clientFeeBps: "1", clientFeeWallet: "0x" + "2".repeat(40) }),
      earn_set_wrapper_state: () => ({ wrapperAddress: "0x" + "3".repeat(40), depositsDisabled: true }),
    };
    // A valid set_ip_allowlist may lawfully lock the caller out (as on the service), which would
    // hide every later answer behind a 403.
    const defs = Object.values(operations as Record<string, OperationDef>).filter((def) => def.name !== "set_ip_allowlist");
    const bodies: { path: string; body: string }[] = [];
    for (const def of defs) {
      for (let i = 0; i < 50; i++) {
        const sample = SAMPLES[def.name];
        const base: Record<string, unknown> =
          def.kind === "activity"
            ? envelope(def.type, orgId, sample && rand() < 0.6 ? sample() : {})
            : def.kind === "query"
              ? { organizationId: orgId }
              : {};
        const target: Record<string, unknown> = def.kind === "activity" ? (base.parameters as Record<string, unknown>) : base;
        const mutations = 1 + Math.floor(rand() * 4);
        for (let m = 0; m < mutations; m++) {
          const choice = rand();
          if (choice < 0.6) target[pick(FIELDS)] = junk();
          else if (choice < 0.8) base[pick(["type", "timestampMs", "organizationId", "parameters", "generateAppProofs"])] = junk();
          else delete base[pick(Object.keys(base).concat("x"))];
        }
        let body = JSON.stringify(base);
        if (rand() < 0.1) body = body.slice(0, Math.floor(rand() * body.length)); // truncated JSON
        bodies.push({ path: def.path, body });
      }
    }
    expect(bodies.length).toBeGreaterThan(2000);

    const failures: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < bodies.length) {
        const { path, body } = bodies[next++]!;
        const res = await post(url, path, body, root);
        const ok = res.status < 500 || (res.status === 501 && res.body?.code === 12);
        if (!ok || typeof res.body !== "object" || typeof res.body.code !== "number" && res.status !== 200) {
          failures.push(`${path} -> ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(failures).toEqual([]);

    // Still healthy and serving.
    expect((await fetch(url + "/health")).status).toBe(200);
    const w = await post(url, WHOAMI, { organizationId: orgId }, root);
    expect(w.status, JSON.stringify(w.body)).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 240_000);
});
