/**
 * @module gitops/run-log
 * What a GitOps command prints while it runs (stderr, the CI log): one line per step the engine
 * takes. Errors and warnings are not printed as they come: the engine repeats a failed settings
 * check for every resource it meets (23 resources, 46 lines); they are printed once, folded by
 * cause, in the report the command prints at its end, which is the pull request comment word
 * for word.
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";

/** Step kinds worth a line: the ones that change something, and reads of the live organization. */
const SHOWN_OPS = new Set(["create", "update", "replace", "delete", "refresh", "import", "read"]);

export class RunLog {
  constructor(private readonly write: (text: string) => void) {}

  /** Pass as (part of) the Automation API's `onEvent`. */
  readonly onEvent = (event: EngineEvent): void => {
    const step = event.resOutputsEvent?.metadata;
    if (step && SHOWN_OPS.has(step.op) && !step.type.startsWith("pulumi:")) {
      this.write(`  ${step.op} ${step.type.replace("pulumi-nodejs:dynamic/", "")} ${step.urn.split("::").pop() ?? step.urn}\n`);
    }
  };
}
