/**
 * Bootstrap, restart and storage settings of startEmulator.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import Database from "better-sqlite3";
import { p256 } from "@noble/curves/p256";
import { afterAll, describe, expect, it, vi } from "vitest";
import { BOOTSTRAP_FILE, DATABASE_FILE, startEmulator } from "../../sdk/emulator";
import { startTestEmulator } from "../support/emulator";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe("startEmulator", () => {
  it("bootstraps once, writes bootstrap.json (0600) and reuses the data on restart", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-lifecycle-"));
    dirs.push(dataDir);
    const first = await startTestEmulator({ dataDir });
    const file = path.join(dataDir, BOOTSTRAP_FILE);
    const written = JSON.parse(fs.readFileSync(file, "utf8"));
    expect(written).toEqual(first.emulator.bootstrap);
    expect(Object.keys(written).sort()).toEqual(
      ["apiPrivateKey", "apiPublicKey", "authProxyConfigId", "authProxyUrl", "baseUrl", "organizationId", "signerPublicKey", "userId"].sort(),
    );
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(dataDir, DATABASE_FILE)).mode & 0o077).toBe(0);
    expect(first.emulator.port).toBeGreaterThan(0);
    expect(first.emulator.url).toBe(`http://127.0.0.1:${first.emulator.port}`);
    expect(written.baseUrl).toBe(first.emulator.url);
    expect(written.authProxyUrl).toBe(first.emulator.url);
    // The signer key is an uncompressed P-256 point.
    expect(written.signerPublicKey).toMatch(/^04[0-9a-f]{128}$/);
    expect(() => p256.ProjectivePoint.fromHex(written.signerPublicKey).assertValidity()).not.toThrow();

    const { userTagId } = await first.client.createUserTag({ userTagName: "survives", userIds: [] });
    await first.stop();

    const second = await startTestEmulator({ dataDir });
    try {
      const { baseUrl: _a, authProxyUrl: _b, ...stable } = second.emulator.bootstrap;
      const { baseUrl: _c, authProxyUrl: _d, ...before } = written;
      expect(stable).toEqual(before);
      expect((await second.client.listUserTags()).userTags.map((tag) => tag.tagId)).toEqual([userTagId]);
      const health = await fetch(second.emulator.url + "/health");
      expect(await health.json()).toEqual({ status: "ok" });
    } finally {
      await second.stop();
    }

    const db = new Database(path.join(dataDir, DATABASE_FILE), { readonly: true });
    try {
      expect(db.pragma("user_version", { simple: true })).toBe(2); // v2 added consensus (votes, pending requests)
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    } finally {
      db.close();
    }
  });

  it("serves the auth proxy on the same port", async () => {
    const t = await startTestEmulator();
    try {
      expect(t.emulator.authProxyUrl).toBe(t.emulator.url);
      const res = await fetch(`${t.emulator.authProxyUrl}/v1/no_such_operation`, { method: "POST", body: "{}" });
      expect(res.status).toBe(404);
    } finally {
      await t.stop();
    }
  });

  it("close() is idempotent and frees the port", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-lifecycle-"));
    dirs.push(dataDir);
    const emulator = await startEmulator({ dataDir, logLevel: "silent" });
    await Promise.all([emulator.close(), emulator.close()]);
    await expect(fetch(emulator.url + "/health")).rejects.toThrow();
    const again = await startEmulator({ dataDir, port: emulator.port, logLevel: "silent" });
    expect(again.port).toBe(emulator.port);
    await again.close();
  });

  it("serves from a connection in WAL mode with synchronous=FULL (a commit is on disk before its answer)", async () => {
    // The connection the server writes with is the one to ask: the setting is per connection,
    // and a kill -9 alone cannot tell FULL from OFF (the OS keeps what the process wrote).
    const connections = new Set<Database.Database>();
    const pragma = Database.prototype.pragma;
    const seen = vi.spyOn(Database.prototype, "pragma").mockImplementation(function (this: Database.Database, ...args: Parameters<typeof pragma>) {
      connections.add(this);
      return pragma.apply(this, args);
    });
    const t = await startTestEmulator();
    seen.mockRestore();
    try {
      await t.client.createUserTag({ userTagName: "written", userIds: [] });
      const live = [...connections].filter((db) => db.open);
      expect(live).toHaveLength(1);
      expect(live[0]!.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(live[0]!.pragma("synchronous", { simple: true })).toBe(2); // 2 = FULL (0 OFF, 1 NORMAL, 3 EXTRA)
    } finally {
      await t.stop();
    }
  });
});
