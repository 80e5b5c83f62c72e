/**
 * keyform's GitOps in a platform team's own repository, made only from the packed tarballs
 * (`scripts/pack-packages.ts`; no checkout on its module path): a Pulumi TypeScript project that
 * installs keyform and @pulumi/pulumi, and the pipelines a team copies. The commands are read
 * out of the YAML and run verbatim with bash, with the variables the files and CI set, against
 * the emulator and a loopback fake of GitLab's and GitHub's comment APIs:
 *
 * - GitLab: examples/gitops/gitlab-ci.yml includes the package's template; its jobs'
 *   before_script and script run as the runner runs them (`set -eo pipefail`, one shell). The
 *   three jobs share one before_script (`.keyform`); it runs in full on the first job, whose
 *   `npm ci` makes the project's node_modules from its lock file (the test writes only
 *   package.json and package-lock.json, as a repository holds them), and the later jobs in the
 *   same working copy run it without its `npm ci` (which deletes and reinstalls the same
 *   node_modules from the same lock file: minutes each on a loaded machine, seven times before).
 * - GitHub: the action.yml of the installed package: its run steps, with its inputs, on a pull
 *   request: a preview's comment created, then updated by a drift run (exit code 3).
 *
 * The story: main is applied; a merge request changes a policy: the preview's note has the plan
 * with the condition before and after and the access table; a second pipeline of the merge
 * request, its private key now wrong, updates the same note with the settings error, given once
 * in the log too; the merge applies the change; a change made by hand gives `drift` exit 3 with
 * the values. Each `keyform gitops` command is a real engine run (preview, up, refresh), so the
 * story has as few of them as its guarantees need: a second push with the right key would run
 * the same preview again only to show the note updated.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { outputOf } from "../support/child-process";
import { pulumiBinDir } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { startFakeForge, type FakeForge } from "../support/fake-forge";
import { PULUMI_NEW_TYPESCRIPT } from "../support/npm-install-cache";
import { writeTypeScriptProject } from "../support/typescript-project";

const repoRoot = path.resolve(__dirname, "../..");
const TOKEN = "glpat-fakeNoteToken0001";
let emu: TestEmulator;
let forge: FakeForge;
let work: string;
let project: string;
let aliceId: string;
let bobId: string;

/** The platform team's program: a tag and a policy its members approve. */
function program(condition: string): string {
  return `import * as pulumi from "@pulumi/pulumi";
import * as keyform from "keyform";

const ops = new keyform.UserTag("ops", { userTagName: "ops", userIds: ["${aliceId}"] });
new keyform.Policy("wallets", {
  policyName: "ops approve wallets",
  effect: "EFFECT_ALLOW",
  condition: "${condition}",
  consensus: pulumi.interpolate\`approvers.any(user, user.tags.contains('\${ops.userTagId}'))\`,
});
`;
}

beforeAll(async () => {
  emu = await startTestEmulator();
  forge = await startFakeForge(TOKEN);
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-platform-"));
  project = path.join(work, "platform");
  fs.mkdirSync(project);
  const [keyformTarball] = (await outputOf(process.execPath, [path.join(repoRoot, "dist/scripts/pack-packages.js"), "--out", work])).trim().split("\n");
  if (!keyformTarball) throw new Error("pack-packages printed no tarball");
  writeTypeScriptProject(project, "platform");
  const { userIds } = await emu.client.createUsers({
    users: ["alice", "bob"].map((userName) => ({ userName, userEmail: `${userName}@example.com`, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] })),
  });
  [aliceId, bobId] = userIds as [string, string];
  fs.writeFileSync(path.join(project, "index.ts"), program("activity.resource == 'WALLET' && activity.action == 'CREATE'"));
  // The repository as the team commits it: package.json and the lock file of keyform's tarball
  // and what `pulumi new typescript` installs, no node_modules. The first job's `npm ci` installs
  // it; an install here first (node_modules that `npm ci` deletes) cost more CPU than that job.
  await outputOf("npm", ["install", "--package-lock-only", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", keyformTarball, ...PULUMI_NEW_TYPESCRIPT], { cwd: project });
  // The repository's pipeline files, as the team copies them: the template out of the package
  // (the file `npm ci` unpacks to node_modules/keyform/.gitlab/), since GitLab reads it before any job runs.
  fs.mkdirSync(path.join(project, "ci"));
  fs.writeFileSync(path.join(project, "ci/keyform.gitlab-ci.yml"), await outputOf("tar", ["-xzOf", keyformTarball, "package/.gitlab/keyform.gitlab-ci.yml"]));
  fs.copyFileSync(path.join(repoRoot, "examples/gitops/gitlab-ci.yml"), path.join(project, ".gitlab-ci.yml"));
  fs.mkdirSync(path.join(work, "state"));
}, 900_000);

afterAll(async () => {
  await emu?.stop();
  await forge?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** The CI/CD variables of the project (they win over the YAML's), and what the runner sets. */
function ciEnv(extra: Record<string, string> = {}): Record<string, string> {
  const b = emu.emulator.bootstrap;
  const inherited = Object.entries(process.env).filter(([k]) => !/^(KEYFORM_|PULUMI_|CI_|GITLAB_|GITHUB_|npm_)/.test(k));
  return {
    ...(Object.fromEntries(inherited) as Record<string, string>),
    PATH: `${pulumiBinDir()}:${process.env.PATH}`,
    CI_PROJECT_DIR: project,
    PULUMI_HOME: path.join(work, "pulumi-home"),
    PULUMI_BACKEND_URL: `file://${path.join(work, "state")}`,
    PULUMI_CONFIG_PASSPHRASE: "platform-passphrase",
    KEYFORM_BASE_URL: emu.emulator.url,
    KEYFORM_ORGANIZATION_ID: b.organizationId,
    KEYFORM_API_PUBLIC_KEY: b.apiPublicKey,
    KEYFORM_API_PRIVATE_KEY: b.apiPrivateKey,
    // ts-node runs index.ts without type-checking it (Pulumi's own setting, for projects whose
    // build type-checks). This file proves the pipelines: the jobs' commands, the notes, the
    // exit codes. The same install's types are checked elsewhere: consumer-package.test.ts runs
    // `tsc --noEmit` on it without skipLibCheck, and ts-node's type-check through `pulumi up` is
    // proven by the quick start and examples-readme.test.ts. Here each program run (every
    // job's and action run's previews and ups) type-checked the same index.ts again: about 2 s of CPU each.
    PULUMI_NODEJS_TRANSPILE_ONLY: "true",
    ...extra,
  };
}

/** `$NAME` and `${NAME}` of `value` expanded from `env`, as GitLab expands variables. */
function expand(value: string, env: Record<string, string>): string {
  return value.replace(/\$\{?(\w+)\}?/g, (_m, name: string) => env[name] ?? "");
}

type Job = { extends?: string; variables?: Record<string, string>; before_script?: string[]; script: string[] };

/** A GitLab job of the project's .gitlab-ci.yml (with its include), run as the runner does. */
async function gitlabJob(name: string, pipeline: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const root = parse(fs.readFileSync(path.join(project, ".gitlab-ci.yml"), "utf8")) as { include: Array<{ local: string }>; variables: Record<string, string> };
  const template = parse(fs.readFileSync(path.join(project, root.include[0]!.local), "utf8")) as Record<string, unknown> & { variables: Record<string, string> };
  const job = template[name] as Job;
  const base = (job.extends ? template[job.extends] : {}) as Partial<Job>;
  const env: Record<string, string> = {};
  for (const vars of [template.variables, root.variables, base.variables ?? {}, job.variables ?? {}]) {
    for (const [k, v] of Object.entries(vars)) env[k] = expand(String(v), { ...ciEnv(pipeline), ...env });
  }
  const before = job.before_script ?? base.before_script ?? [];
  expect(before.filter(isNpmCi), `${name}'s before_script installs the project`).toHaveLength(1);
  // Leaving `npm ci` out of a later job stands for running it only if every job runs the same before_script.
  firstBeforeScript ??= before;
  expect(before, `${name}'s before_script`).toEqual(firstBeforeScript);
  const lines = [...(installed ? before.filter((line) => !isNpmCi(line)) : before), ...job.script];
  installed = true;
  return shell(lines.join("\n"), project, { ...env, ...ciEnv(pipeline) });
}

/** The before_script of the first job run, and whether its `npm ci` has run. */
let firstBeforeScript: string[] | undefined;
let installed = false;
const isNpmCi = (line: string) => /^npm ci\b/.test(line.trim());

function shell(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-eo", "pipefail", "-c", script], { cwd, env });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

type ActionStep = { name?: string; id?: string; if?: string; uses?: string; run?: string; env?: Record<string, string> };

/**
 * The installed package's action.yml on a pull request: its run steps as the runner runs them
 * (bash, `set -eo pipefail`, in working-directory), `${{ inputs.* }}`, `${{ steps.*.outputs.* }}`
 * and `${{ github.token }}` filled in, GITHUB_PATH and GITHUB_OUTPUT honoured. Its `uses:` steps
 * (Go, the caches) are GitHub's own actions and are not run here; `if: always()` steps run.
 */
async function githubAction(inputs: Record<string, string>, extra: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const action = parse(fs.readFileSync(path.join(project, "node_modules/keyform/action.yml"), "utf8")) as {
    inputs: Record<string, { default?: string }>;
    runs: { steps: ActionStep[] };
  };
  const values: Record<string, string> = {};
  for (const [name, spec] of Object.entries(action.inputs)) values[name] = inputs[name] ?? (spec.default === "${{ github.token }}" ? extra.GITHUB_TOKEN! : (spec.default ?? ""));
  const files = fs.mkdtempSync(path.join(work, "runner-"));
  const githubPath = path.join(files, "path");
  const outputs: Record<string, Record<string, string>> = {};
  let output = "";
  let failed: number | null = 0;
  const evaluate = (text: string) =>
    text.replace(/\$\{\{\s*(inputs\.([\w-]+)|steps\.([\w-]+)\.outputs\.([\w-]+)|github\.token)\s*\}\}/g, (_m, _all, input?: string, step?: string, key?: string) =>
      input ? values[input]! : step ? (outputs[step]?.[key!] ?? "") : extra.GITHUB_TOKEN!,
    );
  for (const step of action.runs.steps) {
    if (!step.run) continue;
    const condition = step.if ?? "success()";
    if (!condition.includes("always()") && failed !== 0) continue;
    if (condition.includes("inputs.comment == 'true'") && values.comment !== "true") continue;
    fs.writeFileSync(path.join(files, "output"), "");
    const added = fs.existsSync(githubPath) ? fs.readFileSync(githubPath, "utf8").trim().split("\n").reverse().join(":") : "";
    const base = ciEnv(extra);
    const env: Record<string, string> = { ...base, PATH: added ? `${added}:${base.PATH}` : base.PATH!, GITHUB_PATH: githubPath, GITHUB_OUTPUT: path.join(files, "output"), GITHUB_EVENT_NAME: "pull_request" };
    for (const [k, v] of Object.entries(step.env ?? {})) env[k] = evaluate(String(v));
    const result = await shell(evaluate(step.run), path.resolve(project, values["working-directory"]!), env);
    output += result.output;
    if (step.id) outputs[step.id] = Object.fromEntries(fs.readFileSync(path.join(files, "output"), "utf8").trim().split("\n").filter(Boolean).map((l) => l.split("=", 2) as [string, string]));
    if (result.code !== 0 && failed === 0) failed = result.code;
  }
  return { code: failed, output };
}

const reports = (name: string) => ({
  markdown: fs.readFileSync(path.join(project, "keyform-reports", `${name}.md`), "utf8"),
  json: JSON.parse(fs.readFileSync(path.join(project, "keyform-reports", `${name}.json`), "utf8")),
});

const mergeRequest = { CI_API_V4_URL: "", CI_PROJECT_ID: "17", CI_MERGE_REQUEST_IID: "5", GITLAB_NOTE_TOKEN: TOKEN, CI_PIPELINE_SOURCE: "merge_request_event" };
const CHANGED = "activity.resource == 'WALLET' && (activity.action == 'CREATE' || activity.action == 'EXPORT')";

describe("a platform repository's GitOps, from the packed package", () => {
  it("main applied; a merge request's policy change: one note with the plan and the access table, updated by the next pipeline (a wrong key: its error once); merge applies it; a change by hand is drift (exit 3)", { timeout: 1_800_000 }, async () => {
    const applyMain = await gitlabJob("keyform-up", { CI_PIPELINE_SOURCE: "push" });
    expect(applyMain.code, applyMain.output.slice(-4000)).toBe(0);
    expect(reports("up").json.counts.create).toBe(2);
    // The first job's `npm ci` installed keyform from the tarball: the module path holds no checkout.
    expect(fs.realpathSync(path.join(project, "node_modules/keyform")).startsWith(repoRoot)).toBe(false);
    expect(fs.existsSync(path.join(project, "node_modules/keyform/action.yml"))).toBe(true);
    expect(fs.readFileSync(path.join(project, "node_modules/keyform/.gitlab/keyform.gitlab-ci.yml"), "utf8")).toBe(fs.readFileSync(path.join(project, "ci/keyform.gitlab-ci.yml"), "utf8"));

    // The merge request: the policy's condition changes.
    fs.writeFileSync(path.join(project, "index.ts"), program(CHANGED));
    const mr = { ...mergeRequest, CI_API_V4_URL: `${forge.url}/api/v4` };
    const preview = await gitlabJob("keyform-preview", mr);
    expect(preview.code, preview.output.slice(-4000)).toBe(0);
    const notes = () => forge.threads.get("gitlab:17!5") ?? [];
    expect(notes()).toHaveLength(1);
    const note = notes()[0]!.body;
    console.log(`[platform] the merge request's note:\n${note}`);
    expect(note).toContain("### Planned changes (stack `staging`)");
    expect(note).toContain("1 to update in place");
    expect(note).toContain("- `wallets` `condition`: `activity.resource == 'WALLET' && activity.action == 'CREATE'` → `" + CHANGED + "`");
    expect(note).toContain("### Access changes");
    const rows = note.split("\n").filter((l) => /^\| \*\*(gains|loses)\*\*/.test(l));
    expect(rows.length).toBeGreaterThan(0);
    // No empty "who", and no made-up user names.
    for (const row of rows) expect(row.split("|")[2]!.trim(), row).not.toBe("");
    expect(note).not.toMatch(/\buser-\d/);
    // The rows are folded: none is the same as another but for its activity kinds.
    const keys = rows.map((r) => r.split("|").filter((_c, i) => i !== 3).join("|"));
    expect(new Set(keys).size).toBe(keys.length);
    expect(preview.output).not.toContain(emu.emulator.bootstrap.apiPrivateKey);

    // A second pipeline of the merge request, its private key now wrong: the same note, updated
    // with the settings error, which the job's log gives once too.
    const failed = await gitlabJob("keyform-preview", { ...mr, KEYFORM_API_PRIVATE_KEY: "11".repeat(32) });
    expect(failed.code, failed.output.slice(-3000)).toBe(1);
    expect(notes()).toHaveLength(1);
    expect(forge.counts.get("POST gitlab notes")).toBe(1);
    expect(forge.counts.get("PUT gitlab note")).toBe(1);
    const updated = notes()[0]!.body;
    expect(updated).not.toBe(note);
    const bullets = updated.slice(updated.indexOf("**Errors**")).match(/^- .*/gm) ?? [];
    expect(bullets).toHaveLength(1);
    const cause = bullets[0]!.slice(2);
    expect(cause).toMatch(/keyform:apiPrivateKey \(KEYFORM_API_PRIVATE_KEY\)/);
    // In the job's log (stdout and stderr together): once, in the report it prints.
    expect(failed.output.split(cause).length - 1, failed.output.slice(-3000)).toBe(1);
    expect(failed.output).not.toMatch(/^error: preview failed$/m);
    expect(failed.output).not.toContain("11".repeat(32));

    // The merge.
    const merged = await gitlabJob("keyform-up", { CI_PIPELINE_SOURCE: "push" });
    expect(merged.code, merged.output.slice(-4000)).toBe(0);
    expect(reports("up").json.counts.update).toBe(1);
    const policy = (await emu.client.listPolicies()).policies.find((p) => p.policyName === "ops approve wallets");
    expect(policy?.condition).toBe(CHANGED);

    const clean = await gitlabJob("keyform-drift", { CI_PIPELINE_SOURCE: "schedule" });
    expect(clean.code, clean.output.slice(-3000)).toBe(0);

    // A change by hand: the tag renamed and bob added.
    const tag = (await emu.client.listUserTags()).userTags.find((t) => t.tagName === "ops")!;
    await emu.client.updateUserTag({ userTagId: tag.tagId, newUserTagName: "ops-by-hand", addUserIds: [bobId], removeUserIds: [] });
    const drift = await gitlabJob("keyform-drift", { CI_PIPELINE_SOURCE: "schedule" });
    expect(drift.code, drift.output.slice(-3000)).toBe(3);
    const found = reports("drift");
    console.log(`[platform] drift report:\n${found.markdown}`);
    expect(found.markdown).toContain("- `ops` `userTagName`: `ops` → `ops-by-hand`");
    // The ids in the values, named as the organization names them.
    const members = found.markdown.split("\n").find((l) => l.startsWith("- `ops` `userIds`"))!;
    expect(members).toContain(`\`${aliceId.slice(0, 8)}…\` = alice`);
    expect(members).toContain(`\`${bobId.slice(0, 8)}…\` = bob`);
  });

  it("the GitHub Action on a pull request: keyform gitops preview's comment created, then updated by drift (exit 3)", { timeout: 900_000 }, async () => {
    const event = path.join(work, "event.json");
    fs.writeFileSync(event, JSON.stringify({ pull_request: { number: 12 } }));
    const pr = { GITHUB_API_URL: forge.url, GITHUB_REPOSITORY: "acme/platform", GITHUB_EVENT_PATH: event, GITHUB_TOKEN: "ghs_fakeActionToken01" };
    const forgeToken = TOKEN;
    // The fake checks the token it was started with.
    const run = (inputs: Record<string, string>) => githubAction(inputs, { ...pr, GITHUB_TOKEN: forgeToken });
    const first = await run({ command: "preview", stack: "staging" });
    expect(first.code, first.output.slice(-4000)).toBe(0);
    const comments = () => (forge.threads.get("github:acme/platform#12") ?? []).filter((c) => c.body.includes("keyform-gitops: staging"));
    expect(comments()).toHaveLength(1);
    expect(comments()[0]!.body).toContain("### Planned changes (stack `staging`)");
    expect(forge.counts.get("POST github comments")).toBe(1);
    // Drift through the action: its exit code is the step's, and its report updates the same
    // comment (a second preview would show the update by running the same preview again).
    const tag = (await emu.client.listUserTags()).userTags.find((t) => t.tagName.startsWith("ops"))!;
    await emu.client.updateUserTag({ userTagId: tag.tagId, newUserTagName: "ops-again", addUserIds: [], removeUserIds: [] });
    const drift = await run({ command: "drift", stack: "staging" });
    expect(drift.code, drift.output.slice(-3000)).toBe(3);
    expect(comments()).toHaveLength(1);
    expect(forge.counts.get("POST github comments")).toBe(1);
    expect(forge.counts.get("PATCH github comment")).toBe(1);
    expect(comments()[0]!.body).toContain("ops-again");
  });

});
