/**
 * The TypeScript path of `test/support/declared-stacks.ts` with its program run in this process
 * (an Automation API inline program) instead of by the Node.js language host: the same keyform
 * classes from dist/, the same dynamic providers and their checks, without a Node process that
 * loads `@pulumi/pulumi` and keyform again for every run (measured: a one-resource preview costs
 * about 1.1 s of CPU this way, 2.2 s through the language host). Used by the lockout and
 * plan-census engine tests.
 *
 * Not for a GitOps runner or `keyform gitops`: they run the project's program themselves, from
 * its folder, so their stacks come from `typescriptStack`.
 */
import { settingsEnv, type MakeDeclaredStack } from "../support/declared-stacks";
import { createInlineStack } from "../support/engine";
import { loadKeyform } from "../resources/harness/engine-harness";

type ResourceClass = new (name: string, args: Record<string, unknown>) => unknown;

/** A stack whose inline program declares `declared`; `redeclare` changes what the next run declares. */
export const typescriptInlineStack: MakeDeclaredStack = async (_work, access, declared) => {
  const keyform = loadKeyform() as unknown as Record<string, ResourceClass | undefined>;
  let current = declared;
  const handle = await createInlineStack({
    projectName: "kf-declared",
    envVars: settingsEnv(access),
    program: async () => {
      for (const { kind, name, args } of current) {
        const Resource = keyform[kind];
        if (typeof Resource !== "function") throw new Error(`declarations: unknown kind ${JSON.stringify(kind)} for ${name}`);
        new Resource(name, args);
      }
    },
  });
  return {
    handle,
    workDir: handle.stack.workspace.workDir,
    redeclare: (next) => {
      current = next;
    },
  };
};
