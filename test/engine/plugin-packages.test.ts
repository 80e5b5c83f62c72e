/**
 * A Pulumi YAML project that installs keyform with npm finds the provider plugin through the
 * `packages` section of its Pulumi.yaml (`keyform: ./node_modules/keyform/bin`): no
 * `pulumi plugin install`, nothing on PATH, automatic plugin acquisition off.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkDirStack, pulumiBinDir, repoRoot } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { settingsConfig } from "./plugin-support";

let emu: TestEmulator;
let project: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  project = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-packages-"));
  fs.mkdirSync(path.join(project, "node_modules"));
  fs.symlinkSync(repoRoot, path.join(project, "node_modules", "keyform")); // what `npm install keyform` leaves
  fs.writeFileSync(
    path.join(project, "Pulumi.yaml"),
    [
      "name: keyform-packages",
      "runtime: yaml",
      "packages:",
      "  keyform: ./node_modules/keyform/bin",
      "resources:",
      "  ops:",
      "    type: keyform:index:UserTag",
      "    properties: { userTagName: ops-from-packages }",
      "outputs:",
      "  userTagId: ${ops.userTagId}",
      "",
    ].join("\n"),
  );
});

afterAll(async () => {
  await emu?.stop();
  if (project) fs.rmSync(project, { recursive: true, force: true });
});

describe("the plugin from the packages section of Pulumi.yaml", () => {
  it("runs without an installed plugin or one on PATH", { timeout: 600_000 }, async () => {
    // PATH without this checkout's bin/ (where the other tests find the plugin).
    const bin = path.join(repoRoot, "bin");
    const PATH = [pulumiBinDir(), ...(process.env.PATH ?? "").split(path.delimiter).filter((dir) => path.resolve(dir) !== bin)].join(path.delimiter);
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

    const { stack, cleanup } = await createWorkDirStack({ workDir: project, config: settingsConfig(emu), envVars: { PATH } });
    try {
      const up = await stack.up();
      const { userTags } = await emu.client.listUserTags({});
      expect(userTags.find((t) => t.tagId === up.outputs.userTagId!.value)?.tagName).toBe("ops-from-packages");
    } finally {
      await cleanup();
    }
  });
});
