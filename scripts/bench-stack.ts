/**
 * @module scripts/bench-stack
 * The throwaway inline stack the engine benchmarks run (`bench-plugin`, `bench-reads`,
 * `bench-reconcile`): its own project folder and file backend under the run's scratch folder,
 * and the emulator's credentials pointed at `baseUrl` (the emulator, or a proxy in front of it).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { LocalWorkspace, PulumiCommand, type PulumiFn, type Stack } from "@pulumi/pulumi/automation";
import { pulumiBinDir, repoRoot } from "../examples/shared/workspace";
import type { Bootstrap } from "../sdk/emulator-contract";
import { ApiKeyStamper } from "../sdk/protocol/api-key-stamper";
import { KeyformClient } from "../sdk/client/client";

export interface BenchStackOptions {
  /** The run's scratch folder: the project, its state and the Pulumi home go below it. */
  work: string;
  projectName: string;
  program: PulumiFn;
  /** The CLI from {@link benchPulumiCommand}. */
  pulumiCommand: PulumiCommand;
  /** Where the providers send their requests. */
  baseUrl: string;
  /** The emulator's credentials. */
  bootstrap: Pick<Bootstrap, "organizationId" | "apiPublicKey" | "apiPrivateKey">;
  /** More environment for the CLI, the program and the providers (e.g. a PATH with the plugin). */
  envVars?: Record<string, string>;
}

/** The Pulumi CLI `scripts/install-pulumi` provides. */
export function benchPulumiCommand(): Promise<PulumiCommand> {
  return PulumiCommand.get({ root: path.dirname(pulumiBinDir()) });
}

/** Creates the stack `bench` of project `projectName`, with a fresh file backend. */
export async function createBenchStack(options: BenchStackOptions): Promise<Stack> {
  const { work, projectName, bootstrap } = options;
  const projectDir = path.join(work, `project-${projectName}`);
  const stateDir = path.join(work, `state-${projectName}`);
  fs.mkdirSync(projectDir, { recursive: true });
  fs.mkdirSync(stateDir, { recursive: true });
  return LocalWorkspace.createStack(
    { stackName: "bench", projectName, program: options.program },
    {
      workDir: projectDir,
      pulumiCommand: options.pulumiCommand,
      // The engine starts the dynamic providers and the plugin in `main`, where they find keyform
      // and @pulumi/pulumi.
      projectSettings: { name: projectName, runtime: "nodejs", main: repoRoot },
      envVars: {
        PULUMI_BACKEND_URL: `file://${stateDir}`,
        PULUMI_CONFIG_PASSPHRASE: "bench",
        PULUMI_HOME: path.join(work, "pulumi-home"),
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
        KEYFORM_BASE_URL: options.baseUrl,
        KEYFORM_ORGANIZATION_ID: bootstrap.organizationId,
        KEYFORM_API_PUBLIC_KEY: bootstrap.apiPublicKey,
        KEYFORM_API_PRIVATE_KEY: bootstrap.apiPrivateKey,
        ...options.envVars,
      },
    },
  );
}

/**
 * Makes `count` users (named `<prefix>-keys-<i>`) to hold a benchmark's API keys
 * (`spreadApiKeys`): the service holds at most 10 long-lived and 10 expiring keys per user.
 */
export async function createKeyOwners(baseUrl: string, bootstrap: Pick<Bootstrap, "organizationId" | "apiPublicKey" | "apiPrivateKey">, prefix: string, count: number): Promise<string[]> {
  if (count === 0) return [];
  const client = new KeyformClient({
    baseUrl,
    organizationId: bootstrap.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: bootstrap.apiPublicKey, apiPrivateKey: bootstrap.apiPrivateKey }),
  });
  const { userIds } = await client.createUsers({
    users: Array.from({ length: count }, (_, i) => ({ userName: `${prefix}-keys-${i}`, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] })),
  });
  return userIds;
}
