import type { EngineEvent, StepEventMetadata } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { renderMarkdown, SummaryCollector } from "../../examples/gitops/summary";

const TYPE = "pulumi-nodejs:dynamic/keyform:Policy";
const urn = (name: string, type = TYPE) => `urn:pulumi:dev::keyform-org::${type}::${name}`;

function step(meta: Partial<StepEventMetadata> & Pick<StepEventMetadata, "op" | "urn">): EngineEvent {
  return {
    sequence: 0,
    timestamp: 0,
    resourcePreEvent: { metadata: { type: TYPE, provider: "", ...meta } as StepEventMetadata },
  };
}

const state = (inputs: Record<string, unknown>, outputs: Record<string, unknown> = inputs) =>
  ({ inputs: { __provider: "code", ...inputs }, outputs }) as never;

describe("SummaryCollector", () => {
  it("classifies steps and computes the changed fields from inputs when the engine sends none", () => {
    const collector = new SummaryCollector("preview", "dev");
    collector.onEvent(step({ op: "same", urn: urn("unchanged") }));
    collector.onEvent(step({ op: "create", urn: urn("new-policy"), new: state({ policyName: "a" }) }));
    collector.onEvent(
      step({
        op: "update",
        urn: urn("quorum"),
        old: state({ policyName: "q", consensus: "x >= 1", notes: "n" }),
        new: state({ policyName: "q", consensus: "x >= 2", notes: "n" }),
      }),
    );
    collector.onEvent(step({ op: "replace", urn: urn("key"), diffs: ["publicKey"] }));
    collector.onEvent(step({ op: "delete", urn: urn("old") }));
    collector.onEvent(step({ op: "create", urn: urn("dev", "pulumi:pulumi:Stack"), type: "pulumi:pulumi:Stack" }));

    const summary = collector.summary();
    expect(summary.changes.map((c) => [c.name, c.kind, c.fields])).toEqual([
      ["key", "replace", ["publicKey"]],
      ["new-policy", "create", []],
      ["old", "delete", []],
      ["quorum", "update", ["consensus"]],
    ]);
    expect(summary.counts).toEqual({ create: 1, update: 1, replace: 1, delete: 1, drift: 0 });
  });

  it("reports refreshed resources whose outputs changed as drift, and ignores unchanged ones", () => {
    const collector = new SummaryCollector("drift", "dev");
    collector.onEvent(step({ op: "refresh", urn: urn("same"), old: state({ a: 1 }), new: state({ a: 1 }) }));
    collector.onEvent(step({ op: "refresh", urn: urn("renamed"), old: state({ policyName: "a" }), new: state({ policyName: "b" }) }));
    // The engine reports most drift as an update step of the refresh.
    collector.onEvent(step({ op: "update", urn: urn("edited"), old: state({ notes: "x" }), new: state({ notes: "y" }) }));
    collector.onEvent(step({ op: "delete", urn: urn("gone"), old: state({ notes: "x" }) }));
    const summary = collector.summary();
    expect(summary.changes.map((c) => [c.name, c.kind, c.fields])).toEqual([
      ["edited", "drift", ["notes"]],
      ["gone", "delete", []],
      ["renamed", "drift", ["policyName"]],
    ]);
  });

  it("keeps error diagnostics and renders them", () => {
    const collector = new SummaryCollector("up", "prod");
    collector.onEvent({
      sequence: 1,
      timestamp: 0,
      diagnosticEvent: { message: "keyform:Policy failed: consensus needed\n", color: "never", severity: "error" },
    });
    const markdown = renderMarkdown(collector.summary());
    expect(markdown).toContain("### Applied changes (stack `prod`)");
    expect(markdown).toContain("- keyform:Policy failed: consensus needed");
  });

  it("renders a table of changes, and a clear line when there are none", () => {
    const collector = new SummaryCollector("preview", "dev");
    collector.onEvent(step({ op: "replace", urn: urn("key"), diffs: ["publicKey", "curveType"] }));
    const markdown = renderMarkdown(collector.summary());
    expect(markdown).toContain("1 to replace");
    expect(markdown).toContain("| replace | `key` | keyform:Policy | `curveType`, `publicKey` |");
    expect(renderMarkdown(new SummaryCollector("drift", "dev").summary())).toContain("No drift");
  });
});
