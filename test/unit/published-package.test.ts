/**
 * What a user installs: the root entry exports the public API only (resources, data functions,
 * the client and its errors, the emulator's entry), the lower layers stay behind their subpath
 * exports, and the packed tarballs (`scripts/pack-packages.ts`) hold no test-only code and no
 * stale output of a module that no longer exists. Loads dist/ (build first).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { registeredSpecs } from "../../sdk/resources/runtime";
import { DATA_FUNCTIONS } from "../../sdk/resources/runtime/queries";
import { repoRoot } from "../support/engine";
import { outputOf } from "../support/child-process";

const out = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-published-"));
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

/** Internals the root entry used to leak: each stays reachable from `keyform/client` only. */
const INTERNALS = ["Transport", "recoverSubmit", "pollActivity", "verifyStamp", "opensslVerifier", "nobleVerifier", "paginateQuery", "validateArguments", "sleep", "backoffDelay", "programSettings", "dynamicResourceArguments", "providerCode", "SimulatedAuthenticator"];

describe("the root entry", () => {
  const root = require(path.join(repoRoot, "dist", "sdk", "index.js")) as Record<string, unknown>;
  const names = Object.keys(root);

  it("exports every resource class and data function, the client, its errors and the emulator entry", () => {
    for (const spec of registeredSpecs()) expect(names, spec.kind).toContain(spec.kind);
    for (const fn of DATA_FUNCTIONS) expect(names, fn.name).toContain(fn.name);
    for (const name of ["KeyformClient", "AuthProxyClient", "ApiKeyStamper", "generateApiKeyPair", "KeyformError", "ApiError", "ConsensusNeededError", "verifyWebhookSignature", "startEmulator"]) {
      expect(names).toContain(name);
    }
  });

  it("exports no internals; they stay behind keyform/client", () => {
    expect(names.filter((n) => INTERNALS.includes(n))).toEqual([]);
    const client = require(path.join(repoRoot, "dist", "sdk", "client", "index.js")) as Record<string, unknown>;
    for (const name of ["Transport", "recoverSubmit", "pollActivity", "verifyStamp"]) expect(Object.keys(client)).toContain(name);
    // Every value export is a resource, a data function, part of the client, or an error.
    expect(names.length).toBeLessThan(100);
  });
});

describe("the packed tarballs", () => {
  it("hold no test-only code and no output without a source", { timeout: 300_000 }, async () => {
    // A module that no longer exists but whose old output is still in dist/ must not ship.
    const stale = path.join(repoRoot, "dist", "sdk", "resources", "removed-module-probe.js");
    fs.writeFileSync(stale, "exports.stale = true;\n");
    let tarballs: string[];
    try {
      tarballs = (await outputOf(process.execPath, [path.join(repoRoot, "dist", "scripts", "pack-packages.js"), "--out", out])).trim().split("\n");
    } finally {
      fs.rmSync(stale, { force: true });
    }
    expect(tarballs).toHaveLength(2);
    for (const tarball of tarballs) {
      const dir = fs.mkdtempSync(path.join(out, "unpacked-"));
      await outputOf("tar", ["-xzf", tarball, "-C", dir]);
      const files = fs.readdirSync(path.join(dir, "package"), { recursive: true, encoding: "utf8" });
      expect(files.filter((f) => /smoke-probe|removed-module-probe|\.map$|\.test\./.test(f)), tarball).toEqual([]);
      for (const file of files.filter((f) => f.endsWith(".js") || f.endsWith(".d.ts"))) {
        const text = fs.readFileSync(path.join(dir, "package", file), "utf8");
        expect(text.includes("SimulatedAuthenticator"), `${file} holds the test authenticator`).toBe(false);
      }
    }
  });
});
