/**
 * Preview refuses what `up` would, on the real engine against the emulator, on the TypeScript
 * path (dynamic providers, an inline program: `inline-declared-stack.ts`) and the YAML path (the
 * provider plugin): two resources of one
 * program with the same unique name, and a plan over the service's limit of 100 user tags per
 * organization. Each fails the preview naming the resources (or the count and the objects);
 * the organization is read back with the official client afterwards. Each path has one stack,
 * each test a new program for it.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TurnkeyClient } from "@turnkey/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessThrough, yamlStack, type Declared, type DeclaredStack, type MakeDeclaredStack } from "../support/declared-stacks";
import { pulumiBinDir } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { commandOutcome } from "./fail-closed-support";
import { typescriptInlineStack } from "./inline-declared-stack";
import { officialClient } from "../support/organization-snapshot";

const TIMEOUT = 600_000;

let emu: TestEmulator;
let work: string;
let official: TurnkeyClient;

beforeAll(async () => {
  pulumiBinDir();
  emu = await startTestEmulator();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-plan-census-"));
  official = officialClient(accessThrough(emu.emulator.url, emu.emulator.bootstrap));
});

afterAll(async () => {
  await emu?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** Resources to declare: resource name → user tag name. */
type Tags = Array<[resource: string, tagName: string]>;

const access = () => accessThrough(emu.emulator.url, emu.emulator.bootstrap);
const asDeclared = (tags: Tags): Declared[] => tags.map(([name, userTagName]) => ({ kind: "UserTag", name, args: { userTagName } }));

async function tagNames(): Promise<string[]> {
  const { userTags } = await official.listUserTags({ organizationId: emu.emulator.bootstrap.organizationId });
  return userTags.map((t) => t.tagName);
}

describe.each<{ path: string; make: MakeDeclaredStack; prefix: string }>([
  { path: "TypeScript", make: typescriptInlineStack, prefix: "ts" },
  { path: "YAML", make: yamlStack, prefix: "yaml" },
])("preview refuses what up would: $path", ({ make, prefix }) => {
  // One stack for the path; each test declares its own program for it.
  let declared: DeclaredStack;
  beforeAll(async () => {
    declared = await make(work, access(), []);
  });
  afterAll(async () => {
    await declared?.handle.cleanup();
  });

  it("two resources with the same user tag name: preview and up fail naming both; no second tag", { timeout: TIMEOUT }, async () => {
    const name = `${prefix}-dup`;
    const { stack } = declared.handle;
    declared.redeclare(
      asDeclared([
        ["first", name],
        ["other", `${prefix}-other`],
        ["second", name],
      ]),
    );
    const preview = await commandOutcome(stack.preview());
    expect(preview.exitCode).not.toBe(0);
    expect(preview.output).toMatch(new RegExp(`"${name}" is declared by 2 UserTag resources of this program \\("first", "second"\\)`));
    expect(await tagNames()).not.toContain(name);
    const up = await commandOutcome(stack.up());
    expect(up.exitCode).not.toBe(0);
    expect(up.output).toMatch(/is declared by 2 UserTag resources/);
    expect((await tagNames()).filter((n) => n === name).length).toBeLessThanOrEqual(1);
  });

  it("101 user tags: preview fails with the count and the declared objects; nothing is created", { timeout: TIMEOUT }, async () => {
    const existing = (await tagNames()).length;
    const tags: Tags = Array.from({ length: 101 - existing }, (_, i) => [`t${i}`, `${prefix}-many-${i}`]);
    const { stack } = declared.handle;
    declared.redeclare(asDeclared(tags));
    const preview = await commandOutcome(stack.preview());
    expect(preview.exitCode).not.toBe(0);
    expect(preview.output).toMatch(/this plan would hold 101 user tags \(organization\) in organization .*; the service allows 100/);
    expect(preview.output).toMatch(new RegExp(`${101 - existing} are declared by this program \\("${prefix}-many-`));
    expect((await tagNames()).filter((n) => n.startsWith(`${prefix}-many-`))).toEqual([]);
  });
});
