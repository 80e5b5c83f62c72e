/**
 * Shared pieces of the resource engine tests: keyform loaded from dist/ with Node's own
 * require (the closure serializer needs real CommonJS), the settings of an emulator as
 * KEYFORM_* variables, and readers for up summaries and exported state.
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import type { RunningEmulator } from "../../../sdk/emulator";

const requireCjs = createRequire(path.join(__dirname, "../../../package.json"));

/** keyform as a user gets it: the compiled package entry (build first: `npx tsc -p .`). */
export function loadKeyform(): typeof import("../../../sdk/index") {
  return requireCjs("./dist/sdk/index.js");
}

/** The same `@pulumi/pulumi` instance the compiled keyform uses. */
export function loadPulumi(): typeof import("@pulumi/pulumi") {
  return requireCjs("@pulumi/pulumi");
}

/** Provider settings pointing at an emulator, as environment variables. */
export function emulatorEnv(emulator: RunningEmulator): Record<string, string> {
  const b = emulator.bootstrap;
  return {
    KEYFORM_BASE_URL: emulator.url,
    KEYFORM_ORGANIZATION_ID: b.organizationId,
    KEYFORM_API_PUBLIC_KEY: b.apiPublicKey,
    KEYFORM_API_PRIVATE_KEY: b.apiPrivateKey,
  };
}

/**
 * The operation counts of an up/preview/refresh/destroy summary, without `same`. The stack
 * resource itself (`pulumi:pulumi:Stack`) is created by the first up and deleted by destroy;
 * pass `stack: true` there to leave it out of the counts.
 */
export function changes(summary: Record<string, number | undefined> | undefined, options: { stack?: boolean } = {}): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [op, n] of Object.entries(summary ?? {})) if (op !== "same" && n) out[op] = n;
  if (options.stack) {
    for (const op of ["create", "delete"]) {
      if (out[op]) out[op] -= 1;
      if (out[op] === 0) delete out[op];
    }
  }
  return out;
}

/** One resource of the stack's exported state. */
export interface StateResource {
  urn: string;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

/** Every resource of the exported state whose type is `pulumi-nodejs:dynamic/keyform:<kind>`. */
export async function keyformResources(stack: Stack, kind?: string): Promise<StateResource[]> {
  const exported = await stack.exportStack();
  const resources = ((exported.deployment as { resources?: StateResource[] }).resources ?? []);
  return resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/keyform:") && (kind === undefined || r.type.endsWith(`:${kind}`)));
}

/** The state entry of the resource named `name` (the last URN segment). */
export async function stateOf(stack: Stack, name: string): Promise<StateResource | undefined> {
  return (await keyformResources(stack)).find((r) => r.urn.endsWith(`::${name}`));
}

/** Milliseconds since `start`, rounded, for the figures of the report. */
export function since(start: number): number {
  return Math.round(performance.now() - start);
}

export { storedState } from "../../support/engine";
