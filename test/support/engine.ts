/**
 * @module test/support/engine
 * Stacks on the real Pulumi engine for end-to-end tests. Every stack gets its own temporary
 * `file://` backend, `PULUMI_HOME` and passphrase secrets provider, so tests never touch a
 * developer's Pulumi login or each other's state, and plugins are never downloaded: the CLI and
 * its plugins come from `scripts/install-pulumi`.
 *
 * What a stack costs besides its engine runs is kept small (docs/testing.md, "One engine run"):
 * one `pulumi version` per test process, not per stack, no `pulumi stack rm` (the sandbox goes
 * whole), and the reads Automation makes after each run cut from three CLI runs in a row, each
 * unlocking the passphrase, to at most one (none when the outputs hold no secret).
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import {
  LocalWorkspace,
  PulumiCommand,
  type ConfigMap,
  type ConfigValue,
  type OpMap,
  type PulumiFn,
  type Stack,
  type UpdateSummary,
} from "@pulumi/pulumi/automation";

/** The repository root (this file is test/support/engine.ts). */
export const repoRoot = path.resolve(__dirname, "..", "..");

/** Passphrase of the throwaway secrets provider; the state it protects is deleted by cleanup(). */
export const TEST_PASSPHRASE = "keyform-engine-tests";

/** Stack config: full keys (`keyform:baseUrl`, `<project>:name`); a bare string is a plain value. */
export type StackConfig = Record<string, string | ConfigValue>;

/** A stack ready to run, and the way to throw it away. */
export interface TestStack {
  readonly stack: Stack;
  /** Removes the stack's Pulumi.<stack>.yaml and every temporary folder (its backend among them). Never throws. */
  cleanup(): Promise<void>;
}

/** Options of {@link createInlineStack}. */
export interface InlineStackOptions {
  /** Pulumi project name; also the namespace of un-prefixed config keys inside the program. */
  projectName: string;
  /** The program, run in this process. Load keyform from dist/ (compiled CommonJS), not from TS. */
  program: PulumiFn;
  /** Extra environment for the CLI, the program's plugins and the dynamic providers. */
  envVars?: Record<string, string>;
  config?: StackConfig;
}

/** Options of {@link createWorkDirStack}. */
export interface WorkDirStackOptions {
  /** Folder holding Pulumi.yaml; its `main` is run by keyform's Node.js language host. */
  workDir: string;
  envVars?: Record<string, string>;
  config?: StackConfig;
}

let cachedBinDir: string | undefined;
let sharedCommand: Promise<PulumiCommand> | undefined;

/**
 * The folder holding `pulumi`, `pulumi-language-nodejs` and `pulumi-resource-pulumi-nodejs`.
 * Runs `scripts/install-pulumi` once per process: it returns at once when the CLI is cached or on
 * PATH, and builds it (minutes) otherwise.
 * @throws Error when the script fails; its progress and error output go to this process's stderr.
 */
export function pulumiBinDir(): string {
  if (cachedBinDir === undefined) {
    const out = execFileSync("bash", [path.join(repoRoot, "scripts", "install-pulumi")], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    const dir = out.trim();
    if (!dir || !fs.existsSync(path.join(dir, "pulumi"))) {
      throw new Error(`scripts/install-pulumi printed '${dir}', which holds no pulumi executable`);
    }
    cachedBinDir = dir;
  }
  return cachedBinDir;
}

/**
 * The CLI of {@link pulumiBinDir}, asked for its version once per process: `PulumiCommand.get`
 * runs `pulumi version` each time, and the answer cannot change within a test run.
 */
function pulumiCommand(): Promise<PulumiCommand> {
  sharedCommand ??= PulumiCommand.get({ root: path.dirname(pulumiBinDir()) }).catch((err: unknown) => {
    sharedCommand = undefined;
    throw err;
  });
  return sharedCommand;
}

/** Temporary folders of one stack. */
interface Sandbox {
  readonly root: string;
  readonly env: Record<string, string>;
}

function createSandbox(envVars: Record<string, string> | undefined): Sandbox {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-engine-"));
  const state = path.join(root, "state");
  const home = path.join(root, "pulumi-home");
  fs.mkdirSync(state);
  fs.mkdirSync(home);
  const env: Record<string, string> = {
    PULUMI_BACKEND_URL: `file://${state}`,
    PULUMI_CONFIG_PASSPHRASE: TEST_PASSPHRASE,
    PULUMI_HOME: home,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    // keyform's create journal (which objects this stack created) lives and dies with the stack.
    KEYFORM_JOURNAL_DIR: path.join(root, "journal"),
    // The engine finds its bundled plugins next to `pulumi`; having them on PATH too keeps any
    // ambient-plugin lookup on the same copies. bin/ holds this checkout's provider plugin
    // (pulumi-resource-keyform), which the engine finds on PATH.
    PATH: [pulumiBinDir(), path.join(repoRoot, "bin"), process.env.PATH ?? ""].join(path.delimiter),
    ...envVars,
  };
  return { root, env };
}

function uniqueStackName(): string {
  return `t${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
}

function toConfigMap(config: StackConfig): ConfigMap {
  const map: ConfigMap = {};
  for (const [key, value] of Object.entries(config)) {
    map[key] = typeof value === "string" ? { value } : value;
  }
  return map;
}

/** The signature Pulumi puts beside a secret value in state (`{ <sig>: SECRET_SIG_VALUE, ciphertext }`). */
const SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d";
const SECRET_SIG_VALUE = "1b47061264138c4ac30d75fd1eb44270";

/** The stack's outputs as its checkpoint at rest holds them. */
interface OutputsAtRest {
  readonly outputs: Record<string, unknown>;
  /** The outputs stored encrypted (secret as a whole). */
  readonly secretKeys: Set<string>;
  /** Whether any value holds a special Pulumi value (a secret, a resource reference, an asset): then only the CLI shows it as `stack output` does. */
  readonly special: boolean;
}

/**
 * The outputs of the stack's root `pulumi:pulumi:Stack` resource in its checkpoint at rest (the
 * sandbox's `file://` backend), or undefined when no checkpoint of `stackName` is found.
 */
function outputsAtRest(backendUrl: string | undefined, stackName: string): OutputsAtRest | undefined {
  if (!backendUrl?.startsWith("file://")) return undefined;
  const stacksDir = path.join(backendUrl.slice("file://".length), ".pulumi", "stacks");
  const projects = fs.existsSync(stacksDir) ? fs.readdirSync(stacksDir, { withFileTypes: true }) : [];
  const file = projects.map((p) => path.join(stacksDir, p.name, `${stackName}.json`)).find((f) => fs.existsSync(f));
  if (file === undefined) return undefined;
  type Checkpoint = { checkpoint?: { latest?: { resources?: Array<{ type: string; outputs?: Record<string, unknown> }> } } };
  const resources = (JSON.parse(fs.readFileSync(file, "utf8")) as Checkpoint).checkpoint?.latest?.resources ?? [];
  const outputs = resources.find((r) => r.type === "pulumi:pulumi:Stack")?.outputs ?? {};
  const isSecret = (value: unknown) => (value as Record<string, unknown> | null)?.[SECRET_SIG_KEY] === SECRET_SIG_VALUE;
  const isSpecial = (value: unknown): boolean =>
    typeof value === "object" && value !== null && (SECRET_SIG_KEY in value || Object.values(value).some(isSpecial));
  return { outputs, secretKeys: new Set(Object.keys(outputs).filter((key) => isSecret(outputs[key]))), special: isSpecial(outputs) };
}

/**
 * After every `up`, Automation reads the stack's outputs twice (masked, then with secrets shown)
 * and its last history entry with secrets shown: three CLI runs one after the other, each
 * costing 0.1-0.3 s of CPU (the CLI's start and the passphrase's key derivation). Here the
 * outputs are read from the stack's checkpoint at rest (the root stack resource's outputs, plain
 * JSON there) when none of them holds a special value; otherwise once through the CLI with
 * secrets shown, and which of them are secret is read from the checkpoint, where a secret output
 * is stored encrypted (the masked read Automation derives the same flag from stays the fallback
 * when no checkpoint is found). The history entry, which gives the summary (operation counts and
 * result), is read from the newest history file of the backend ({@link lastUpdateAtRest}).
 */
function withLighterReads(stack: Stack): void {
  const workspace = stack.workspace as LocalWorkspace;
  const read = async (args: string[]) => (await workspace.pulumiCommand.run(args, workspace.workDir, { ...workspace.envVars })).stdout;
  workspace.stackOutputs = async (stackName: string) => {
    const atRest = outputsAtRest(workspace.envVars.PULUMI_BACKEND_URL, stackName);
    if (atRest !== undefined && !atRest.special) {
      return Object.fromEntries(Object.entries(atRest.outputs).map(([key, value]) => [key, { value, secret: false }]));
    }
    const plain = read(["stack", "output", "--json", "--show-secrets", "--stack", stackName]);
    let secretKeys = atRest?.secretKeys;
    if (secretKeys === undefined) {
      const masked = JSON.parse(await read(["stack", "output", "--json", "--stack", stackName])) as Record<string, unknown>;
      secretKeys = new Set(Object.keys(masked).filter((key) => masked[key] === "[secret]"));
    }
    const plainOuts = JSON.parse(await plain) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(plainOuts).map(([key, value]) => [key, { value, secret: secretKeys.has(key) }]));
  };
  const info = stack.info.bind(stack);
  stack.info = async (showSecrets?: boolean) => lastUpdateAtRest(workspace.envVars.PULUMI_BACKEND_URL, stack.name) ?? info(showSecrets ?? false);
}

/** A history entry as the file backend stores it (`apitype.UpdateInfo`: times in Unix seconds). */
interface StoredUpdate {
  kind: UpdateSummary["kind"];
  startTime: number;
  endTime: number;
  message: string;
  environment: Record<string, string>;
  /** A plain value as it is, a secret as `{ secure: <ciphertext> }`. */
  config?: Record<string, unknown>;
  result: UpdateSummary["result"];
  version: number;
  resourceChanges?: OpMap;
}

/**
 * The summary of the stack's last update (`up`, `preview` is not recorded, `refresh`, `destroy`)
 * read from the newest history file of its `file://` backend, in the form Automation gives for
 * `pulumi stack history --json` (what `stack.info()` runs after each update, about 0.12 s of CPU);
 * undefined when the backend holds no history of the stack, and the CLI is asked instead.
 */
function lastUpdateAtRest(backendUrl: string | undefined, stackName: string): UpdateSummary | undefined {
  if (!backendUrl?.startsWith("file://")) return undefined;
  const historyDir = path.join(backendUrl.slice("file://".length), ".pulumi", "history");
  const projects = fs.existsSync(historyDir) ? fs.readdirSync(historyDir) : [];
  const dir = projects.map((p) => path.join(historyDir, p, stackName)).find((d) => fs.existsSync(d));
  if (dir === undefined) return undefined;
  // `<stack>-<unix nanoseconds>.history.json`: the newest has the greatest number.
  const stamp = (name: string) => BigInt(/-(\d+)\.history\.json$/.exec(name)?.[1] ?? "0");
  const newest = fs
    .readdirSync(dir)
    .filter((name) => name.endsWith(".history.json"))
    .sort((a, b) => (stamp(a) < stamp(b) ? -1 : stamp(a) > stamp(b) ? 1 : 0))
    .at(-1);
  if (newest === undefined) return undefined;
  const stored = JSON.parse(fs.readFileSync(path.join(dir, newest), "utf8")) as StoredUpdate;
  return {
    version: stored.version,
    kind: stored.kind,
    startTime: new Date(stored.startTime * 1000),
    message: stored.message,
    environment: stored.environment,
    // As `stack history --json` without --show-secrets shows it: secrets without their value.
    config: Object.fromEntries(
      Object.entries(stored.config ?? {}).map(([key, v]) => {
        if ((v as { secure?: unknown } | null)?.secure !== undefined) return [key, { secret: true }];
        return [key, { value: typeof v === "string" ? v : JSON.stringify(v), secret: false }];
      }),
    ),
    result: stored.result,
    endTime: new Date(stored.endTime * 1000),
    resourceChanges: stored.resourceChanges,
  };
}

async function finish(stack: Stack, sandbox: Sandbox, config: StackConfig | undefined): Promise<TestStack> {
  withLighterReads(stack);
  if (config && Object.keys(config).length > 0) {
    await stack.setAllConfig(toConfigMap(config));
  }
  return {
    stack,
    async cleanup() {
      // No `pulumi stack rm`: the stack's backend, PULUMI_HOME and journal live in the sandbox,
      // deleted here, and its config file is the one thing outside it. Whatever a failed test
      // left in the organization lives in a test emulator, thrown away too.
      const workDir = stack.workspace.workDir;
      fs.rmSync(path.join(workDir, `Pulumi.${stack.name}.yaml`), { force: true });
      fs.rmSync(sandbox.root, { recursive: true, force: true });
    },
  };
}

/**
 * A stack whose program runs in this process (Automation API inline program).
 *
 * The project's `main` is the repository root: the engine starts plugins there, so the
 * dynamic-provider launcher resolves `@pulumi/pulumi` (and serialized providers resolve keyform's
 * dependencies) from the repository's node_modules.
 * @throws Error when the CLI cannot be installed or the stack cannot be created.
 */
export async function createInlineStack(options: InlineStackOptions): Promise<TestStack> {
  const sandbox = createSandbox(options.envVars);
  try {
    const workDir = path.join(sandbox.root, "project");
    fs.mkdirSync(workDir);
    const stack = await LocalWorkspace.createStack(
      { stackName: uniqueStackName(), projectName: options.projectName, program: options.program },
      {
        workDir,
        pulumiCommand: await pulumiCommand(),
        envVars: sandbox.env,
        projectSettings: { name: options.projectName, runtime: "nodejs", main: repoRoot },
      },
    );
    return await finish(stack, sandbox, options.config);
  } catch (err) {
    fs.rmSync(sandbox.root, { recursive: true, force: true });
    throw err;
  }
}

/**
 * A stack of the Pulumi project in `workDir`, run through keyform's Node.js language host.
 * Pulumi writes `Pulumi.<stack>.yaml` into `workDir`; cleanup() deletes it again.
 * @throws Error when the CLI cannot be installed or the stack cannot be created.
 */
export async function createWorkDirStack(options: WorkDirStackOptions): Promise<TestStack> {
  if (!fs.existsSync(path.join(options.workDir, "Pulumi.yaml"))) {
    throw new Error(`workDir ${options.workDir} has no Pulumi.yaml`);
  }
  const sandbox = createSandbox(options.envVars);
  try {
    const stack = await LocalWorkspace.createStack(
      { stackName: uniqueStackName(), workDir: options.workDir },
      { pulumiCommand: await pulumiCommand(), envVars: sandbox.env },
    );
    return await finish(stack, sandbox, options.config);
  } catch (err) {
    fs.rmSync(sandbox.root, { recursive: true, force: true });
    throw err;
  }
}

/**
 * The stack's state as stored at rest: every file of its `file://` backend (checkpoints,
 * backups, history) and its `Pulumi.<stack>.yaml`, concatenated. Use this to prove a secret
 * never reaches state in plaintext; Automation's `stack.exportStack()` runs
 * `pulumi stack export --show-secrets`, so it shows every secret decrypted.
 * @throws Error when the stack does not use a file backend.
 */
export function storedState(stack: Stack): string {
  const url = (stack.workspace as LocalWorkspace).envVars.PULUMI_BACKEND_URL;
  if (!url?.startsWith("file://")) throw new Error(`not a file backend: ${String(url)}`);
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else texts.push(fs.readFileSync(full, "utf8"));
    }
  };
  walk(url.slice("file://".length));
  // The stack's config file holds secret config, encrypted.
  const configFile = path.join(stack.workspace.workDir, `Pulumi.${stack.name}.yaml`);
  if (fs.existsSync(configFile)) texts.push(fs.readFileSync(configFile, "utf8"));
  return texts.join("\n");
}
