/**
 * Ownership (`ownership.ts`) against a real emulator: a create journaled before it is sent and
 * sent again by a later run with the same timestamp gets its own activity and object back
 * (one object, not two); an object with the declared name that this stack did not create fails
 * the create naming it, its id and the importId that adopts it.
 */
import { directContext } from "../../sdk/resources/runtime/context";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { handlers } from "../../sdk/resources/runtime";
import { batchTimestampFor, readEntry, stampedSession, writeEntry, inputsKeyOf } from "../../sdk/resources/runtime/ownership";
import { URN_INPUT } from "../../sdk/resources/runtime/plan-census";
import { forgetSharedReads } from "../../sdk/resources/runtime/shared-reads";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;
let journalDir: string;
const saved: Record<string, string | undefined> = {};

function setEnv(values: Record<string, string>): void {
  for (const [key, value] of Object.entries(values)) {
    saved[key] = process.env[key];
    process.env[key] = value;
  }
}

beforeAll(async () => {
  emu = await startTestEmulator();
  journalDir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-journal-"));
  const b = emu.emulator.bootstrap;
  setEnv({
    KEYFORM_BASE_URL: emu.emulator.url,
    KEYFORM_ORGANIZATION_ID: b.organizationId,
    KEYFORM_API_PUBLIC_KEY: b.apiPublicKey,
    KEYFORM_API_PRIVATE_KEY: b.apiPrivateKey,
    KEYFORM_JOURNAL_DIR: journalDir,
  });
});

afterAll(async () => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await emu?.stop();
  fs.rmSync(journalDir, { recursive: true, force: true });
});

const urn = (stack: string, name: string) => `urn:pulumi:${stack}::proj::pulumi-nodejs:dynamic/keyform:UserTag::${name}`;

async function tagsNamed(name: string): Promise<string[]> {
  forgetSharedReads();
  return (await emu.client.listUserTags({})).userTags.filter((t) => t.tagName === name).map((t) => t.tagId);
}

describe("ownership", () => {
  it("a stamped session sends the same bytes: the second submit gets the first activity back", async () => {
    const session = { organizationId: emu.emulator.bootstrap.organizationId, client: emu.client, credentialPublicKey: emu.emulator.bootstrap.apiPublicKey, context: directContext() };
    const stamped = stampedSession(session, String(Date.now()));
    const first = await stamped.client.createUserTag({ userTagName: "stamped", userIds: [] });
    const second = await stamped.client.createUserTag({ userTagName: "stamped", userIds: [] });
    expect(second.userTagId).toBe(first.userTagId);
    expect(await tagsNamed("stamped")).toEqual([first.userTagId]);
  });

  it("a killed run's create, journaled and sent, is this stack's: the next create gets its object back", async () => {
    const resource = urn("dev", "ops");
    const inputs = { userTagName: "journaled", [URN_INPUT]: resource };
    // The killed run: the entry written, the request sent, the answer never recorded in state.
    const timestampMs = String(Date.now());
    writeEntry(journalDir, { urn: resource, kind: "UserTag", organizationId: emu.emulator.bootstrap.organizationId, inputsKey: inputsKeyOf(inputs), timestampMs });
    const session = { organizationId: emu.emulator.bootstrap.organizationId, client: emu.client, credentialPublicKey: emu.emulator.bootstrap.apiPublicKey, context: directContext() };
    const made = await stampedSession(session, timestampMs).client.createUserTag({ userTagName: "journaled", userIds: [] });

    const next = await handlers.UserTag!.create(inputs);
    expect(next.id).toBe(made.userTagId);
    expect(await tagsNamed("journaled")).toEqual([made.userTagId]);
    // The entry stays until the next create of the URN: the engine may not have recorded this one yet.
    expect(readEntry(journalDir, resource)?.timestampMs).toBe(timestampMs);
    // Deleted since (a destroy, then an up of the same inputs): a new object, under a new entry.
    await emu.client.deleteUserTags({ userTagIds: [made.userTagId] });
    const again = await handlers.UserTag!.create(inputs);
    expect(again.id).not.toBe(made.userTagId);
    expect(await tagsNamed("journaled")).toEqual([again.id]);
    expect(readEntry(journalDir, resource)?.timestampMs).not.toBe(timestampMs);
  });

  it("an entry whose request was never sent, older than the service's timestamp window: a new create under a new entry", async () => {
    const resource = urn("dev", "never-sent");
    const inputs = { userTagName: "never-sent", [URN_INPUT]: resource };
    const old = String(Date.now() - 10 * 60 * 1000);
    writeEntry(journalDir, { urn: resource, kind: "UserTag", organizationId: emu.emulator.bootstrap.organizationId, inputsKey: inputsKeyOf(inputs), timestampMs: old });
    const created = await handlers.UserTag!.create(inputs);
    expect(await tagsNamed("never-sent")).toEqual([created.id]);
    expect(readEntry(journalDir, resource)?.timestampMs).not.toBe(old);
  });

  it("an object with the declared name that this stack did not create fails the create, naming it and the importId", async () => {
    const other = await emu.client.createUserTag({ userTagName: "someone-elses", userIds: [] });
    const attempt = handlers.UserTag!.create({ userTagName: "someone-elses", [URN_INPUT]: urn("dev", "theirs") });
    await expect(attempt).rejects.toThrow(
      new RegExp(`the existing UserTag "${other.userTagId}" .* this stack did not create it \\(another stack's, or made by hand\\)\\. To manage it with this resource, set importId: "${other.userTagId}"`),
    );
    expect(await tagsNamed("someone-elses")).toEqual([other.userTagId]);
    expect(readEntry(journalDir, urn("dev", "theirs"))).toBeUndefined();
  });

  it("two stacks declaring the same invitation in the same millisecond send different bodies: one invitation each", async () => {
    // The clock frozen: both creates are dated from the same millisecond, so only the per-stack
    // offset of the request timestamp keeps the two bodies (and their fingerprints) apart.
    const inputs = (await handlers.Invitation!.check({}, { receiverUserName: "Erin", receiverUserEmail: "erin@example.com", accessType: "ACCESS_TYPE_API", senderUserId: emu.emulator.bootstrap.userId })).inputs as Record<string, unknown>;
    const invitationUrn = (stack: string) => `urn:pulumi:${stack}::proj::pulumi-nodejs:dynamic/keyform:Invitation::erin`;
    const frozen = vi.spyOn(Date, "now").mockReturnValue(Date.now());
    try {
      const alpha = await handlers.Invitation!.create({ ...inputs, [URN_INPUT]: invitationUrn("alpha") });
      const beta = await handlers.Invitation!.create({ ...inputs, [URN_INPUT]: invitationUrn("beta") });
      expect(beta.id).not.toBe(alpha.id);
      expect(readEntry(journalDir, invitationUrn("alpha"))?.timestampMs).not.toBe(readEntry(journalDir, invitationUrn("beta"))?.timestampMs);
      // A plural create's timestamp carries the same kind of offset, fixed by its items' URNs.
      expect(batchTimestampFor([invitationUrn("alpha")])).not.toBe(batchTimestampFor([invitationUrn("beta")]));
    } finally {
      frozen.mockRestore();
    }
    forgetSharedReads();
    const { organizationData } = await emu.client.getOrganization();
    expect((organizationData.invitations ?? []).filter((i) => i.receiverEmail === "erin@example.com")).toHaveLength(2);
  });

  it("another stack's create of the same name and inputs is not adopted", async () => {
    const first = await handlers.UserTag!.create({ userTagName: "both-stacks", [URN_INPUT]: urn("alpha", "tag") });
    await expect(handlers.UserTag!.create({ userTagName: "both-stacks", [URN_INPUT]: urn("beta", "tag") })).rejects.toThrow(/this stack did not create it/);
    expect(await tagsNamed("both-stacks")).toEqual([first.id]);
  });
});
