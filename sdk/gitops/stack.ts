/**
 * @module gitops/stack
 * Opens the stack a GitOps command runs on: the Pulumi project in `workDir` (a platform team's
 * repository), the `pulumi` CLI from `pulumiBin` or PATH, the backend and passphrase from the
 * usual PULUMI_* environment (or the project's `backend:`), exactly as `pulumi up` in that
 * folder would. The stack is created when it does not exist yet, so a first pull request can
 * preview it.
 */
import * as path from "node:path";
import { LocalWorkspace, PulumiCommand, type Stack } from "@pulumi/pulumi/automation";
import { pulumiParallel } from "./parallel";

export interface GitopsStackOptions {
  readonly stackName: string;
  /** The Pulumi project folder (holds Pulumi.yaml); default the current folder. */
  readonly workDir?: string;
  /** The folder holding `pulumi` (and its plugins); default: `pulumi` on PATH. */
  readonly pulumiBin?: string;
  /** More environment for the CLI, the program and the providers. */
  readonly envVars?: Record<string, string>;
}

/** Selects (or creates) the stack. */
export async function openGitopsStack(options: GitopsStackOptions): Promise<Stack> {
  const bin = options.pulumiBin === undefined ? undefined : path.resolve(options.pulumiBin);
  const pulumiCommand = await PulumiCommand.get(bin ? { root: path.dirname(bin) } : {});
  // The engine finds its language hosts and plugins on PATH: the given folder goes first.
  const pathVar: Record<string, string> = bin ? { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` } : {};
  return LocalWorkspace.createOrSelectStack(
    { stackName: options.stackName, workDir: path.resolve(options.workDir ?? ".") },
    { pulumiCommand, envVars: { PULUMI_SKIP_UPDATE_CHECK: "true", PULUMI_PARALLEL: pulumiParallel(), ...pathVar, ...(options.envVars ?? {}) } },
  );
}
