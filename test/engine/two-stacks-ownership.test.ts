/**
 * Each stack owns what it created, on the real engine against the emulator in its own process:
 * two stacks of the same program on one organization, `up` at the same time. They declare
 * objects of their own, objects with the same name and the same inputs, and objects with the
 * same name and different inputs.
 *
 * - No object is taken over by the other stack: the two states share no id, every shared name
 *   exists once, and the stack that did not create it fails naming the object, its id, that
 *   this stack did not create it, and the importId that would adopt it.
 * - Invitations (no unique name) are each stack's own: one per stack.
 * - `destroy` of one stack leaves every object of the other in place (read back with the
 *   official client), and the other's next preview says exactly what is so: its objects
 *   unchanged, the names it could not take created.
 *
 * On both front doors: the TypeScript path (dynamic providers) and the YAML path (the provider plugin).
 * Each door's stacks declare names of their own, so neither door's test finds the other's
 * objects, the doors run side by side, and the other stack's objects need no destroy at the end.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TurnkeyClient } from "@turnkey/http";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process";
import { accessThrough, FRONT_DOORS, stateResources, type Declared, type MakeDeclaredStack } from "../support/declared-stacks";
import { pulumiBinDir, type TestStack } from "../support/engine";
import { officialClient } from "../support/organization-snapshot";

const keyformOf = async (stack: Stack) => (await stateResources(stack)).keyform;
const TIMEOUT = 900_000;

let work: string;
let emu: EmulatorProcess;
let official: TurnkeyClient;

beforeAll(async () => {
  pulumiBinDir();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-two-stacks-"));
  emu = await startEmulatorProcess(path.join(work, "emulator"));
  official = officialClient(accessThrough(emu.url, emu.bootstrap));
});

afterAll(async () => {
  await emu?.kill();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** The names both stacks of door `door` declare: a shared tag, a shared policy, the invitee's email. */
const sharedNames = (door: string) => ({
  same: (i: number) => `${door}-shared-same-${i}`,
  diff: (i: number) => `${door}-shared-diff-${i}`,
  invitee: `${door}-shared-invitee@example.com`,
});

function declarations(door: string, own: string, userId: string): Declared[] {
  const shared = sharedNames(door);
  const tag = (name: string, userTagName: string): Declared => ({ kind: "UserTag", name, args: { userTagName } });
  return [
    ...Array.from({ length: 4 }, (_, i) => tag(`own${i}`, `${door}-${own}-${i}`)),
    // Same name, same inputs in both stacks.
    ...Array.from({ length: 4 }, (_, i) => tag(`same${i}`, shared.same(i))),
    // Same name, different inputs.
    ...Array.from({ length: 3 }, (_, i): Declared => ({
      kind: "Policy",
      name: `diff${i}`,
      args: { policyName: shared.diff(i), effect: "EFFECT_DENY", condition: `activity.type == '${own}-${i}'` },
    })),
    {
      kind: "Invitation",
      name: "invite",
      args: { receiverUserName: "shared-invitee", receiverUserEmail: shared.invitee, accessType: "ACCESS_TYPE_API", senderUserId: userId },
    },
  ];
}

async function stackOf(make: MakeDeclaredStack, door: string, own: string): Promise<{ handle: TestStack; declared: Declared[] }> {
  const declared = declarations(door, own, emu.bootstrap.userId);
  const { handle } = await make(work, accessThrough(emu.url, emu.bootstrap), declared);
  return { handle, declared };
}


async function outcome(run: Promise<unknown>): Promise<string> {
  try {
    await run;
    return "";
  } catch (error) {
    return String(error);
  }
}

/** Every object of the organization by id (user tags, policies, invitations), read with the official client. */
async function liveIds(): Promise<Map<string, string>> {
  const organizationId = emu.bootstrap.organizationId;
  const { userTags } = await official.listUserTags({ organizationId });
  const { policies } = await official.getPolicies({ organizationId });
  const { organizationData } = await official.getOrganization({ organizationId });
  const ids = new Map<string, string>();
  for (const t of userTags) ids.set(t.tagId, t.tagName);
  for (const p of policies) ids.set(p.policyId, p.policyName);
  for (const i of organizationData.invitations ?? []) if (i.status !== "INVITATION_STATUS_REVOKED") ids.set(i.invitationId, i.receiverEmail);
  return ids;
}

describe.concurrent.each(FRONT_DOORS.map((door, i) => ({ ...door, name: ["ts", "yaml"][i]! })))("two stacks on one organization: $path", ({ make, name: door }) => {
  it("concurrent ups take nothing of each other's; destroy of one leaves the other's objects and a true preview", { timeout: TIMEOUT }, async () => {
    const shared = sharedNames(door);
    const a = await stackOf(make, door, "alpha");
    const b = await stackOf(make, door, "beta");
    try {
      // continueOnError: a refused name fails its resource only, so what each stack ends up
      // holding does not depend on which failure the engine saw first.
      const [failureA, failureB] = await Promise.all([
        outcome(a.handle.stack.up({ continueOnError: true })),
        outcome(b.handle.stack.up({ continueOnError: true })),
      ]);
      const stateA = await keyformOf(a.handle.stack);
      const stateB = await keyformOf(b.handle.stack);
      const idsA = new Set(stateA.map((r) => r.id));
      const idsB = new Set(stateB.map((r) => r.id));
      console.log(`[two-stacks] alpha holds ${idsA.size}, beta holds ${idsB.size}`);
      for (const [stack, failure] of [["alpha", failureA], ["beta", failureB]] as const) console.log(`[two-stacks] ${stack}: ${failure.split("\n").filter((l) => /error:/.test(l)).slice(0, 20).join("\n")}`);

      // Nothing shared: neither state records an object of the other.
      expect([...idsA].filter((id) => idsB.has(id))).toEqual([]);
      const live = await liveIds();
      const names = [...live.values()];
      for (const name of [...Array.from({ length: 4 }, (_, i) => shared.same(i)), ...Array.from({ length: 3 }, (_, i) => shared.diff(i))]) {
        expect(names.filter((n) => n === name), name).toHaveLength(1);
      }
      // Each stack has its own invitation.
      expect(names.filter((n) => n === shared.invitee)).toHaveLength(2);
      // Every shared name went to one stack; the other failed naming it and the importId.
      expect(stateA.length + stateB.length).toBe(2 * 4 + 7 + 2);
      const failures = failureA + failureB;
      expect(failures).toMatch(/this stack did not create it \(another stack's, or made by hand\)\. To manage it with this resource, set importId: "[^"]+"/);

      await a.handle.stack.destroy();
      const after = await liveIds();
      for (const id of idsB) expect(after.has(id), `beta's ${id}`).toBe(true);
      for (const id of idsA) expect(after.has(id), `alpha's ${id}`).toBe(false);

      const preview = await b.handle.stack.preview();
      // Beta's objects are there as recorded (and the stack; a default provider is not counted);
      // the names alpha held are free again and planned.
      expect(preview.changeSummary.same ?? 0).toBe(idsB.size + 1);
      expect(preview.changeSummary.create ?? 0).toBe(b.declared.length - idsB.size);
      expect(preview.changeSummary.delete ?? 0).toBe(0);
    } finally {
      await a.handle.cleanup();
      await b.handle.cleanup();
    }
  });
});
