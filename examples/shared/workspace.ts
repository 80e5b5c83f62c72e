/**
 * Opens a stack of the example organization (the root Pulumi.yaml) with the Automation API,
 * on a local file backend: what the main command and the GitOps runner share.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import * as path from "node:path";
import { LocalWorkspace, PulumiCommand, type Stack } from "@pulumi/pulumi/automation";
import { pulumiParallel } from "../../sdk/gitops/parallel";

/** The repository root: this file compiles to dist/examples/shared/. */
export const repoRoot = path.resolve(__dirname, "..", "..", "..");

/** Where local, git-ignored state lives: the emulator's data and the Pulumi backend. */
export const localStateDir = path.join(repoRoot, ".keyform");

/**
 * The folder holding `pulumi` and its plugins: `scripts/install-pulumi` reuses a compatible
 * CLI on PATH or builds one (the first build takes minutes, later runs take seconds).
 */
export function pulumiBinDir(): string {
  const out = execFileSync("bash", [path.join(repoRoot, "scripts", "install-pulumi")], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  return out.trim().split("\n").pop()!.trim();
}

/** The `KEYFORM_*` settings of this process's environment, to hand to the CLI and plugins. */
export function keyformEnvironment(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith("KEYFORM_") && e[1] !== undefined),
  );
}

export interface OpenStackOptions {
  stackName: string;
  /** Passed to the CLI, the program and the provider plugins (KEYFORM_* settings among them). */
  envVars: Record<string, string>;
  /** The Pulumi project folder; defaults to the repository root (the example organization). */
  workDir?: string;
  /** Backend URL; defaults to a file backend under `.keyform/state` (or PULUMI_BACKEND_URL). */
  backendUrl?: string;
}

/** Selects (or creates) a stack of the root project. */
export async function openStack(options: OpenStackOptions): Promise<Stack> {
  const binDir = pulumiBinDir();
  const pulumiCommand = await PulumiCommand.get({ root: path.dirname(binDir) });
  const stateDir = path.join(localStateDir, "state");
  mkdirSync(stateDir, { recursive: true });
  const backendUrl = options.backendUrl ?? process.env.PULUMI_BACKEND_URL ?? `file://${stateDir}`;
  return LocalWorkspace.createOrSelectStack(
    { stackName: options.stackName, workDir: options.workDir ?? repoRoot },
    {
      pulumiCommand,
      envVars: {
        PULUMI_BACKEND_URL: backendUrl,
        // The local file backend encrypts stack secrets with this passphrase. The default
        // suits the throwaway dev stack; pipelines set their own.
        PULUMI_CONFIG_PASSPHRASE: process.env.PULUMI_CONFIG_PASSPHRASE ?? "keyform-local-dev",
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        // Enough operations at once for a wave of creates to form one plural activity (parallel.ts).
        PULUMI_PARALLEL: pulumiParallel(),
        ...options.envVars,
      },
    },
  );
}
