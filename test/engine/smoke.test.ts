/**
 * The engine foundation, end to end: the Pulumi CLI from scripts/install-pulumi, the
 * dynamic-provider launcher, closure serialization of compiled keyform code, and keyform's own
 * Node.js language host. SmokeProbe keeps its state in a file, so drift can be made by hand.
 * Loads the probe from dist/ (build first: `npx tsc -p .`; `npm test` does).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import type { Deployment, OpMap } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInlineStack, createWorkDirStack, storedState, pulumiBinDir, repoRoot } from "../support/engine";

const PROBE_TYPE = "pulumi-nodejs:dynamic/keyform:SmokeProbe";
const probeModulePath = path.join(repoRoot, "dist", "scripts", "fixtures", "smoke-probe.js");
const fixtureDir = path.join(__dirname, "fixtures", "smoke-project");

type ProbeModule = typeof import("../../scripts/fixtures/smoke-probe");

/** The compiled CommonJS probe: Pulumi's closure serializer cannot serialize TS-transformed code. */
function loadProbe(): ProbeModule {
  if (!fs.existsSync(probeModulePath)) {
    throw new Error(`${probeModulePath} is missing: build first with \`npx tsc -p .\``);
  }
  return createRequire(__filename)(probeModulePath) as ProbeModule;
}

interface StateResource {
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

function probesIn(deployment: Deployment): StateResource[] {
  const resources = (deployment.deployment as { resources?: StateResource[] }).resources ?? [];
  return resources.filter((r) => r.type === PROBE_TYPE);
}

/** The non-zero counts of a change summary, without "same". */
function changes(summary: OpMap | Record<string, number> | undefined): Record<string, number> {
  return Object.fromEntries(Object.entries(summary ?? {}).filter(([op, n]) => op !== "same" && (n ?? 0) > 0)) as Record<
    string,
    number
  >;
}

let scratch: string;

beforeAll(() => {
  // Builds the CLI on a machine that has none yet (minutes); returns at once otherwise.
  pulumiBinDir();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-smoke-"));
}, 900_000);

afterAll(() => {
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

describe("engine smoke: inline program", () => {
  it("up creates, preview is quiet, refresh sees drift, destroy removes", { timeout: 300_000 }, async () => {
    const { SmokeProbe } = loadProbe();
    const filePath = path.join(scratch, "inline-probe.txt");
    const { stack, cleanup } = await createInlineStack({
      projectName: "keyform-smoke",
      program: async () => {
        const probe = new SmokeProbe("probe", { filePath, content: "hello" });
        return { filePath: probe.filePath, content: probe.content };
      },
    });
    try {
      const up = await stack.up();
      expect(up.summary.result).toBe("succeeded");
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 2 }); // the stack and the probe
      expect(up.outputs.content?.value).toBe("hello");
      expect(fs.readFileSync(filePath, "utf8")).toBe("hello");

      const [created] = probesIn(await stack.exportStack());
      expect(created?.id).toBe(filePath);
      expect(created?.outputs).toMatchObject({ filePath, content: "hello" });
      // The provider travels in state as serialized code; nothing else stands in for it.
      expect(typeof created?.inputs?.__provider).toBe("string");

      const quiet = await stack.preview();
      expect(changes(quiet.changeSummary)).toEqual({});

      fs.writeFileSync(filePath, "edited by hand");
      const refresh = await stack.refresh();
      expect(changes(refresh.summary.resourceChanges)).toEqual({ update: 1 });
      const [refreshed] = probesIn(await stack.exportStack());
      expect(refreshed?.outputs?.content).toBe("edited by hand");
      // The program still says "hello", so the next plan puts it back.
      expect(changes((await stack.preview()).changeSummary)).toEqual({ update: 1 });

      const destroy = await stack.destroy();
      expect(changes(destroy.summary.resourceChanges)).toEqual({ delete: 2 });
      expect(fs.existsSync(filePath)).toBe(false);
      expect(probesIn(await stack.exportStack())).toEqual([]);
    } finally {
      await cleanup();
    }
  });
});

describe("engine smoke: workDir project through keyform's language host", () => {
  it("up, preview (no changes), destroy; the host passes project, stack, root and config", { timeout: 300_000 }, async () => {
    const filePath = path.join(scratch, "workdir-probe.txt");
    const { stack, cleanup } = await createWorkDirStack({
      workDir: fixtureDir,
      config: {
        "smoke-project:filePath": filePath,
        "smoke-project:content": "from the language host",
        "smoke-project:note": { value: "note-kept-secret", secret: true },
      },
    });
    const stackFile = path.join(fixtureDir, `Pulumi.${stack.name}.yaml`);
    try {
      const up = await stack.up();
      expect(up.summary.result).toBe("succeeded");
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 2 });
      expect(fs.readFileSync(filePath, "utf8")).toBe("from the language host");
      const out = Object.fromEntries(Object.entries(up.outputs).map(([k, v]) => [k, v.value]));
      expect(out).toMatchObject({
        filePath,
        content: "from the language host",
        project: "smoke-project",
        stack: stack.name,
        organization: "organization",
        rootDirectory: fixtureDir,
        noteIsSecret: true,
        note: "note-kept-secret",
      });
      expect(up.outputs.note?.secret).toBe(true);
      // The secret config value reaches state (as an output and as input of the default provider)
      // only encrypted.
      const stored = storedState(stack);
      expect(stored).toContain("ciphertext");
      expect(stored).not.toContain("note-kept-secret");

      expect(changes((await stack.preview()).changeSummary)).toEqual({});

      const destroy = await stack.destroy();
      expect(changes(destroy.summary.resourceChanges)).toEqual({ delete: 2 });
      expect(fs.existsSync(filePath)).toBe(false);
    } finally {
      await cleanup();
    }
    // cleanup() leaves no stack file behind in the fixture folder.
    expect(fs.existsSync(stackFile)).toBe(false);
  });

  it("a program that throws fails the update with the error and its stack", { timeout: 120_000 }, async () => {
    const filePath = path.join(scratch, "failing-probe.txt");
    const { stack, cleanup } = await createWorkDirStack({
      workDir: fixtureDir,
      envVars: { SMOKE_PROJECT_FAIL: "as planned" },
      config: { "smoke-project:filePath": filePath, "smoke-project:content": "x", "smoke-project:note": "n" },
    });
    try {
      const failure = await stack.up().then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failure).toBeInstanceOf(Error);
      // Node 24 colours the file names of stack frames even in the engine's log: compare the text.
      const output = String(failure).replace(/\u001b\[[0-9;]*m/g, "");
      expect(output).toContain(`Running program '${path.join(fixtureDir, "index.js")}' failed with an unhandled exception`);
      expect(output).toContain("Error: smoke program failing on purpose: as planned");
      // The stack reaches the engine too: the throwing line of the fixture, and the runner's frames
      // (mapped to @pulumi/pulumi's TypeScript sources) that the host's inspect guard exists for.
      expect(output).toContain(`${path.join(fixtureDir, "index.js")}:`);
      expect(output).toMatch(/node_modules\/@pulumi\/[\w/-]+\.ts:\d+:\d+\)/);
      // The runner reported the error itself (exit code 32), so the host adds no generic message.
      expect(output).not.toContain("Program exited with non-zero exit code");
      expect(fs.existsSync(filePath)).toBe(false);
      expect(probesIn(await stack.exportStack())).toEqual([]);
    } finally {
      await cleanup();
    }
  });
});

describe("language host preload: util.inspect guard", () => {
  const guardPath = path.join(repoRoot, "scripts", "pulumi-language-nodejs", "inspect-guard.cjs");

  /** Runs `script` in a fresh node with the guard preloaded; returns its stdout. */
  function nodeWithGuard(script: string): string {
    return execFileSync(process.execPath, ["--require", guardPath, "-e", script], {
      encoding: "utf8",
      // Generous: without the guard an affected Node.js spends tens of seconds before it throws.
      timeout: 110_000,
    });
  }

  it("formats an error whose frame ends inside a scoped package, without colours", { timeout: 120_000 }, () => {
    // The shape source-map-support gives @pulumi/pulumi's own frames. Affected Node.js releases
    // (20.20.x) loop on it in colour mode and end in "RangeError: Invalid string length".
    const out = nodeWithGuard(`
      const util = require("node:util");
      const err = new Error("boom");
      err.stack = "Error: boom\\n    at f (/app/node_modules/@pulumi/resource.ts:1598:22)";
      const wrapped = new Error("outer", { cause: err });
      wrapped.stack = "Error: outer\\n    at g (/app/index.js:1:1)";
      process.stdout.write(JSON.stringify([util.inspect(err, { colors: true }), util.inspect(wrapped, { colors: true })]));
    `);
    const [direct, viaCause] = JSON.parse(out) as [string, string];
    expect(direct).toBe("Error: boom\n    at f (/app/node_modules/@pulumi/resource.ts:1598:22)");
    expect(viaCause).toContain("[cause]: Error: boom");
    expect(viaCause).not.toContain("\u001b[");
  });

  it("leaves every other call to util.inspect as it was", () => {
    const out = nodeWithGuard(`
      const util = require("node:util");
      const err = new Error("fine");
      err.stack = "Error: fine\\n    at f (/app/node_modules/@pulumi/pulumi/resource.js:1:2)";
      process.stdout.write(JSON.stringify({
        coloured: util.inspect(err, { colors: true }),
        legacyColours: util.inspect({ n: 1 }, false, 2, true),
        custom: util.inspect.custom === Symbol.for("nodejs.util.inspect.custom"),
        hasStyles: typeof util.inspect.styles.number === "string",
      }));
    `);
    const result = JSON.parse(out) as { coloured: string; legacyColours: string; custom: boolean; hasStyles: boolean };
    // Colours stay: the package name is underlined as usual (how much of it varies across Node.js).
    expect(result.coloured).toMatch(/^Error: fine\n {4}at f \(\/app\/node_modules\/\u001b\[4m@pulumi/);
    expect(result).toMatchObject({ legacyColours: "{ n: \u001b[33m1\u001b[39m }", custom: true, hasStyles: true });
  });
});
