/**
 * `keyform gitops comment` against a loopback fake of GitHub's and GitLab's REST APIs, through
 * the built CLI (real HTTP): the first run creates the stack's one comment, later runs update
 * it, never a second one, also when the pull request already holds more than a page of other
 * comments; two stacks get one comment each; a wrong token fails naming the status and never
 * prints the token. Loads dist/ (build first).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runChild } from "../support/child-process";
import { startFakeForge, type FakeForge } from "../support/fake-forge";
import { repoRoot } from "../support/repo-copy";

const TOKEN = "ghs_fakeToken0123456789";
let forge: FakeForge;
let work: string;

beforeAll(async () => {
  forge = await startFakeForge(TOKEN);
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-comment-"));
});

afterAll(async () => {
  await forge?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const kept = Object.entries(process.env).filter(([k]) => !/^(GITHUB_|CI_|GITLAB_)/.test(k));
  return { ...Object.fromEntries(kept), ...extra };
}

async function comment(forgeName: "github" | "gitlab", body: string, key: string, env: Record<string, string>) {
  const file = path.join(work, `body-${Math.random().toString(36).slice(2)}.md`);
  fs.writeFileSync(file, body);
  return runChild(process.execPath, [path.join(repoRoot, "dist/sdk/cli/main.js"), "gitops", "comment", "--forge", forgeName, "--body-file", file, "--key", key], { env: cleanEnv(env) });
}

describe("keyform gitops comment on GitHub", () => {
  const event = () => {
    const file = path.join(work, "event.json");
    fs.writeFileSync(file, JSON.stringify({ pull_request: { number: 7 } }));
    return file;
  };
  const env = () => ({ GITHUB_API_URL: forge.url, GITHUB_REPOSITORY: "acme/platform", GITHUB_EVENT_PATH: event(), GITHUB_TOKEN: TOKEN });

  it("creates the stack's comment once, then updates it, past a full page of other comments", { timeout: 60_000 }, async () => {
    // 120 comments by people first: the poster must look past the first page of 100.
    forge.threads.set("github:acme/platform#7", Array.from({ length: 120 }, (_, i) => ({ id: i + 1, body: `review ${i}` })));
    const first = await comment("github", "### Planned changes (stack `staging`)\n\nv1\n", "staging", env());
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/created comment \d+ on acme\/platform#7/);
    for (const version of ["v2", "v3"]) {
      const again = await comment("github", `### Planned changes (stack \`staging\`)\n\n${version}\n`, "staging", env());
      expect(again.status, again.stderr).toBe(0);
      expect(again.stdout).toMatch(/updated comment/);
    }
    const ours = forge.threads.get("github:acme/platform#7")!.filter((c) => c.body.includes("keyform-gitops"));
    expect(ours).toHaveLength(1);
    expect(ours[0]!.body).toContain("v3");
    expect(ours[0]!.body).not.toContain("v1");
    expect(forge.counts.get("POST github comments")).toBe(1);
    expect(forge.counts.get("PATCH github comment")).toBe(2);
    // Two pages listed each run.
    expect(forge.counts.get("GET github comments")).toBe(6);

    // Another stack on the same pull request: its own comment.
    const prod = await comment("github", "prod plan\n", "prod", env());
    expect(prod.stdout).toMatch(/created comment/);
    expect(forge.threads.get("github:acme/platform#7")!.filter((c) => c.body.includes("keyform-gitops"))).toHaveLength(2);
  });

  it("a wrong token fails with the status, and the token is never printed", { timeout: 60_000 }, async () => {
    const wrong = await comment("github", "x\n", "staging", { ...env(), GITHUB_TOKEN: "ghs_wrongSecretValue" });
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toMatch(/github: GET \/repos\/acme\/platform\/issues\/7\/comments answered 401/);
    expect(wrong.stderr + wrong.stdout).not.toContain("ghs_wrongSecretValue");
  });

  it("names the missing variable", { timeout: 60_000 }, async () => {
    const missing = await comment("github", "x\n", "staging", { GITHUB_API_URL: forge.url, GITHUB_TOKEN: TOKEN, GITHUB_EVENT_PATH: event() });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("GITHUB_REPOSITORY is not set");
  });
});

describe("keyform gitops comment on GitLab", () => {
  const env = () => ({ CI_API_V4_URL: `${forge.url}/api/v4`, CI_PROJECT_ID: "42", CI_MERGE_REQUEST_IID: "3", GITLAB_NOTE_TOKEN: TOKEN });

  it("creates the stack's note once, then updates it", { timeout: 60_000 }, async () => {
    forge.threads.set("gitlab:42!3", Array.from({ length: 101 }, (_, i) => ({ id: 5000 + i, body: `note ${i}` })));
    const first = await comment("gitlab", "plan v1\n", "staging", env());
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/created comment/);
    const second = await comment("gitlab", "plan v2\n", "staging", env());
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/updated comment/);
    const ours = forge.threads.get("gitlab:42!3")!.filter((c) => c.body.includes("keyform-gitops"));
    expect(ours.map((c) => c.body.split("\n")[1])).toEqual(["plan v2"]);
    expect(forge.counts.get("POST gitlab notes")).toBe(1);
    expect(forge.counts.get("PUT gitlab note")).toBe(1);
  });
});
