/**
 * The SDKs for the other Pulumi languages generate from the plugin's schema without error, the
 * Go SDK compiles (`go build ./...` against the Go module proxy) and the Python SDK byte-compiles.
 * Needs Go (the generators are Pulumi's, written in Go); without it the test is skipped and says so.
 *
 * The Go SDK is built in a folder named by the hash of its files (under .keyform/go-sdk): Go's
 * build cache keys a package by its folder as well as its bytes, so the same SDK built in a new
 * temporary folder compiled again every time (40 s on a loaded machine); in the same folder an
 * unchanged SDK is a cache hit (1 s), and a changed one compiles.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { outputOf, runChild } from "../support/child-process";

const repoRoot = path.resolve(__dirname, "..", "..");
const hasGo = spawnSync("go", ["version"]).status === 0;
const hasPython = spawnSync("python3", ["--version"]).status === 0;
const out = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-sdks-"));
const GO_SDK_BUILDS = path.join(repoRoot, ".keyform", "go-sdk");

/**
 * The generated Go SDK moved to .keyform/go-sdk/<hash of its files>, where an earlier run may
 * have built the same files; other SDKs there (of earlier sources) are removed.
 */
function goSdkFolder(generated: string): string {
  const files = (fs.readdirSync(generated, { recursive: true, encoding: "utf8" }) as string[]).filter((f) => fs.statSync(path.join(generated, f)).isFile()).sort();
  const hash = createHash("sha256");
  for (const file of files) hash.update(file + "\0").update(fs.readFileSync(path.join(generated, file))).update("\0");
  const name = hash.digest("hex").slice(0, 24);
  const folder = path.join(GO_SDK_BUILDS, name);
  fs.mkdirSync(GO_SDK_BUILDS, { recursive: true });
  for (const other of fs.readdirSync(GO_SDK_BUILDS)) if (other !== name && !other.includes(".")) fs.rmSync(path.join(GO_SDK_BUILDS, other), { recursive: true, force: true });
  // Same name, same bytes: a folder already there is kept as it is.
  if (!fs.existsSync(folder)) {
    // Copied beside it first (the temporary folder may be on another file system), then renamed whole.
    const staging = `${folder}.${process.pid}`;
    fs.cpSync(generated, staging, { recursive: true });
    try {
      fs.renameSync(staging, folder);
    } catch (error) {
      // Another run put the same files there first.
      fs.rmSync(staging, { recursive: true, force: true });
      if (!fs.existsSync(folder)) throw error;
    }
  }
  return folder;
}

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
    expect(fs.existsSync(path.join(out, "go", "go.sum"))).toBe(true);
    const goDir = goSdkFolder(path.join(out, "go"));
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
