/**
 * The GitOps preview's access diff on a real engine and a real emulator: a program's policies
 * are applied, then changed; the preview's Policy steps applied to the live policies give the
 * table of who gains and who loses access, proved with Z3 over the organization's users.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessDiffSection, PlannedPolicies } from "../../sdk/gitops/access-diff";
import { createInlineStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { emulatorEnv, loadKeyform } from "../resources/harness/engine-harness";

const keyform = loadKeyform();
let emu: TestEmulator;
let alice = "";
let bob = "";
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  emu = await startTestEmulator();
  const { userIds } = await emu.client.createUsers({
    users: ["alice", "bob"].map((userName) => ({ userName, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] })),
  });
  [alice, bob] = userIds as [string, string];
  // The runner reads the organization's settings from the KEYFORM_* environment, as in CI.
  for (const [key, value] of Object.entries(emulatorEnv(emu.emulator))) {
    saved[key] = process.env[key];
    process.env[key] = value;
  }
});
afterAll(async () => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await emu?.stop();
});

describe("GitOps preview: access changes", () => {
  it("a pull request that widens one policy and drops another shows who gains and who loses", { timeout: 600_000 }, async () => {
    const state = { widened: false };
    const { stack, cleanup } = await createInlineStack({
      projectName: "kf-gitops-access",
      envVars: emulatorEnv(emu.emulator),
      program: async () => {
        new keyform.Policy("wallets", {
          policyName: "alice creates wallets",
          effect: "EFFECT_ALLOW",
          condition: "activity.resource == 'WALLET' && activity.action == 'CREATE'",
          consensus: state.widened ? `approvers.any(u, u.id in ['${alice}', '${bob}'])` : `approvers.any(u, u.id == '${alice}')`,
          notes: "",
        });
        if (!state.widened) {
          new keyform.Policy("tags", { policyName: "bob creates tags", effect: "EFFECT_ALLOW", condition: "activity.kind == 'CREATE_USER_TAG'", consensus: `approvers.any(u, u.id == '${bob}')`, notes: "" });
        }
        return {};
      },
    });
    try {
      await stack.up();
      const unchanged = new PlannedPolicies();
      await stack.preview({ onEvent: unchanged.onEvent });
      expect(await accessDiffSection(stack, unchanged)).toBe("");

      state.widened = true;
      const planned = new PlannedPolicies();
      await stack.preview({ onEvent: planned.onEvent });
      const markdown = await accessDiffSection(stack, planned);
      expect(markdown).toMatch(/^### Access changes\n/);
      expect(markdown).toContain("| change | who | activity | how | target | decision (before → after) | witness |");
      const rows = markdown.split("\n").filter((line) => line.startsWith("| **"));
      expect(rows.some((row) => row.startsWith("| **gains** | bob | CREATE_WALLET") && row.includes("| alone |"))).toBe(true);
      expect(rows.some((row) => row.startsWith("| **loses** | bob | CREATE_USER_TAG") && row.includes("| alone |"))).toBe(true);
      expect(rows.every((row) => !row.includes("DID NOT REPLAY"))).toBe(true);
      // Users by name; the root user is never listed (the root quorum bypasses policies).
      expect(markdown).toMatch(/principals: the organization's 2 users \(root quorum members left out\)/);
      expect(markdown).not.toMatch(/\buser-\d/);
    } finally {
      // No destroy: it proves nothing here, and the emulator and the state go with the file.
      await cleanup();
    }
  });
});
