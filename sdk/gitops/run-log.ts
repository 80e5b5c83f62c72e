/**
 * @module gitops/run-log
 * What a GitOps command prints while it runs (stderr, the CI log): one line per step the engine
 * takes, and each error once. The engine's own output repeats a failed settings check for every
 * resource it meets (23 resources, 46 lines); here a settings error is printed once, in the
 * words of the report, and any other error once per distinct message.
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { isSettingsError, settingsCause } from "./summary";

/** Step kinds worth a line: the ones that change something, and reads of the live organization. */
const SHOWN_OPS = new Set(["create", "update", "replace", "delete", "refresh", "import", "read"]);

export class RunLog {
  private readonly printed = new Set<string>();

  constructor(private readonly write: (text: string) => void) {}

  /** Pass as (part of) the Automation API's `onEvent`. */
  readonly onEvent = (event: EngineEvent): void => {
    const step = event.resOutputsEvent?.metadata;
    if (step && SHOWN_OPS.has(step.op) && !step.type.startsWith("pulumi:")) {
      this.write(`  ${step.op} ${step.type.replace("pulumi-nodejs:dynamic/", "")} ${step.urn.split("::").pop() ?? step.urn}\n`);
    }
    const diag = event.diagnosticEvent;
    if (!diag || diag.ephemeral || (diag.severity !== "error" && diag.severity !== "warning")) return;
    const message = diag.message.trim().replace(/^(?:error|warning):\s*/u, "");
    if (message === "") return;
    const shown = isSettingsError(message) ? settingsCause(message) : message;
    if (this.printed.has(shown)) return;
    this.printed.add(shown);
    this.write(`${diag.severity}: ${shown}\n`);
  };

  /** An error that came from the run itself, not as an event; printed once as well. */
  error(message: string): void {
    const shown = isSettingsError(message) ? settingsCause(message) : message;
    if (this.printed.has(shown)) return;
    this.printed.add(shown);
    this.write(`error: ${shown}\n`);
  }
}
