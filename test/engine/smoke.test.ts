/**
 * The engine foundation, end to end: the Pulumi CLI from scripts/install-pulumi, the
 * dynamic-provider launcher, closure serialization of compiled keyform code, and keyform's own
 * Node.js language host. SmokeProbe keeps its state in a file, so drift can be made by hand.
 * Loads the probe from dist/ (build first: `npx tsc -p .`; `npm test` does).
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import type { Deployment, OpMap } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInlineStack, createWorkDirStack, exportStoredState, pulumiBinDir, repoRoot } from "../support/engine";

const PROBE_TYPE = "pulumi-nodejs:dynamic/keyform:SmokeProbe";
const probeModulePath = path.join(repoRoot, "dist", "sdk", "resources", "smoke-probe.js");
const fixtureDir = path.join(__dirname, "fixtures", "smoke-project");

type ProbeModule = typeof import("../../sdk/resources/smoke-probe");

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
      const stored = JSON.stringify(await exportStoredState(stack));
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

  it("a program that exits non-zero fails the update with its output and exit code", { timeout: 120_000 }, async () => {
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
      expect(String(failure)).toContain("smoke program failing on purpose: as planned");
      expect(String(failure)).toContain("Program exited with non-zero exit code: 3");
      expect(fs.existsSync(filePath)).toBe(false);
      expect(probesIn(await stack.exportStack())).toEqual([]);
    } finally {
      await cleanup();
    }
  });
});
