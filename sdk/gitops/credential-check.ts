/**
 * The preview's check that the plan does not delete the credentials the stack deploys with: the
 * ApiKey keyform signs with, or the User it belongs to. The engine plans such a delete without
 * asking the provider, so a plain `pulumi preview` cannot fail on it; here the planned steps
 * are read from the preview's events (`PlannedCredentialDeletes`). `keyform:allowLockout`
 * (KEYFORM_ALLOW_LOCKOUT) lets a deliberate hand-over through.
 */
import type { Stack } from "@pulumi/pulumi/automation";
import { PlannedCredentialDeletes } from "../resources/runtime/credential-deletes";
import { requireSetting } from "../resources/runtime/settings";
import { settingsClient, stackSettings } from "./stack-client";

export { PlannedCredentialDeletes };

const OPT_OUT = "set keyform:allowLockout (KEYFORM_ALLOW_LOCKOUT) to true for a deliberate hand-over";

/**
 * Whether the stack's state holds the API key keyform signs with or the user it belongs to: only
 * then can a plan delete them, and only then does `scripts/org-up` spend a preview on it.
 */
export async function stateHoldsDeployingCredentials(stack: Stack, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const resources = ((await stack.exportStack()).deployment as { resources?: Array<{ urn: string; type: string; id?: string; inputs?: unknown; outputs?: unknown }> }).resources ?? [];
  const held = new PlannedCredentialDeletes();
  for (const r of resources) held.onEvent({ resourcePreEvent: { metadata: { op: "delete", urn: r.urn, type: r.type, old: { id: r.id, inputs: r.inputs, outputs: r.outputs } } } } as never);
  return (await credentialLockouts(stack, held, env, true)).length > 0;
}

/** The messages naming each planned delete of the deploying key or user (none with allowLockout, unless `always`). */
export async function credentialLockouts(stack: Stack, planned: PlannedCredentialDeletes, env: NodeJS.ProcessEnv = process.env, always = false): Promise<string[]> {
  if (planned.planned.length === 0) return [];
  const settings = await stackSettings(stack, env);
  if (settings.allowLockout && !always) return [];
  const purpose = "the preview's check of planned credential deletes";
  const apiPublicKey = requireSetting(settings, "apiPublicKey", purpose);
  const client = settingsClient(settings, purpose);
  return (await planned.lockouts(client, apiPublicKey)).map((m) => `${m}. Sign with another key first, or ${OPT_OUT}`);
}
