/**
 * Every example runs on a fresh emulator exactly as its README says: the `sh` block of
 * examples/org/README.md (the TypeScript program) and examples/org-yaml/README.md (Pulumi YAML
 * through the provider plugin), extracted from the files and run in a clean copy of the
 * repository. The emulator deploys the Earn wrapper itself (`keyform serve --earn-wrapper`): no
 * scripts/org-up, no test code in between. The runs print no deprecation warning, and the
 * organization then holds the wrapper with deposits disabled, as both programs declare.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { KeyformClient } from "../../sdk/client/client";
import { pulumiBinDir } from "../support/engine";
import { cleanCopy, markdownBlocks } from "../support/repo-copy";

let work: string;
let copy: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-examples-readme-"));
  copy = path.join(work, "repo");
  cleanCopy(copy);
  env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("KEYFORM_") && !k.startsWith("PULUMI_"))),
    PATH: `${pulumiBinDir()}:${process.env.PATH}`,
    PULUMI_HOME: path.join(work, "pulumi-home"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
  };
});

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** Runs a shell block in its own process group; `stop` ends the group (the emulator started with `&` too). */
function runBlock(block: string, cwd: string): Promise<{ code: number | null; output: string; stop: () => void }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-e", "-c", block], { cwd, env, detached: true });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    // "exit", not "close": the emulator in the background keeps the pipes open.
    child.on("exit", (code) =>
      resolve({
        code,
        output,
        stop: () => {
          try {
            process.kill(-child.pid!, "SIGTERM");
          } catch {
            // already gone
          }
        },
      }),
    );
  });
}

/** A client of the emulator whose data folder is `dataDir`, from its bootstrap.json. */
function clientOf(dataDir: string): KeyformClient {
  const b = JSON.parse(fs.readFileSync(dataDir + "/bootstrap.json", "utf8"));
  return new KeyformClient({ baseUrl: b.baseUrl, organizationId: b.organizationId, stamper: new ApiKeyStamper({ apiPublicKey: b.apiPublicKey, apiPrivateKey: b.apiPrivateKey }) });
}

const EXAMPLES = [
  { example: "org", heading: "Run it", dataDir: ".keyform/emulator-ts" },
  { example: "org-yaml", heading: "Run it on a fresh emulator", dataDir: ".keyform/emulator-yaml" },
];

describe("the examples, as their READMEs say", () => {
  for (const { example, heading, dataDir } of EXAMPLES) {
    it(`examples/${example}`, { timeout: 1_200_000 }, async () => {
      const block = markdownBlocks(path.join(copy, "examples", example, "README.md"), "sh", heading)[0]!;
      expect(block).toContain("--earn-wrapper");
      expect(block).not.toContain("org-up");
      const result = await runBlock(block, copy);
      try {
        expect(result.code, result.output.slice(-6000)).toBe(0);
        expect(result.output).toMatch(/Earn wrapper 0x[0-9a-fA-F]{40} for vault 0xbeeF010f9cb27031ad51e3333f9aF9C6B1228183 \(deployed\)/);
        expect(result.output).not.toMatch(/deprecated/i);
        const client = clientOf(path.join(copy, dataDir));
        const { enabledVaults = [] } = await client.listEarnEnabledVaults({});
        expect(enabledVaults.map((v) => v.depositsDisabled)).toEqual([true]);
        const { users } = await client.listUsers({});
        expect(users.length).toBeGreaterThan(3);
      } finally {
        result.stop();
      }
    });
  }
});
