/**
 * The provider code keyform stores with each dynamic resource, through the real engine against
 * the emulator: a stack written by an earlier keyform (whose stored code was Pulumi's closure
 * serialization of a provider object) refreshes, previews with no changes under this version's
 * classes, takes this version's code into its inputs on `up`, and is destroyed by the code it
 * stored (a delete runs the code in state). Each object is read back from the emulator.
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import { providerCode } from "../../sdk/resources/provider";
import { createInlineStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { EARLIER_PROVIDER_CODE } from "../support/earlier-provider-code";
import { changes, emulatorEnv, keyformResources, loadKeyform, loadPulumi } from "../resources/harness/engine-harness";

const keyform = loadKeyform();
const pulumi = loadPulumi();

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu?.stop();
});

/** A keyform resource as an earlier version registered it: same type token, the earlier stored code. */
class EarlierResource extends pulumi.CustomResource {
  constructor(kind: string, name: string, props: Record<string, unknown>) {
    super(`pulumi-nodejs:dynamic/keyform:${kind}`, name, { ...props, __provider: EARLIER_PROVIDER_CODE(kind) });
  }
}

// The two tests have stacks and objects of their own: they run side by side.
describe.concurrent("provider code in state", () => {
  it("a stack an earlier version wrote refreshes, plans no change, and is destroyed", { timeout: 600_000 }, async ({ expect }) => {
    let earlier = true;
    const { stack, cleanup } = await createInlineStack({
      projectName: "kf-provider-code",
      envVars: emulatorEnv(emu.emulator),
      program: async () => {
        const tag = { userTagName: "ops" };
        const policy = { policyName: "nobody exports", effect: "EFFECT_DENY", condition: "activity.action == 'EXPORT'" };
        if (earlier) {
          new EarlierResource("UserTag", "ops", tag);
          new EarlierResource("Policy", "no-exports", policy);
        } else {
          new keyform.UserTag("ops", tag);
          new keyform.Policy("no-exports", policy as import("../../sdk/resources/policy").PolicyArgs);
        }
      },
    });
    try {
      expect(changes((await stack.up()).summary.resourceChanges, { stack: true })).toEqual({ create: 2 });
      const [storedTag] = await keyformResources(stack, "UserTag");
      const [storedPolicy] = await keyformResources(stack, "Policy");
      expect(storedTag!.outputs!.__provider).toBe(EARLIER_PROVIDER_CODE("UserTag"));
      expect(storedPolicy!.outputs!.__provider).toBe(EARLIER_PROVIDER_CODE("Policy"));
      const tagId = storedTag!.id!;
      const policyId = storedPolicy!.id!;
      expect((await emu.client.listUserTags()).userTags.map((t) => t.tagId)).toContain(tagId);

      // Refresh reads with the stored code.
      expect(changes((await stack.refresh()).summary.resourceChanges)).toEqual({});

      // This version's classes: the same URNs, nothing to do; the inputs take the new code.
      earlier = false;
      await stack.preview({ expectNoChanges: true });
      expect(changes((await stack.up()).summary.resourceChanges)).toEqual({});
      const [tag] = await keyformResources(stack, "UserTag");
      const [policy] = await keyformResources(stack, "Policy");
      expect([tag!.id, policy!.id]).toEqual([tagId, policyId]);
      expect(tag!.inputs!.__provider).toBe(providerCode("UserTag"));
      expect(policy!.inputs!.__provider).toBe(providerCode("Policy"));
      expect(tag!.outputs!.__provider).toBe(EARLIER_PROVIDER_CODE("UserTag"));

      // The delete runs the code the outputs hold: still the earlier one.
      expect((await stack.destroy()).summary.result).toBe("succeeded");
      expect((await emu.client.listUserTags()).userTags.map((t) => t.tagId)).not.toContain(tagId);
      expect((await emu.client.listPolicies()).policies.map((p) => p.policyId)).not.toContain(policyId);
    } finally {
      await cleanup();
    }
  });

  it("this version stores one line per resource, in the inputs and the outputs, and the program's line as its source position", { timeout: 600_000 }, async ({ expect }) => {
    const { stack, cleanup } = await createInlineStack({
      projectName: "kf-provider-code-new",
      envVars: emulatorEnv(emu.emulator),
      program: async () => {
        new keyform.UserTag("eng", { userTagName: "eng" });
      },
    });
    try {
      await stack.up();
      const [tag] = await keyformResources(stack, "UserTag");
      expect(tag!.inputs!.__provider).toBe(providerCode("UserTag"));
      expect(tag!.outputs!.__provider).toBe(providerCode("UserTag"));
      // Where the program declared it (this file), not a line of keyform's class: the SDK takes
      // the frame right below the resource class, and error messages and the console link to it.
      const { sourcePosition, stackTrace } = tag as { sourcePosition?: string; stackTrace?: { sourcePosition?: string }[] };
      expect(sourcePosition).toMatch(/provider-code\.test\.ts#\d+,\d+$/);
      expect(JSON.stringify(stackTrace)).not.toContain("/sdk/resources/");
      expect((await emu.client.listUserTags()).userTags.map((t) => t.tagId)).toContain(tag!.id);
      await stack.destroy();
      expect((await emu.client.listUserTags()).userTags.map((t) => t.tagId)).not.toContain(tag!.id);
    } finally {
      await cleanup();
    }
  });
});
