/**
 * Durability: the compiled CLI (`node dist/sdk/cli/main.js serve`) is SIGKILLed while
 * activities stream at it; after a restart on the same data directory every acknowledged
 * activity and its objects are there, and no object exists without its activity (nothing
 * half-applied). Needs `npx tsc -p .` first (the test command builds dist/).
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { KeyformClient } from "../../sdk/client/client";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import type { Bootstrap } from "../../sdk/emulator";

const CLI = path.resolve(__dirname, "../../dist/sdk/cli/main.js");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-durability-"));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Starts the CLI and resolves with its URL once it prints the listening line. */
function serve(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--data", dataDir, "--log-level", "silent"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve({ child, url: match[1]! });
    });
    child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("exit", (code) => reject(new Error(`emulator exited (${code}) before listening: ${err}`)));
  });
}

function clientOf(url: string): KeyformClient {
  const bootstrap = JSON.parse(fs.readFileSync(path.join(dataDir, "bootstrap.json"), "utf8")) as Bootstrap;
  return new KeyformClient({
    baseUrl: url,
    organizationId: bootstrap.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: bootstrap.apiPublicKey, apiPrivateKey: bootstrap.apiPrivateKey }),
    retry: { maxRetries: 0 },
    poll: { intervalMs: 20 },
  });
}

interface Acked {
  activityId: string;
  kind: "tag" | "user";
  objectId: string;
  name: string;
}

/** Streams activities from `workers` concurrent loops until the process dies. */
async function stream(client: KeyformClient, round: number, workers: number, acked: Acked[]): Promise<void> {
  let n = 0;
  const loop = async () => {
    for (;;) {
      const i = n++;
      const name = `dur-${round}-${i}`;
      try {
        if (i % 2 === 0) {
          const a = await client.submitActivity("createUserTag", { userTagName: name, userIds: [] });
          acked.push({ activityId: a.id, kind: "tag", objectId: (a.result.createUserTagResult as { userTagId: string }).userTagId, name });
        } else {
          const pair = generateApiKeyPair();
          const a = await client.submitActivity("createUsers", {
            users: [{ userName: name, apiKeys: [{ apiKeyName: "k", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
          });
          acked.push({ activityId: a.id, kind: "user", objectId: (a.result.createUsersResult as { userIds: string[] }).userIds[0]!, name });
        }
      } catch {
        return; // the server died under us
      }
    }
  };
  await Promise.all(Array.from({ length: workers }, loop));
}

describe("durability", () => {
  it("keeps every acknowledged activity across SIGKILL and never half-applies one", async () => {
    expect(fs.existsSync(CLI), "build dist/ first: npx tsc -p .").toBe(true);
    const acked: Acked[] = [];

    for (let round = 0; round < 2; round++) {
      const { child, url } = await serve();
      const client = clientOf(url);
      const streaming = stream(client, round, 6, acked);
      const before = acked.length;
      // Kill once a good number of activities went through, at an arbitrary moment.
      while (acked.length < before + 40) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 30)));
      child.kill("SIGKILL");
      await streaming;
      await new Promise((r) => child.exitCode !== null || child.signalCode !== null ? r(null) : child.once("exit", r));
    }

    const { child, url } = await serve();
    try {
      const client = clientOf(url);
      // Every acknowledged activity and its object survived.
      for (const a of acked) {
        const { activity } = await client.getActivity({ activityId: a.activityId });
        expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
      }
      const tags = new Map((await client.listUserTags()).userTags.map((tag) => [tag.tagId, tag.tagName]));
      const users = new Map((await client.listUsers()).users.map((u) => [u.userId, u]));
      for (const a of acked) {
        if (a.kind === "tag") expect(tags.get(a.objectId)).toBe(a.name);
        else expect(users.get(a.objectId)?.userName).toBe(a.name);
      }

      // No object without its activity, and every user came with its API key.
      const activities = [];
      for await (const activity of client.paginate("listActivities", { paginationOptions: { limit: "100" } })) activities.push(activity);
      const tagIdsWithActivity = new Set(activities.map((a) => (a.result.createUserTagResult as { userTagId?: string } | undefined)?.userTagId));
      const userIdsWithActivity = new Set(activities.flatMap((a) => (a.result.createUsersResult as { userIds?: string[] } | undefined)?.userIds ?? []));
      for (const [tagId, name] of tags) if (name.startsWith("dur-")) expect(tagIdsWithActivity.has(tagId)).toBe(true);
      for (const [userId, user] of users) {
        if (!user.userName.startsWith("dur-")) continue;
        expect(userIdsWithActivity.has(userId)).toBe(true);
        expect(user.apiKeys).toHaveLength(1);
      }
      expect(acked.length).toBeGreaterThanOrEqual(80);
    } finally {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
      expect(child.exitCode).toBe(0);
    }
  }, 120_000);
});

describe("logging", () => {
  it("logs requests as structured JSON without stamps or private keys", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-logs-"));
    const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--data", dir, "--log-level", "trace"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    try {
      while (!/listening on (http:\/\/\S+)/.test(out)) await new Promise((r) => setTimeout(r, 20));
      const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
      const bootstrap = JSON.parse(fs.readFileSync(path.join(dir, "bootstrap.json"), "utf8")) as Bootstrap;
      const stamper = new ApiKeyStamper({ apiPublicKey: bootstrap.apiPublicKey, apiPrivateKey: bootstrap.apiPrivateKey });
      const body = JSON.stringify({ organizationId: bootstrap.organizationId });
      const stamp = await stamper.stamp(body);
      const res = await fetch(`${url}/public/v1/query/whoami`, { method: "POST", headers: { [stamp.name]: stamp.value }, body });
      expect(res.status).toBe(200);
      await new Promise((r) => setTimeout(r, 100));
      const lines = out.split("\n").filter((line) => line.startsWith("{"));
      expect(lines.some((line) => JSON.parse(line).req?.url === "/public/v1/query/whoami")).toBe(true);
      expect(out).not.toContain(stamp.value);
      expect(out).not.toContain(bootstrap.apiPrivateKey);
    } finally {
      child.kill("SIGINT");
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
      expect(child.exitCode).toBe(0);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
