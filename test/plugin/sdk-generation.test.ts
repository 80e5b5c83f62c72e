/**
 * The SDKs for the other Pulumi languages generate from the plugin's schema without error, the
 * Go SDK compiles (`go build ./...` against the Go module proxy) and the Python SDK byte-compiles.
 * Needs Go (the generators are Pulumi's, written in Go); without it the test is skipped and says so.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { outputOf, runChild } from "../support/child-process";

const repoRoot = path.resolve(__dirname, "..", "..");
const hasGo = spawnSync("go", ["version"]).status === 0;
const hasPython = spawnSync("python3", ["--version"]).status === 0;
const out = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-sdks-"));

afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

if (!hasGo) console.warn("sdk-generation: Go is not installed; skipping SDK generation and the Go SDK build");

describe.skipIf(!hasGo)("generated SDKs", () => {
  it("generate for Go and Python; the Go SDK compiles", { timeout: 600_000 }, async () => {
    await outputOf("bash", [path.join(repoRoot, "scripts", "gen-sdks"), out]);
    const goFiles = fs.readdirSync(path.join(out, "go", "keyform"));
    // One file per resource and data function, from the same registry the runtime uses.
    for (const name of ["userTag.go", "policy.go", "apiKey.go", "invitation.go", "smartContractInterface.go", "earnWrapperState.go", "provider.go", "listUsers.go"]) {
      expect(goFiles).toContain(name);
    }
    expect(fs.readFileSync(path.join(out, "go", "keyform", "apiKey.go"), "utf8")).toContain('"privateKey",'); // additional secret output

    // As printed: go.mod and go.sum are complete, so the build needs no `go mod tidy` (readonly mode).
    const env = { ...process.env, GOTOOLCHAIN: "local", CGO_ENABLED: "0", GOFLAGS: "-mod=readonly -buildvcs=false" };
    const goDir = path.join(out, "go");
    expect(fs.existsSync(path.join(goDir, "go.sum"))).toBe(true);
    const build = await runChild("go", ["build", "./..."], { cwd: goDir, env });
    expect(build.stderr).toBe("");
    expect(build.status).toBe(0);

    expect(fs.existsSync(path.join(out, "python", "pulumi_keyform", "policy.py"))).toBe(true);
    if (hasPython) {
      const compiled = await runChild("python3", ["-m", "compileall", "-q", path.join(out, "python")]);
      expect(compiled.stdout + compiled.stderr).toBe("");
      expect(compiled.status).toBe(0);
    }
  });
});
