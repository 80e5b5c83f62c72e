import type { EngineEvent, StepEventMetadata } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { RunLog } from "../../sdk/gitops/run-log";
import { MASKED, renderMarkdown, SummaryCollector } from "../../sdk/gitops/summary";

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

  it("says what happened in the words of the operation", () => {
    const drift = new SummaryCollector("drift", "dev");
    drift.onEvent(step({ op: "refresh", urn: urn("a"), old: state({ notes: "x" }), new: state({ notes: "y" }) }));
    drift.onEvent(step({ op: "refresh", urn: urn("b"), old: state({ notes: "x" }), new: state({ notes: "z" }) }));
    const driftMarkdown = renderMarkdown(drift.summary());
    expect(driftMarkdown).toContain("\n2 drifted\n");
    expect(driftMarkdown).not.toContain("to drifted");
    const up = new SummaryCollector("up", "dev");
    up.onEvent(step({ op: "create", urn: urn("new") }));
    expect(renderMarkdown(up.summary())).toContain("\n1 created\n");
  });

  it("keeps warnings in the Markdown and the JSON, each once", () => {
    const collector = new SummaryCollector("preview", "dev");
    const lint = { message: "warning: Policy \"p\": condition line 1, column 1: this ALLOW covers signing\n", color: "never", severity: "warning" as const };
    collector.onEvent({ sequence: 1, timestamp: 0, diagnosticEvent: lint });
    collector.onEvent({ sequence: 2, timestamp: 0, diagnosticEvent: lint });
    const summary = collector.summary();
    expect(summary.warnings).toEqual(['Policy "p": condition line 1, column 1: this ALLOW covers signing']);
    expect(renderMarkdown(summary)).toContain('**Warnings**\n\n- Policy "p": condition line 1, column 1: this ALLOW covers signing');
  });

  it("folds errors with one cause into one bullet with a count and the resources", () => {
    const collector = new SummaryCollector("drift", "dev");
    const cause = "listUsers: connection failed (ECONNREFUSED). Check keyform:baseUrl (KEYFORM_BASE_URL).";
    const names = ["ci", "deployer", "alice"];
    names.forEach((name, i) =>
      collector.onEvent({
        sequence: i,
        timestamp: 0,
        diagnosticEvent: { urn: urn(name), message: `ApiKey 6f1c${i}: read: ${cause}\n`, color: "never", severity: "error" },
      }),
    );
    collector.onEvent({ sequence: 9, timestamp: 0, diagnosticEvent: { message: "refresh failed", color: "never", severity: "error" } });
    const summary = collector.summary();
    expect(summary.errors).toHaveLength(4);
    // The engine's closing "refresh failed" says nothing the three errors do not.
    expect(summary.errorGroups).toEqual([{ cause, count: 3, resources: ["ci", "deployer", "alice"] }]);
    const markdown = renderMarkdown(summary);
    expect(markdown).toContain(`- 3× ${cause} (\`ci\`, \`deployer\`, \`alice\`)`);
    expect(markdown.match(/^- /gm)).toHaveLength(1);
  });

  it("folds errors that differ only by ids, addresses, keys and names", () => {
    const collector = new SummaryCollector("preview", "dev");
    const ids = ["0b1e6a52-3f43-4c1d-9d7e-2a6f0e1c9b11", "7c2d4e61-58a9-4b0f-8e3c-61d2f7a4c022", "e93f1a07-c4b2-4d8e-a5f6-0b7c3d9e1f33"];
    ids.forEach((id, i) =>
      collector.onEvent({
        sequence: i,
        timestamp: 0,
        diagnosticEvent: {
          urn: urn(`r${i}`),
          message: `error: Wallet ${id}: read: getWallet: wallet ${id} of "team-${i}" at 0x${String(i).repeat(40)} (key 02${"ab".repeat(32)}${i}) not found\n`,
          color: "never",
          severity: "error",
        },
      }),
    );
    const summary = collector.summary();
    expect(summary.errors).toHaveLength(3);
    expect(summary.errorGroups).toEqual([
      { cause: 'getWallet: wallet <id> of "<name>" at <address> (key <key>) not found', count: 3, resources: ["r0", "r1", "r2"] },
    ]);
  });

  it("reports a settings error once per run, however many resources met it, and keeps the closing line only when nothing explains it", () => {
    const collector = new SummaryCollector("preview", "dev");
    const settings =
      "keyform: the provider settings do not work: the service at http://127.0.0.1:8090 refused the API key 02aa in organization o-1 (whoami: unauthenticated); check keyform:apiPublicKey (KEYFORM_API_PUBLIC_KEY)";
    ["ops", "dev", "qa"].forEach((name, i) =>
      collector.onEvent({
        sequence: i,
        timestamp: 0,
        // As the engine reports a refresh step's failure during a preview.
        diagnosticEvent: { urn: urn(name), message: `Preview failed: UserTag 6f1c${i}: read: ${settings}\n`, color: "never", severity: "error" },
      }),
    );
    collector.onEvent({ sequence: 9, timestamp: 0, diagnosticEvent: { message: "preview failed", color: "never", severity: "error" } });
    const summary = collector.summary();
    expect(summary.errors).toEqual([settings, "preview failed"]);
    expect(summary.errorGroups).toEqual([{ cause: settings, count: 1, resources: [] }]);
    expect(renderMarkdown(summary)).toContain(`**Errors**\n\n- ${settings}\n`);

    const bare = new SummaryCollector("preview", "dev");
    bare.onEvent({ sequence: 1, timestamp: 0, diagnosticEvent: { message: "preview failed", color: "never", severity: "error" } });
    expect(bare.summary().errorGroups).toEqual([{ cause: "preview failed", count: 1, resources: [] }]);
  });

  it("gives every changed field's value before and after, secrets masked", () => {
    const collector = new SummaryCollector("preview", "dev");
    const secret = { "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", value: "s3cr3t-value" };
    collector.onEvent(
      step({
        op: "update",
        urn: urn("quorum"),
        old: state({ policyName: "q", condition: "activity.type == 'A'", notes: "n" }),
        new: state({ policyName: "q", condition: "activity.type == 'B'", notes: "n", webhookToken: "t0ken-value", extra: secret }),
      }),
    );
    const summary = collector.summary();
    expect(summary.changes[0]!.values).toEqual([
      { field: "condition", before: "activity.type == 'A'", after: "activity.type == 'B'" },
      { field: "extra", after: MASKED },
      { field: "webhookToken", after: MASKED },
    ]);
    const markdown = renderMarkdown(summary);
    expect(markdown).toContain("- `quorum` `condition`: `activity.type == 'A'` → `activity.type == 'B'`");
    expect(markdown).toContain("- `quorum` `webhookToken`: _(unset)_ → `[secret]`");
    expect(markdown).not.toContain("s3cr3t-value");
    expect(markdown).not.toContain("t0ken-value");
  });

  it("shows the values of a drifted field", () => {
    const drift = new SummaryCollector("drift", "dev");
    drift.onEvent(step({ op: "update", urn: urn("ops"), old: state({ userTagName: "ops" }), new: state({ userTagName: "ops-renamed" }) }));
    expect(renderMarkdown(drift.summary())).toContain("- `ops` `userTagName`: `ops` → `ops-renamed`");
  });
});

describe("RunLog", () => {
  it("prints one line per step, and no diagnostics: the report at the end gives each error once", () => {
    let printed = "";
    const log = new RunLog((text) => (printed += text));
    log.onEvent({ sequence: 1, timestamp: 0, resOutputsEvent: { metadata: { op: "create", urn: urn("ops"), type: TYPE, provider: "" } as StepEventMetadata, planning: false } });
    log.onEvent({ sequence: 2, timestamp: 0, resOutputsEvent: { metadata: { op: "same", urn: urn("qa"), type: TYPE, provider: "" } as StepEventMetadata, planning: false } });
    const settings = "keyform: the provider settings do not work: the service at http://127.0.0.1:8090 refused the API key 02aa in organization o-1 (whoami: unauthenticated); check keyform:apiPublicKey (KEYFORM_API_PUBLIC_KEY)";
    for (let i = 0; i < 23; i++) {
      log.onEvent({ sequence: i, timestamp: 0, diagnosticEvent: { urn: urn(`r${i}`), message: `Preview failed: UserTag 6f1c${i}: read: ${settings}\n`, color: "never", severity: "error" } });
    }
    expect(printed).toBe("  create keyform:Policy ops\n");
  });
});
