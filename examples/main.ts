/**
 * The main job: reconcile the example organization with `pulumi up`.
 *
 *   bash scripts/org-up              # up on the dev stack (embedded emulator unless KEYFORM_BASE_URL is set)
 *   bash scripts/org-up --destroy    # tear down what the stack created
 *   bash scripts/org-up --stack staging
 *   bash scripts/org-up --plan free  # the embedded emulator enforces the Free plan's rate limit
 *
 * Without KEYFORM_BASE_URL it starts the emulator in this process, with its data under
 * `.keyform/emulator` (git-ignored), and points the program and the providers at it through
 * the KEYFORM_* environment. With KEYFORM_BASE_URL set it never starts the emulator and uses
 * the KEYFORM_* settings (or the stack's keyform:* config) as given.
 */
import * as path from "node:path";
import { parseArgs } from "node:util";
import { ApiKeyStamper, KeyformClient, startEmulator, type RunningEmulator } from "keyform";
import { sharedServicePace } from "keyform/client";
import { parseOrgSettings, PROJECT } from "./org/settings";
import { deployEarnWrapper } from "./org/seed";
import { keyformEnvironment, localStateDir, openStack } from "./shared/workspace";
import { credentialLockouts, PlannedCredentialDeletes, stateHoldsDeployingCredentials } from "../sdk/gitops/credential-check";

const PLANS = ["free", "payg", "pro", "enterprise"] as const;
type Plan = (typeof PLANS)[number];

interface Target {
  env: Record<string, string>;
  emulator?: RunningEmulator;
}

/** The server to run against: the KEYFORM_* environment, or a freshly started emulator. */
async function chooseTarget(dataDir: string, plan: Plan | undefined): Promise<Target> {
  if (process.env.KEYFORM_BASE_URL) return { env: keyformEnvironment() };
  const emulator = await startEmulator({
    port: Number(process.env.KEYFORM_EMULATOR_PORT ?? 0),
    dataDir,
    logLevel: "silent",
    ...(plan !== undefined ? { plan } : {}),
  });
  const b = emulator.bootstrap;
  return {
    emulator,
    env: {
      KEYFORM_BASE_URL: emulator.url,
      KEYFORM_ORGANIZATION_ID: b.organizationId,
      KEYFORM_API_PUBLIC_KEY: b.apiPublicKey,
      KEYFORM_API_PRIVATE_KEY: b.apiPrivateKey,
      KEYFORM_AUTH_PROXY_URL: b.authProxyUrl,
      KEYFORM_AUTH_PROXY_CONFIG_ID: b.authProxyConfigId,
    },
  };
}

/** Prints stack outputs, masking secrets (read them with `pulumi stack output --show-secrets`). */
function printOutputs(outputs: Record<string, { value: unknown; secret: boolean }>): void {
  console.log("\nStack outputs:");
  for (const [name, { value, secret }] of Object.entries(outputs)) {
    console.log(`  ${name}: ${secret ? "[secret]" : JSON.stringify(value)}`);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      destroy: { type: "boolean", default: false },
      stack: { type: "string", default: "dev" },
      "data-dir": { type: "string", default: path.join(localStateDir, "emulator") },
      "no-seed": { type: "boolean", default: false },
      plan: { type: "string" },
    },
  });
  const plan = values.plan;
  if (plan !== undefined && !(PLANS as readonly string[]).includes(plan)) {
    throw new Error(`--plan: expected one of ${PLANS.join(", ")}, got ${JSON.stringify(plan)}`);
  }
  const target = await chooseTarget(values["data-dir"]!, plan as Plan | undefined);
  try {
    if (target.emulator) console.log(`keyform emulator listening on ${target.emulator.url} (data in ${values["data-dir"]})`);
    const stack = await openStack({ stackName: values.stack!, envVars: target.env });

    if (values.destroy) {
      const result = await stack.destroy({ onOutput: (text) => process.stdout.write(text) });
      console.log(`\nDestroyed: ${JSON.stringify(result.summary.resourceChanges ?? {})}`);
      return;
    }

    if (!values["no-seed"]) {
      const config = await stack.getAllConfig();
      const settings = parseOrgSettings((key) => config[`${PROJECT}:${key}`]?.value, values.stack!);
      const client = new KeyformClient({
        baseUrl: target.env.KEYFORM_BASE_URL!,
        organizationId: target.env.KEYFORM_ORGANIZATION_ID!,
        stamper: new ApiKeyStamper({
          apiPublicKey: target.env.KEYFORM_API_PUBLIC_KEY!,
          apiPrivateKey: target.env.KEYFORM_API_PRIVATE_KEY!,
        }),
        // Paced like the providers: on a limited plan the seed must not spend the budget into 429s.
        rateLimiter: sharedServicePace(target.env.KEYFORM_BASE_URL!),
      });
      // The wrapper is deployed once, outside configuration; the users are the program's.
      const seeded = await deployEarnWrapper(client, settings);
      if (seeded.deployedWrapper) console.log(`Deployed Earn wrapper ${seeded.deployedWrapper}`);
    }

    // The engine plans the delete of a resource removed from the program without the provider,
    // so when the state holds the deploying key or user, a preview's steps are read first: a
    // plan that deletes them fails here, before anything is written.
    const env = { ...process.env, ...target.env };
    if (await stateHoldsDeployingCredentials(stack, env)) {
      const deletes = new PlannedCredentialDeletes();
      await stack.preview({ onEvent: deletes.onEvent });
      const lockouts = await credentialLockouts(stack, deletes, env);
      if (lockouts.length > 0) throw new Error(lockouts.join("\n"));
    }

    const result = await stack.up({ onOutput: (text) => process.stdout.write(text) });
    printOutputs(result.outputs);
    console.log(`\nChanges: ${JSON.stringify(result.summary.resourceChanges ?? {})}`);
    if (target.emulator) console.log(`The emulator served ${target.emulator.url}; its data stays in ${values["data-dir"]}.`);
  } finally {
    const limit = target.emulator?.rateLimit;
    // Printed for the main job's test: a run on a limited plan must meet no 429.
    if (limit !== undefined) console.log(`Rate limit: ${limit.perSecond} requests/s per address; ${limit.admitted} requests admitted, ${limit.refused} refused (429).`);
    await target.emulator?.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
