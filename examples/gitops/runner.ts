/**
 * The example organization's GitOps commands: `keyform gitops preview|up|drift` on the root
 * Pulumi project, with this checkout's defaults. It only sets what a platform repository sets in
 * its pipeline (the Pulumi CLI of `scripts/install-pulumi` on PATH, a local file backend under
 * `.keyform/state` unless PULUMI_BACKEND_URL says otherwise, the dev passphrase, the repository
 * root as the project folder) and hands its arguments to the CLI:
 *
 *   node dist/examples/gitops/runner.js preview --stack dev --out reports
 *
 * `keyform gitops --help` (sdk/cli/gitops.ts) describes the commands, flags and exit codes.
 */
import { mkdirSync } from "node:fs";
import * as path from "node:path";
import { buildProgram } from "../../sdk/cli/main";
import { localStateDir, pulumiBinDir, repoRoot } from "../shared/workspace";

function withDefaults(args: string[]): string[] {
  const [operation, ...rest] = args;
  const given = (flag: string) => rest.some((a) => a === flag || a.startsWith(`${flag}=`));
  const extra: string[] = [];
  if (operation !== undefined && !operation.startsWith("-")) {
    if (!given("--work-dir") && !given("-C")) extra.push("--work-dir", repoRoot);
    if (!given("--pulumi")) extra.push("--pulumi", pulumiBinDir());
  }
  return [operation ?? "--help", ...rest, ...extra];
}

const stateDir = path.join(localStateDir, "state");
mkdirSync(stateDir, { recursive: true });
process.env.PULUMI_BACKEND_URL ??= `file://${stateDir}`;
// The local file backend encrypts stack secrets with this passphrase; pipelines set their own.
process.env.PULUMI_CONFIG_PASSPHRASE ??= "keyform-local-dev";
process.env.PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION ??= "true";

buildProgram()
  .parseAsync(["node", "keyform", "gitops", ...withDefaults(process.argv.slice(2))])
  .catch((error: unknown) => {
    process.stderr.write(`keyform: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
