/**
 * A Pulumi YAML project that installs keyform with npm finds the provider plugin through the
 * `packages` section of its Pulumi.yaml (`keyform: ./node_modules/keyform/bin`): no
 * `pulumi plugin install`, nothing on PATH, automatic plugin acquisition off. And
 * `pulumi package add` of the plugin writes that section and generates the package's SDK.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkDirStack, pulumiBinDir, repoRoot } from "../support/engine";
import { outputOf, runChild } from "../support/child-process";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { settingsConfig } from "./plugin-support";

let emu: TestEmulator;
let project: string;
const projects: string[] = [];

/** A YAML project with keyform installed under node_modules and one user tag named `tagName`. */
function yamlProject(tagName: string, packagesSection: string[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-packages-"));
  projects.push(dir);
  fs.mkdirSync(path.join(dir, "node_modules"));
  fs.symlinkSync(repoRoot, path.join(dir, "node_modules", "keyform")); // what `npm install keyform` leaves
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    [
      "name: keyform-packages",
      "runtime: yaml",
      ...packagesSection,
      "resources:",
      "  ops:",
      "    type: keyform:index:UserTag",
      `    properties: { userTagName: ${tagName} }`,
      "outputs:",
      "  userTagId: ${ops.userTagId}",
      "",
    ].join("\n"),
  );
  return dir;
}

/** PATH with the Pulumi CLI but without this checkout's bin/ (where the other tests find the plugin). */
function pathWithoutPlugin(): string {
  const bin = path.join(repoRoot, "bin");
  return [pulumiBinDir(), ...(process.env.PATH ?? "").split(path.delimiter).filter((dir) => path.resolve(dir) !== bin)].join(path.delimiter);
}

/** `pulumi up` of the project in `workDir` creates its user tag, named `tagName`. */
async function expectUpCreatesTag(workDir: string, tagName: string, envVars: Record<string, string>): Promise<void> {
  const { stack, cleanup } = await createWorkDirStack({ workDir, config: settingsConfig(emu), envVars });
  try {
    const up = await stack.up();
    const { userTags } = await emu.client.listUserTags({});
    expect(userTags.find((t) => t.tagId === up.outputs.userTagId!.value)?.tagName).toBe(tagName);
  } finally {
    await cleanup();
  }
}

beforeAll(async () => {
  emu = await startTestEmulator();
  project = yamlProject("ops-from-packages", ["packages:", "  keyform: ./node_modules/keyform/bin"]);
});

afterAll(async () => {
  await emu?.stop();
  for (const dir of projects) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the plugin from the packages section of Pulumi.yaml", () => {
  it("runs without an installed plugin or one on PATH", { timeout: 600_000 }, async () => {
    const PATH = pathWithoutPlugin();
    // Without the packages section the engine finds no plugin at all: what the section fixes.
    const pulumiYaml = path.join(project, "Pulumi.yaml");
    const declared = fs.readFileSync(pulumiYaml, "utf8");
    fs.writeFileSync(pulumiYaml, declared.replace("packages:\n  keyform: ./node_modules/keyform/bin\n", ""));
    const without = await createWorkDirStack({ workDir: project, config: settingsConfig(emu), envVars: { PATH } });
    try {
      await expect(without.stack.preview()).rejects.toThrow(/keyform/);
    } finally {
      await without.cleanup();
      fs.writeFileSync(pulumiYaml, declared);
    }

    await expectUpCreatesTag(project, "ops-from-packages", { PATH });
  });

  it("pulumi package add of the plugin writes the packages section and generates the SDK", { timeout: 600_000 }, async () => {
    const dir = yamlProject("ops-from-package-add", []);
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-package-add-home-"));
    projects.push(home);
    const env = {
      ...process.env,
      PATH: pathWithoutPlugin(),
      PULUMI_HOME: home,
      PULUMI_BACKEND_URL: `file://${home}`,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    };
    // The YAML language host must implement Link, or this stops at "unknown method Link".
    const added = await runChild("pulumi", ["package", "add", "./node_modules/keyform/bin/pulumi-resource-keyform"], { cwd: dir, env });
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout + added.stderr).toContain("Added package keyform");
    const declared = fs.readFileSync(path.join(dir, "Pulumi.yaml"), "utf8");
    expect(declared).toMatch(/^packages:\n  keyform: \S+/m);
    // The generated SDK lists every resource of the schema (one is enough to prove it read it).
    const sdk = path.join(dir, "sdks", "keyform");
    expect(fs.readdirSync(sdk).length).toBeGreaterThan(0);

    // The section names the package by name and version (keyform@<version>), so the engine runs
    // the installed plugin of that version: the one command of the README installs it.
    const version = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")).version as string;
    expect(declared).toContain(`keyform: keyform@${version}`);
    await outputOf("pulumi", ["plugin", "install", "resource", "keyform", version, "--file", "./node_modules/keyform/bin/pulumi-resource-keyform"], { cwd: dir, env });

    await expectUpCreatesTag(dir, "ops-from-package-add", { PATH: env.PATH, PULUMI_HOME: home });
  });
});
