/**
 * The TypeScript resource classes, the resource tables (README.md, docs/resources.md), the
 * resource pages (docs/resources/) and the Registry docs are
 * generated from the resource descriptions: the checked-in files are exactly what
 * `npm run gen:resources` writes (a description changed without regenerating fails here), and
 * the generated types hold the program to the service's values.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { generatedDataFiles } from "../../scripts/data-functions";
import { generatedResourceFiles } from "../../scripts/resource-classes";
import { generatedDocFiles, resourcePages } from "../../scripts/resource-docs";
import { registeredSpecs } from "../../sdk/resources/runtime";
import { repoRoot } from "../support/engine";

const run = promisify(execFile);

describe("generated resource classes and docs", () => {
  const files = { ...generatedResourceFiles(), ...generatedDataFiles(), ...generatedDocFiles(repoRoot) };

  it.each(Object.keys(files))("%s is up to date (run `npm run gen:resources`)", (file) => {
    expect(fs.readFileSync(path.join(repoRoot, file), "utf8")).toBe(files[file]);
  });

  it("docs/resources/ holds exactly the registered resources' pages (a removed resource's page goes too)", () => {
    const pages = fs.readdirSync(path.join(repoRoot, "docs", "resources")).map((name) => `docs/resources/${name}`).sort();
    expect(pages).toEqual(Object.keys(resourcePages()).sort());
  });

  it("has one class per registered resource, exported from the package", async () => {
    const keyform = (await import("../../sdk/index")) as unknown as Record<string, unknown>;
    for (const spec of registeredSpecs()) expect(typeof keyform[spec.kind], spec.kind).toBe("function");
  });

  it("a misspelt enum value or a missing required argument fails to compile, the documented values compile", { timeout: 600_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(repoRoot, ".keyform-typecheck-"));
    try {
      const program = (body: string) =>
        [`import * as pulumi from "@pulumi/pulumi";`, `import * as keyform from "../sdk";`, `void pulumi;`, body, ""].join("\n");
      fs.writeFileSync(path.join(dir, "good.ts"), program(
        [
          'new keyform.Policy("p", { policyName: "p", effect: "EFFECT_ALLOW" });',
          'new keyform.Wallet("w", { accounts: [{ curve: "CURVE_ED25519", path: "m/0\'", addressFormat: "ADDRESS_FORMAT_SOLANA" }] });',
          'new keyform.ApiKey("k", { userId: "u", apiKeyName: "k", expirationSeconds: 3600, curveType: pulumi.output("API_KEY_CURVE_ED25519" as const) });',
          'new keyform.UserTag("t");',
          'const effect: pulumi.Output<"EFFECT_ALLOW" | "EFFECT_DENY"> = new keyform.Policy("q", { policyName: "q", effect: "EFFECT_DENY" }).effect;',
          "void effect;",
        ].join("\n"),
      ));
      fs.writeFileSync(path.join(dir, "bad.ts"), program(
        [
          'new keyform.Policy("p", { policyName: "p", effect: "EFFECT_ALOW" });',
          'new keyform.Wallet("w", { accounts: [{ curve: "CURVE_P256", path: "m/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] });',
          'new keyform.Invitation("i", { receiverUserName: "a", receiverUserEmail: "a@b.c", accessType: "ACCESS_TYPE_WEB" });',
        ].join("\n"),
      ));
      const tsc = path.join(repoRoot, "node_modules", ".bin", "tsc");
      const flags = ["--noEmit", "--strict", "--skipLibCheck", "--module", "node16", "--moduleResolution", "node16", "--target", "ES2022", "--types", "node"];
      await run(tsc, [...flags, path.join(dir, "good.ts")]);
      const bad = await run(tsc, [...flags, path.join(dir, "bad.ts")]).then(
        () => "",
        (e: { stdout: string }) => e.stdout,
      );
      expect(bad).toMatch(/bad\.ts\(4,.*"EFFECT_ALOW"/);
      expect(bad).toMatch(/bad\.ts\(5,.*"CURVE_P256"/);
      expect(bad).toMatch(/bad\.ts\(6,[^]*senderUserId/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
