/**
 * Adding a resource (docs/architecture.md, "Adding a resource"): a spec registered beside the
 * others is all the front doors need. One made-up kind, `Widget`, written as a kind file would
 * write it (a description and its CRUD logic, here over an in-memory "service"), yields its
 * TypeScript class, the plugin schema's resource, the Registry docs, its row of the resource tables and
 * its page in docs/resources/ (with its example as TypeScript and as YAML), its diff rules, and its place in `keyform export`'s TypeScript and YAML programs, without an edit
 * anywhere else.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handlers } from "../../sdk/resources/runtime";
import type { Handler } from "../../sdk/resources/runtime/framework";
import { makeHandler } from "../../sdk/resources/runtime/framework";
import { defineResource } from "../../sdk/resources/runtime/define";
import type { InputsOf, OutputsOf, ResourceDescription } from "../../sdk/resources/runtime/describe";
import { ProviderContext } from "../../sdk/resources/runtime/context";
import { sessionFor } from "../../sdk/resources/runtime/client";
import { packageSchema } from "../../sdk/plugin/schema";
import { exportOrganization } from "../../sdk/cli/export-model";
import { RENDERERS } from "../../sdk/cli/export-render";
import { generatedResourceFiles } from "../../scripts/resource-classes";
import { registryIndex, resourcePages, resourceSummary, resourceTable } from "../../scripts/resource-docs";
import * as fs from "node:fs";
import * as path from "node:path";
import { load } from "js-yaml";
import { repoRoot } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

const widgetDescription = {
  description: "A widget of the organization (a kind made up for this test).",
  // Its parts refer to `alice`, the own object of User's example: declared first, not restated here.
  example: { name: "blue", inputs: { widgetName: "blue", color: "COLOR_BLUE", parts: ["${alice.userId}"] } },
  importIdMeaning: "the widget's id, `widgetId`",
  inputs: {
    widgetName: { type: "string", description: "The widget's name.", required: true, defaultsToResourceName: true },
    color: { type: "string", enum: ["COLOR_RED", "COLOR_BLUE"], description: "Its color; a change replaces it.", required: true, replaceOnChange: true },
    parts: { type: "array", items: { type: "string" }, description: "Its parts (a set).", set: true, default: [] },
  },
  outputs: {
    widgetId: { type: "string", description: "The widget's id." },
    widgetName: { type: "string", description: "The name as the service holds it." },
    color: { type: "string", description: "The color as the service holds it." },
    parts: { type: "array", items: { type: "string" }, description: "The parts, sorted." },
  },
} as const satisfies ResourceDescription;

type WidgetState = InputsOf<typeof widgetDescription>;
type WidgetOutputs = OutputsOf<typeof widgetDescription>;
interface LiveWidget {
  id: string;
  name: string;
  color: "COLOR_RED" | "COLOR_BLUE";
  parts: string[];
}

/** The "service" of widgets: one that exists before the export. */
const widgets = new Map<string, LiveWidget>([["widget-1", { id: "widget-1", name: "blue one", color: "COLOR_BLUE", parts: ["b", "a"] }]]);

const widgetSpec = defineResource<WidgetState, WidgetOutputs, LiveWidget>({
  kind: "Widget",
  describe: widgetDescription,
  list: async () => [...widgets.values()].map((w) => ({ id: w.id, label: w.name })),
  idProperty: "widgetId",
  validate: () => [],
  label: (inputs) => JSON.stringify(inputs.widgetName ?? ""),
  fetch: async (_session, id) => widgets.get(id),
  flatten: (live) => ({ widgetId: live.id, widgetName: live.name, color: live.color, parts: [...live.parts].sort() }),
  async create(_session, inputs) {
    const live: LiveWidget = { id: `widget-${widgets.size + 1}`, name: inputs.widgetName, color: inputs.color, parts: inputs.parts };
    widgets.set(live.id, live);
    return { id: live.id, live };
  },
  async remove(_session, id) {
    widgets.delete(id);
  },
});

const registry = handlers as Record<string, Handler>;
let emu: TestEmulator;

beforeAll(async () => {
  registry.Widget = makeHandler(widgetSpec);
  emu = await startTestEmulator();
});

afterAll(async () => {
  delete registry.Widget;
  await emu?.stop();
});

describe("a new resource from its spec alone", () => {
  it("has a generated TypeScript class, exported from the index, with the enum as a literal union", () => {
    const files = generatedResourceFiles();
    const widgetClass = files["sdk/resources/widget.ts"];
    expect(widgetClass).toBeDefined();
    expect(widgetClass).toContain("export class Widget extends");
    expect(widgetClass).toMatch(/color[^\n]*"COLOR_RED" \| "COLOR_BLUE"/);
    expect(files["sdk/resources/index.ts"]).toContain('export * from "./widget";');
  });

  it("is a resource of the plugin's schema, its replacing input marked", () => {
    const resources = packageSchema("0.0.0").resources as Record<string, { inputProperties: Record<string, { replaceOnChanges?: boolean }>; requiredInputs?: string[] }>;
    const widget = resources["keyform:index:Widget"];
    expect(widget).toBeDefined();
    expect(Object.keys(widget!.inputProperties)).toEqual(expect.arrayContaining(["widgetName", "color", "parts", "organizationId", "importId"]));
    expect(widget!.inputProperties.color!.replaceOnChanges).toBe(true);
    expect(widget!.inputProperties.widgetName!.replaceOnChanges).toBeUndefined();
  });

  it("is in the Registry docs and the resource tables, with its change rule", () => {
    expect(registryIndex()).toContain("[`keyform:index:Widget`](resources/widget.md)");
    expect(resourceSummary()).toContain("| [`Widget`](docs/resources/widget.md) | A widget of the organization");
    const row = resourceTable()
      .split("\n")
      .find((line) => line.includes("Widget"));
    expect(row).toBeDefined();
    expect(row).toContain("`color`");
    expect(row).toContain("`widgetName`");
  });

  it("gets its page in docs/resources/, with its example as TypeScript and as YAML, from its description alone", () => {
    expect(fs.existsSync(path.join(repoRoot, "docs/resources/widget.md"))).toBe(false);
    const pages = resourcePages();
    const section = pages["docs/resources/widget.md"]!;
    expect(section).toBeDefined();
    expect(section.startsWith("# Widget\n")).toBe(true);
    expect(section).toContain(widgetDescription.description);
    const ts = /```ts\n([^]*?)\n```/.exec(section)![1]!;
    // The referred-to user comes first, then the widget, referring to it by variable.
    expect([...ts.matchAll(/new keyform\.(\w+)\("([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`)).toEqual(["User alice", "Widget blue"]);
    expect(ts).toContain("parts: [alice.userId]");
    const yaml = load(/```yaml\n([^]*?)\n```/.exec(section)![1]!) as { resources: Record<string, { type: string; properties: Record<string, unknown> }> };
    expect(yaml.resources.blue).toEqual({ type: "keyform:index:Widget", properties: { widgetName: "blue", color: "COLOR_BLUE", parts: ["${alice.userId}"] } });
    expect(yaml.resources.alice?.type).toBe("keyform:index:User");
    expect(section).toMatch(/\| `color` \| Its color; a change replaces it\. \|/);
    expect(section).toContain("A change of `color` replaces it.");
    // The other pages are the checked-in ones: the widget's is added, nothing else.
    const others = Object.entries(pages).filter(([file]) => file !== "docs/resources/widget.md");
    for (const [file, text] of others) expect(text, file).toBe(fs.readFileSync(path.join(repoRoot, file), "utf8"));
  });

  it("diffs by its description: color replaces, the name changes in place, parts compare as a set", async () => {
    const handler = registry.Widget!;
    const olds = { widgetId: "widget-1", widgetName: "blue one", color: "COLOR_BLUE", parts: ["a", "b"] };
    const same = await handler.diff("widget-1", olds, { widgetName: "blue one", color: "COLOR_BLUE", parts: ["b", "a"] });
    expect(same.changes).toBe(false);
    const renamed = await handler.diff("widget-1", olds, { widgetName: "renamed", color: "COLOR_BLUE", parts: ["a", "b"] });
    expect(renamed.changes).toBe(true);
    expect(renamed.replaces ?? []).toEqual([]);
    const recolored = await handler.diff("widget-1", olds, { widgetName: "blue one", color: "COLOR_RED", parts: ["a", "b"] });
    expect(recolored.replaces).toEqual(["color"]);
  });

  it("is exported by `keyform export`, as TypeScript and as YAML", async () => {
    const context = new ProviderContext(
      (key) =>
        ({
          "keyform:baseUrl": emu.emulator.url,
          "keyform:organizationId": emu.emulator.bootstrap.organizationId,
          "keyform:apiPublicKey": emu.emulator.bootstrap.apiPublicKey,
          "keyform:apiPrivateKey": emu.emulator.bootstrap.apiPrivateKey,
        })[key],
      undefined,
    );
    const organizationId = emu.emulator.bootstrap.organizationId;
    const resources = await exportOrganization(sessionFor(context, context.settings(), organizationId, "keyform export"));
    const widget = resources.find((r) => r.className === "Widget");
    expect(widget?.inputs).toEqual({ widgetName: "blue one", color: "COLOR_BLUE", parts: ["a", "b"], importId: "widget-1" });
    const typescript = RENDERERS.typescript!.render(resources, organizationId);
    expect(typescript).toContain("new keyform.Widget(");
    const yaml = RENDERERS.yaml!.render(resources, organizationId);
    expect(yaml).toContain("keyform:index:Widget");
    expect(yaml).toContain("widget-1");
  });
});
