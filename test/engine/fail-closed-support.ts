/**
 * Shared by the fail-closed engine tests: the outcome of a CLI command run through the
 * Automation API (exit code and everything it printed), and a snapshot of an organization's
 * objects read with the official client, to prove a fault changed nothing.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import type { ConfigMap, ConfigValue } from "@pulumi/pulumi/automation";
import type { TurnkeyClient } from "@turnkey/http";
import { repoRoot } from "../support/engine";

/** Exit code and output of a command; 0 and "" when it succeeded. */
export interface CommandOutcome {
  exitCode: number;
  output: string;
}

/** Waits for an Automation API command; a failure becomes its exit code and printed output. */
export async function commandOutcome(run: Promise<unknown>): Promise<CommandOutcome> {
  try {
    await run;
    return { exitCode: 0, output: "" };
  } catch (error) {
    const result = (error as { commandResult?: { code?: number; stdout?: string; stderr?: string } }).commandResult;
    const output = result !== undefined ? `${result.stdout ?? ""}\n${result.stderr ?? ""}` : String(error);
    return { exitCode: result?.code ?? -1, output };
  }
}

/**
 * How many refusals of the lockout proof a failed command's output holds: the engine prints each
 * check failure twice (as it happens, and in its "Diagnostics:" section), so the section counts.
 */
export function lockoutRefusals(output: string): number {
  const diagnostics = output.slice(output.lastIndexOf("Diagnostics:"));
  return diagnostics.match(/after this plan the deploying API key could not/g)?.length ?? 0;
}

/** `node <script of the build> <args>` with `env` (`script` relative to the repository, e.g. `dist/sdk/cli/main.js`): its exit code and output. */
export function builtScriptOutcome(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, script), ...args], { env });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

/** Stack config (a bare string is a plain value) as the Automation API's ConfigMap. */
export function plainConfig(config: Record<string, string | ConfigValue>): ConfigMap {
  return Object.fromEntries(Object.entries(config).map(([key, value]) => [key, typeof value === "string" ? { value } : value]));
}

/** What the organization holds, by id and name, sorted: equal snapshots mean nothing changed. */
export async function organizationSnapshot(official: TurnkeyClient, organizationId: string) {
  const { userTags } = await official.listUserTags({ organizationId });
  const { apiKeys } = await official.getApiKeys({ organizationId });
  const { wallets } = await official.getWallets({ organizationId });
  const accounts = await Promise.all(
    wallets.map(async (w) => (await official.getWalletAccounts({ organizationId, walletId: w.walletId })).accounts.map((a) => a.address)),
  );
  return {
    userTags: userTags.map((t) => `${t.tagId}:${t.tagName}`).sort(),
    apiKeyIds: apiKeys.map((k) => k.apiKeyId).sort(),
    apiKeyNames: apiKeys.map((k) => k.apiKeyName).sort(),
    walletIds: wallets.map((w) => w.walletId).sort(),
    walletNames: wallets.map((w) => w.walletName).sort(),
    addresses: accounts.flat().sort(),
  };
}
