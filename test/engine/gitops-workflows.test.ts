/**
 * The GitOps kit of examples/gitops: the runner commands of the GitHub Actions and GitLab CI
 * pipelines are read out of the two files (they must be the same three: preview, up, drift) and
 * run exactly as written, with the variables the pipelines set, in a clean copy of the
 * repository against an emulator: the pull request's preview report (plan and access changes),
 * the merge's apply, the schedule's drift check. Then the preview with a wrong private key: the
 * report gives the settings error once, not once per resource, and no bare "preview failed".
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureEarnWrapper } from "../../sdk/cli/earn-wrapper";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { pulumiBinDir } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { cleanCopy, repoRoot } from "../support/repo-copy";

const RUNNER = /node dist\/examples\/gitops\/runner\.js [^\n|]+/g;
const WORKFLOWS = ["examples/gitops/github-actions.yml", "examples/gitops/gitlab-ci.yml"];

/** The runner commands of a workflow file, in order, as written. */
function runnerCommands(file: string): string[] {
  return [...fs.readFileSync(path.join(repoRoot, file), "utf8").matchAll(RUNNER)].map((m) => m[0].trim());
}

let emu: TestEmulator;
let work: string;
let copy: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  emu = await startTestEmulator();
  // The example's vault has its wrapper, as on the service.
  await ensureEarnWrapper(emu.emulator.url, emu.emulator.bootstrap, { vaultAddress: "0xbeeF010f9cb27031ad51e3333f9aF9C6B1228183", chainCaip2: "eip155:8453" });
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-gitops-"));
  copy = path.join(work, "repo");
  cleanCopy(copy);
  // What the pipelines' `npx tsc -p .` builds.
  fs.cpSync(path.join(repoRoot, "dist"), path.join(copy, "dist"), { recursive: true });
  fs.mkdirSync(path.join(work, "state"));
  const b = emu.emulator.bootstrap;
  env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("KEYFORM_") && !k.startsWith("PULUMI_"))),
    PATH: `${pulumiBinDir()}:${process.env.PATH}`,
    PULUMI_HOME: path.join(work, "pulumi-home"),
    PULUMI_BACKEND_URL: `file://${path.join(work, "state")}`,
    PULUMI_CONFIG_PASSPHRASE: "keyform-local-dev",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    KEYFORM_BASE_URL: emu.emulator.url,
    KEYFORM_ORGANIZATION_ID: b.organizationId,
    KEYFORM_API_PUBLIC_KEY: b.apiPublicKey,
    KEYFORM_API_PRIVATE_KEY: b.apiPrivateKey,
    STACK: "dev",
  };
}, 300_000);

afterAll(async () => {
  await emu?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** Runs one workflow command with bash in the copy, as a CI step does. */
function step(command: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-e", "-c", command], { cwd: copy, env: { ...env, ...extraEnv } });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

function report(operation: string): { markdown: string; json: any } {
  return {
    markdown: fs.readFileSync(path.join(copy, "reports", `${operation}.md`), "utf8"),
    json: JSON.parse(fs.readFileSync(path.join(copy, "reports", `${operation}.json`), "utf8")),
  };
}

describe("the GitOps pipelines", () => {
  it("GitHub Actions and GitLab CI run the same three runner commands", () => {
    const [github, gitlab] = WORKFLOWS.map(runnerCommands);
    expect(github).toEqual(gitlab);
    expect(github!.map((c) => c.split(" ")[2])).toEqual(["preview", "up", "drift"]);
    for (const command of github!) expect(command).toMatch(/ --stack "\$STACK" --out reports$/);
  });

  it("their commands, as written: preview on a pull request, apply on merge, the drift schedule; a bad key reported once", { timeout: 1_500_000 }, async () => {
    const [preview, up, drift] = runnerCommands(WORKFLOWS[0]!);

    const planned = await step(preview!);
    expect(planned.code, planned.output.slice(-4000)).toBe(0);
    const plan = report("preview");
    expect(plan.markdown).toMatch(/^### Planned changes \(stack `dev`\)/);
    expect(plan.json.counts.create).toBeGreaterThan(10);
    expect(plan.markdown).toContain("### Access changes");

    const applied = await step(up!);
    expect(applied.code, applied.output.slice(-4000)).toBe(0);
    expect(report("up").json.counts.create).toBe(plan.json.counts.create);

    const clean = await step(drift!);
    expect(clean.code, clean.output.slice(-4000)).toBe(0);
    expect(report("drift").markdown).toContain("No drift: the organization matches the code.");

    // A wrong private key: every resource's refresh meets the failed settings check.
    const wrong = await step(preview!, { KEYFORM_API_PRIVATE_KEY: generateApiKeyPair().privateKey });
    expect(wrong.code).toBe(1);
    const failed = report("preview");
    expect(failed.json.errorGroups, JSON.stringify(failed.json.errors.slice(0, 4), null, 1)).toHaveLength(1);
    expect(failed.json.errorGroups[0].cause).toMatch(/keyform:apiPrivateKey \(KEYFORM_API_PRIVATE_KEY\)/);
    expect(failed.json.errors).toHaveLength(new Set(failed.json.errors).size);
    expect(failed.json.errorGroups[0].count).toBe(1);
    const bullets = failed.markdown.slice(failed.markdown.indexOf("**Errors**")).match(/^- /gm) ?? [];
    expect(bullets).toHaveLength(1);
    expect(failed.markdown).not.toMatch(/^- preview failed$/m);
  });
});
