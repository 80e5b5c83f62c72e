/**
 * IP allowlists over real HTTP (loopback requests come from 127.0.0.1): organization-level
 * and per-API-key allowlists set through the emulator's configuration, 403 code 7 naming the
 * address, the per-key → organization fallback, remove_ip_allowlist (spec 4.4), and
 * persistence across restarts.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { startEmulator, type RunningEmulator } from "../../sdk/emulator";
import type { IpAllowlistConfig } from "../../sdk/emulator/handlers/ip-allowlists";
import { ipAllowed, ipRuleProblem } from "../../sdk/emulator/store/ip-allowlists";
import { envelope, post } from "./raw";

let dataDir: string;
let emu: RunningEmulator | undefined;
const second = generateApiKeyPair();

async function restart(ipAllowlists?: readonly IpAllowlistConfig[]): Promise<RunningEmulator> {
  await emu?.close();
  emu = await startEmulator({ port: 0, dataDir, logLevel: "silent", ...(ipAllowlists ? { ipAllowlists } : {}) });
  return emu;
}

function stamper(which: "root" | "second"): ApiKeyStamper {
  const b = emu!.bootstrap;
  return which === "root"
    ? new ApiKeyStamper({ apiPublicKey: b.apiPublicKey, apiPrivateKey: b.apiPrivateKey })
    : new ApiKeyStamper({ apiPublicKey: second.publicKey, apiPrivateKey: second.privateKey });
}

const whoami = (which: "root" | "second") =>
  post(emu!.url, "/public/v1/query/whoami", { organizationId: emu!.bootstrap.organizationId }, stamper(which));
const removeAllowlist = (which: "root" | "second", parameters: Record<string, unknown>) =>
  post(emu!.url, "/public/v1/submit/remove_ip_allowlist", envelope("ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST", emu!.bootstrap.organizationId, parameters), stamper(which));

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-ip-"));
  const first = await restart();
  const res = await post(
    first.url,
    "/public/v1/submit/create_api_keys",
    envelope("ACTIVITY_TYPE_CREATE_API_KEYS_V2", first.bootstrap.organizationId, {
      userId: first.bootstrap.userId,
      apiKeys: [{ apiKeyName: "second", publicKey: second.publicKey, curveType: "API_KEY_CURVE_P256" }],
    }),
    stamper("root"),
  );
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await emu?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("IP allowlists", () => {
  it("with no allowlist accepts every address", async () => {
    expect((await whoami("root")).status).toBe(200);
    const none = await removeAllowlist("root", {});
    expect(none).toMatchObject({ status: 404, body: { code: 5 } });
  });

  it("refuses an address outside the organization's allowlist with 403 code 7 naming it, and keeps it across restarts", async () => {
    await restart([{ allow: ["10.0.0.0/8", "192.168.1.7"] }]);
    for (const which of ["root", "second"] as const) {
      const res = await whoami(which);
      expect(res).toMatchObject({ status: 403, body: { code: 7 } });
      expect(res.body.message).toMatch(/127\.0\.0\.1/);
    }
    // The activity is refused before anything runs: nothing is recorded.
    expect((await removeAllowlist("root", {})).status).toBe(403);
    await restart();
    expect((await whoami("root")).status).toBe(403);
  });

  it("lets a key's own allowlist override the organization's, and falls back once it is removed", async () => {
    // The bootstrap key is the same at every start of a data directory.
    await restart([{ allow: ["10.0.0.0/8"] }, { publicKey: emu!.bootstrap.apiPublicKey, allow: ["127.0.0.0/24"] }]);
    expect((await whoami("root")).status).toBe(200);
    expect((await whoami("second")).status).toBe(403);
    const unknownKey = await removeAllowlist("root", { publicKey: second.publicKey });
    expect(unknownKey).toMatchObject({ status: 404, body: { code: 5 } });
    expect(unknownKey.body.message).toMatch(/^publicKey: .*no IP allowlist of its own/);
    expect((await removeAllowlist("root", { publicKey: emu!.bootstrap.apiPublicKey })).status).toBe(200);
    const after = await whoami("root");
    expect(after).toMatchObject({ status: 403, body: { code: 7 } });
    expect(after.body.message).toMatch(/organization/);
  });

  it("a per-key allowlist that excludes the caller refuses it even when the organization allows it", async () => {
    await restart([{ allow: ["127.0.0.1"] }, { publicKey: second.publicKey, allow: ["203.0.113.0/24"] }]);
    expect((await whoami("root")).status).toBe(200);
    const refused = await whoami("second");
    expect(refused).toMatchObject({ status: 403, body: { code: 7 } });
    expect(refused.body.message).toMatch(/127\.0\.0\.1.*API key/);
    expect((await removeAllowlist("root", { publicKey: second.publicKey })).status).toBe(200);
    expect((await whoami("second")).status).toBe(200);
  });

  it("remove_ip_allowlist without publicKey removes the organization's allowlist: every address is accepted", async () => {
    await restart([{ allow: ["127.0.0.0/8", "::1"] }]);
    expect((await whoami("second")).status).toBe(200);
    const removed = await removeAllowlist("root", {});
    expect(removed.status).toBe(200);
    expect(removed.body.activity.result).toEqual({ removeIpAllowlistResult: {} });
    await restart();
    expect((await whoami("second")).status).toBe(200);
    expect((await removeAllowlist("root", { publicKey: "" })).status).toBe(400);
  });

  it("refuses an invalid configuration at start, naming the entry", async () => {
    await emu?.close();
    emu = undefined;
    await expect(startEmulator({ port: 0, dataDir, logLevel: "silent", ipAllowlists: [{ allow: ["10.0.0.0/33"] }] })).rejects.toThrow(
      /ipAllowlists\[0\]\.allow\[0\]/,
    );
    await expect(startEmulator({ port: 0, dataDir, logLevel: "silent", ipAllowlists: [{ allow: ["localhost"] }] })).rejects.toThrow(/not an IP address/);
    await restart([]);
    expect((await whoami("root")).status).toBe(200);
  });

  it("matches exact addresses, CIDR blocks and IPv4-mapped IPv6", () => {
    expect(ipAllowed(["127.0.0.1"], "127.0.0.1")).toBe(true);
    expect(ipAllowed(["127.0.0.1"], "127.0.0.2")).toBe(false);
    expect(ipAllowed(["10.0.0.0/8"], "10.255.1.1")).toBe(true);
    expect(ipAllowed(["10.0.0.0/8"], "11.0.0.1")).toBe(false);
    expect(ipAllowed(["127.0.0.1"], "::ffff:127.0.0.1")).toBe(true);
    expect(ipAllowed(["fd00::/8"], "fd12::1")).toBe(true);
    expect(ipAllowed(["fd00::/8"], "fe80::1")).toBe(false);
    expect(ipRuleProblem("1.2.3.4/24/1")).toBeDefined();
    expect(ipRuleProblem("::1/129")).toBeDefined();
  });
});
