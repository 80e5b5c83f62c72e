/**
 * @module test/support/declared-stacks
 * One list of declared resources as a stack on either front door, for the engine tests that run
 * the same case on both: the TypeScript path (the reconcile fixture program, dynamic providers,
 * settings from the environment) and the YAML path (a Pulumi YAML program through the provider
 * plugin, settings as stack config with the private key a secret). Also `kill -9` of a running
 * `pulumi up` and `pulumi cancel`, which the recovery tests share.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import { outputOf } from "./child-process";
import { createWorkDirStack, pulumiBinDir, repoRoot, type StackConfig, type TestStack } from "./engine";
import type { OrganizationAccess } from "./organization-snapshot";

/** The fixture program that declares what a JSON file lists (`reconcile-project:declarations`). */
export const RECONCILE_FIXTURE = path.join(repoRoot, "test", "engine", "fixtures", "reconcile-project");

/** One resource of a program: its class, its Pulumi name and its inputs. */
export interface Declared {
  kind: string;
  name: string;
  args: Record<string, unknown>;
}

/** A stack of declared resources, its program folder, and how to change what it declares. */
export interface DeclaredStack {
  readonly handle: TestStack;
  /** The folder `pulumi` runs in. */
  readonly workDir: string;
  /** Rewrites the program: the same stack, new declarations. */
  redeclare(next: Declared[]): void;
}

/** How a stack is made from declarations: {@link typescriptStack} or {@link yamlStack}. */
export type MakeDeclaredStack = (work: string, access: OrganizationAccess, declared: Declared[]) => Promise<DeclaredStack>;

/** The access to the organization of `bootstrap` (an emulator's) through `baseUrl` (e.g. a fault proxy's). */
export function accessThrough(baseUrl: string, bootstrap: Omit<OrganizationAccess, "baseUrl">): OrganizationAccess {
  return { baseUrl, organizationId: bootstrap.organizationId, apiPublicKey: bootstrap.apiPublicKey, apiPrivateKey: bootstrap.apiPrivateKey };
}

/** The provider settings of `access` as environment variables (the TypeScript path reads them there). */
export function settingsEnv(access: OrganizationAccess): Record<string, string> {
  return {
    KEYFORM_BASE_URL: access.baseUrl,
    KEYFORM_ORGANIZATION_ID: access.organizationId,
    KEYFORM_API_PUBLIC_KEY: access.apiPublicKey,
    KEYFORM_API_PRIVATE_KEY: access.apiPrivateKey,
  };
}

/** The provider settings of `access` as `keyform:*` stack config, the private key a secret. */
export function settingsStackConfig(access: OrganizationAccess): StackConfig {
  return {
    "keyform:baseUrl": access.baseUrl,
    "keyform:organizationId": access.organizationId,
    "keyform:apiPublicKey": access.apiPublicKey,
    "keyform:apiPrivateKey": { value: access.apiPrivateKey, secret: true },
  };
}

let sequence = 0;

/** The TypeScript path: the reconcile fixture reading the declarations from a file in `work`. */
export async function typescriptStack(work: string, access: OrganizationAccess, declared: Declared[]): Promise<DeclaredStack> {
  const file = path.join(work, `declared-${process.pid}-${sequence++}.json`);
  const write = (list: Declared[]) => fs.writeFileSync(file, JSON.stringify(list));
  write(declared);
  const handle = await createWorkDirStack({ workDir: RECONCILE_FIXTURE, envVars: settingsEnv(access), config: { "reconcile-project:declarations": file } });
  return { handle, workDir: RECONCILE_FIXTURE, redeclare: write };
}

/** The Pulumi YAML program declaring `declared` (inputs as JSON, which is YAML). */
export function yamlProgram(declared: readonly Declared[], project = "kf-declared"): string {
  const lines = [`name: ${project}`, "runtime: yaml", "resources:"];
  for (const d of declared) lines.push(`  ${d.name}:`, `    type: keyform:index:${d.kind}`, `    properties: ${JSON.stringify(d.args)}`);
  return `${lines.join("\n")}\n`;
}

/** The YAML path: a program of its own in a new folder under `work`, through the provider plugin. */
export async function yamlStack(work: string, access: OrganizationAccess, declared: Declared[]): Promise<DeclaredStack> {
  const dir = fs.mkdtempSync(path.join(work, "yaml-"));
  const write = (list: Declared[]) => fs.writeFileSync(path.join(dir, "Pulumi.yaml"), yamlProgram(list));
  write(declared);
  const handle = await createWorkDirStack({ workDir: dir, config: settingsStackConfig(access) });
  return { handle, workDir: dir, redeclare: write };
}

/** Both front doors, for `describe.each`. */
export const FRONT_DOORS: ReadonlyArray<{ path: string; make: MakeDeclaredStack }> = [
  { path: "TypeScript (dynamic providers)", make: typescriptStack },
  { path: "YAML (provider plugin)", make: yamlStack },
];

/** A resource of a stack's state. */
export interface StateEntry {
  readonly urn: string;
  readonly type: string;
  readonly id: string;
}

/** Every resource of the stack's state, and the keyform ones among them (either door's type tokens). */
export async function stateResources(stack: Stack): Promise<{ all: StateEntry[]; keyform: StateEntry[] }> {
  const exported = await stack.exportStack();
  const all = (exported.deployment as { resources?: StateEntry[] }).resources ?? [];
  return { all, keyform: all.filter((r) => /^(?:pulumi-nodejs:dynamic\/keyform|keyform:index):\w+$/.test(r.type)) };
}

/** The environment `pulumi` runs with for `stack` (its sandbox: backend, passphrase, PATH). */
export function stackEnv(stack: Stack): Record<string, string> {
  return { ...process.env, ...(stack.workspace as LocalWorkspace).envVars } as Record<string, string>;
}

async function childGroupsOf(pid: number): Promise<number[]> {
  const rows = (await outputOf("ps", ["-eo", "pid=,ppid=,pgid="])).trim().split("\n").map((line) => line.trim().split(/\s+/).map(Number));
  return [...new Set(rows.filter(([, ppid, pgid]) => ppid === pid && pgid !== pid).map(([, , pgid]) => pgid!))];
}

/**
 * Starts `pulumi up` of `stack` in `workDir`, waits until `ready()` holds (polled; e.g. a count
 * of creates seen by a proxy), then `kill -9`s it with its process group and its plugins' groups,
 * puts back a checkpoint the kill cut ({@link restoreCutCheckpoint}), and runs `pulumi cancel`,
 * as an operator would after a runner died. Says whether the run was still going when killed.
 * @throws Error when `pulumi cancel` fails.
 */
export async function killUpWhen(stack: Stack, workDir: string, ready: () => boolean, maxWaitMs = 300_000): Promise<{ runningAtKill: boolean }> {
  const env = stackEnv(stack);
  const pulumi = path.join(pulumiBinDir(), "pulumi");
  const child = spawn(pulumi, ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", stack.name], { cwd: workDir, env, detached: true, stdio: "ignore" });
  let ended = false;
  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => {
      ended = true;
      resolve();
    }),
  );
  const deadline = Date.now() + maxWaitMs;
  while (!ready() && !ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  const groups = await childGroupsOf(child.pid!);
  // Whether the kill interrupted the run: a run that had ended on its own proves nothing.
  const runningAtKill = !ended;
  process.kill(-child.pid!, "SIGKILL");
  for (const group of groups) {
    try {
      process.kill(-group, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  await exited;
  restoreCutCheckpoint(env.PULUMI_BACKEND_URL, stack.name);
  const cancel = spawnSync(pulumi, ["cancel", "--yes", "--stack", stack.name], { cwd: workDir, env, encoding: "utf8" });
  if (cancel.status !== 0) throw new Error(`pulumi cancel failed: ${cancel.stderr}`);
  return { runningAtKill };
}

/**
 * The engine's own limit, not keyform's: a `kill -9` that lands while the `file://` backend
 * rewrites the checkpoint can leave it cut off ("failed to load checkpoint: EOF"). The backend
 * keeps the previous checkpoint as `<stack>.json.bak`; putting it back is Pulumi's documented
 * recovery, and it leaves state knowing even fewer of the objects the killed run made, which
 * the next `up` must then adopt. The backend (gocloud's fileblob) also keeps a `<file>.attrs`
 * sidecar that it truncates before writing: a kill in between leaves it empty, and reading the
 * checkpoint then fails with the same EOF. A missing sidecar is read as default attributes,
 * so a cut one is removed.
 */
export function restoreCutCheckpoint(backendUrl: string | undefined, stackName: string): void {
  if (!backendUrl?.startsWith("file://")) return;
  const stacks = path.join(backendUrl.slice("file://".length), ".pulumi", "stacks");
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === `${stackName}.json`) found.push(full);
    }
  };
  if (fs.existsSync(stacks)) walk(stacks);
  const isCut = (file: string) => {
    try {
      JSON.parse(fs.readFileSync(file, "utf8"));
      return false;
    } catch {
      return true;
    }
  };
  for (const file of found) {
    if (isCut(file)) {
      console.log(`[killed run] the kill cut the engine's checkpoint ${file}; restored from its .bak`);
      fs.copyFileSync(`${file}.bak`, file);
    }
    for (const attrs of [`${file}.attrs`, `${file}.bak.attrs`]) {
      if (fs.existsSync(attrs) && isCut(attrs)) {
        console.log(`[killed run] the kill cut the backend's attributes file ${attrs}; removed`);
        fs.rmSync(attrs);
      }
    }
  }
}

