/**
 * The direction of dependency inside sdk/ (DESIGN.md, docs/architecture.md): wire at the bottom,
 * protocol and policy on it, the client on those, the emulator on wire, protocol, crypto and
 * policy only (so the keyform-emulator package needs nothing from the client or the resources),
 * the resources never on the emulator. Reads every import of every source file, relative ones
 * and the emulator's `keyform/<layer>/...` ones alike. Inside the provider runtime
 * (sdk/resources/runtime) no module reaches itself through its imports: the runtime's modules
 * form no import circle, type-only imports included.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../support/repo-copy";

const sdk = path.join(repoRoot, "sdk");

/** The layer a file of sdk/ (path relative to sdk/, without extension) belongs to. */
function layerOf(relative: string): string {
  const [top, ...rest] = relative.split("/");
  return rest.length === 0 ? top!.replace(/\.ts$/, "") : top!;
}

interface Import {
  from: string;
  specifier: string;
  target: string;
}

/** Every import of sdk/**\/*.ts that lands inside sdk/, as the layer-relative path it lands on. */
function sdkImports(): Import[] {
  const found: Import[] = [];
  for (const name of fs.readdirSync(sdk, { recursive: true, encoding: "utf8" })) {
    if (!name.endsWith(".ts")) continue;
    const file = path.join(sdk, name);
    // Comments hold examples (`import * as keyform from "keyform"`) that are not imports.
    const text = fs.readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    // Statements that start a line (not code inside a string), and require()/import() calls.
    const pattern = /^\s*(?:import|export)\s[^;]*?\sfrom\s+"([^"]+)"|^\s*import\s+"([^"]+)"|\b(?:require|import)\(\s*"([^"]+)"\s*\)/gm;
    for (const match of text.matchAll(pattern)) {
      const specifier = match[1] ?? match[2] ?? match[3];
      let target: string | undefined;
      if (specifier!.startsWith(".")) target = path.relative(sdk, path.resolve(path.dirname(file), specifier!));
      else if (specifier === "keyform") target = "index";
      else if (specifier!.startsWith("keyform/")) target = specifier!.slice("keyform/".length);
      if (target === undefined || target.startsWith("..")) continue;
      found.push({ from: name, specifier: specifier!, target });
    }
  }
  return found;
}

/** Layers each layer may import (besides itself). */
const ALLOWED: Record<string, readonly string[]> = {
  wire: [],
  crypto: [],
  protocol: ["wire"],
  policy: ["wire"],
  client: ["wire", "protocol", "crypto"],
  emulator: ["wire", "protocol", "crypto", "policy", "emulator-contract"],
  gitops: ["wire", "protocol", "crypto", "policy", "client", "resources"],
};

const imports = sdkImports();

/** The import circles among the modules under `folder` (relative to sdk/): each one's modules, sorted. */
function importCircles(found: readonly Import[], folder: string): string[][] {
  const inside = (p: string) => p.startsWith(`${folder}/`);
  const edges = new Map<string, Set<string>>();
  for (const i of found) {
    if (!inside(i.from)) continue;
    const from = i.from.replace(/\.ts$/, "");
    if (!edges.has(from)) edges.set(from, new Set());
    if (inside(i.target)) edges.get(from)!.add(i.target.replace(/\.ts$/, ""));
  }
  // Tarjan's strongly connected components: a component of more than one module (or a module
  // importing itself) is a circle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const circles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || edges.get(v)!.has(v)) circles.push(component.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return circles;
}

describe("layers of sdk/", () => {
  it("finds the imports it checks", () => {
    // A walker that saw nothing would pass everything.
    expect(imports.filter((i) => i.from.startsWith("emulator/")).length).toBeGreaterThan(50);
    expect(imports.some((i) => i.from.startsWith("emulator/") && i.specifier.startsWith("keyform/protocol/"))).toBe(true);
  });

  for (const [layer, allowed] of Object.entries(ALLOWED)) {
    it(`${layer} imports only ${allowed.join(", ") || "itself"}`, () => {
      const wrong = imports.filter((i) => layerOf(i.from) === layer && layerOf(i.target) !== layer && !allowed.includes(layerOf(i.target)));
      expect(wrong.map((i) => `${i.from}: ${i.specifier}`)).toEqual([]);
    });
  }

  it("the emulator reaches other layers only through keyform/... (what its own package can resolve)", () => {
    const relative = imports.filter((i) => layerOf(i.from) === "emulator" && layerOf(i.target) !== "emulator" && i.specifier.startsWith("."));
    expect(relative.map((i) => `${i.from}: ${i.specifier}`)).toEqual([]);
  });

  it("only the emulator uses keyform/... imports, and each one is a subpath the package exports", () => {
    const exported = Object.keys((JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { exports: Record<string, unknown> }).exports);
    const selfImports = imports.filter((i) => i.specifier === "keyform" || i.specifier.startsWith("keyform/"));
    expect(selfImports.filter((i) => layerOf(i.from) !== "emulator").map((i) => i.from)).toEqual([]);
    for (const i of selfImports) {
      const subpath = `.${i.specifier.slice("keyform".length)}`;
      const matches = exported.some((key) => key === subpath || (key.endsWith("/*") && subpath.startsWith(key.slice(0, -1))));
      expect(matches, `${i.from}: ${i.specifier}`).toBe(true);
    }
  });

  it("the provider runtime's modules import each other in no circle", () => {
    // A walker that saw nothing would pass everything.
    expect(imports.filter((i) => i.from.startsWith("resources/runtime/") && i.target.startsWith("resources/runtime/")).length).toBeGreaterThan(100);
    expect(importCircles(imports, "resources/runtime")).toEqual([]);
  });

  it("the runtime's shared types import nothing from the runtime", () => {
    const wrong = imports.filter((i) => i.from === "resources/runtime/run-types.ts" && i.target.startsWith("resources/runtime/"));
    expect(wrong.map((i) => i.specifier)).toEqual([]);
  });

  it("the circle check finds a circle", () => {
    const planted = [
      { from: "resources/runtime/a.ts", specifier: "./b", target: "resources/runtime/b" },
      { from: "resources/runtime/b.ts", specifier: "./c", target: "resources/runtime/c" },
      { from: "resources/runtime/c.ts", specifier: "./a", target: "resources/runtime/a" },
      { from: "resources/runtime/d.ts", specifier: "./a", target: "resources/runtime/a" },
    ];
    expect(importCircles(planted, "resources/runtime")).toEqual([["resources/runtime/a", "resources/runtime/b", "resources/runtime/c"]]);
  });

  it("the resources never import the emulator", () => {
    const wrong = imports.filter((i) => ["resources", "plugin"].includes(layerOf(i.from)) && layerOf(i.target) === "emulator");
    expect(wrong.map((i) => `${i.from}: ${i.specifier}`)).toEqual([]);
  });
});
