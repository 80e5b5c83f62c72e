/**
 * Real engine, both front doors (a TypeScript program of dynamic resources, and Pulumi YAML on
 * the provider plugin): a preview or `up` against a base URL that refuses connections, or whose
 * host does not resolve, fails at the settings check, naming keyform:baseUrl and where its value
 * came from; a mistyped `KEYFORM_*` name is named in the provider's error, worded as
 * `keyform doctor` words it. The figures (printed, not asserted: the machine is shared) are the
 * wall time of each failing command beside a green preview of the same stack, the engine's own time.
 * The two doors have stacks of their own and run side by side.
 */
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, it, type ExpectStatic } from "vitest";
import { createInlineStack, createWorkDirStack, type TestStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { loadKeyform, since } from "../resources/harness/engine-harness";
import { commandOutcome, plainConfig } from "./fail-closed-support";
import { settingsConfig } from "./plugin-support";

const keyform = loadKeyform();
let emu: TestEmulator;
let refusedUrl: string;
const UNRESOLVED_URL = "https://keyform-nowhere.invalid";
const figures: Record<string, number> = {};

beforeAll(async () => {
  emu = await startTestEmulator();
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  refusedUrl = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  await new Promise((resolve) => server.close(resolve));
});

afterAll(async () => {
  await emu?.stop();
  console.log(`fail-fast figures (ms, loaded machine): ${JSON.stringify(figures)}`);
});

const YAML_PROGRAM = `name: kf-fail-fast
runtime: yaml
resources:
  ops:
    type: keyform:index:UserTag
    properties:
      userTagName: ops
`;

/** The two doors, each with one UserTag, configured for the emulator. */
const doors: Record<string, () => Promise<TestStack & { dir?: string }>> = {
  typescript: () =>
    createInlineStack({
      projectName: "kf-fail-fast",
      config: settingsConfig(emu),
      program: async () => {
        new keyform.UserTag("ops", { userTagName: "ops" });
      },
    }),
  yaml: async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kf-fail-fast-yaml-"));
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), YAML_PROGRAM);
    return { ...(await createWorkDirStack({ workDir: dir, config: settingsConfig(emu) })), dir };
  },
};

/** A failing command's outcome and its wall time, recorded as `figures[label]`. */
async function timed(label: string, run: Promise<unknown>) {
  const t0 = performance.now();
  const outcome = await commandOutcome(run);
  figures[label] = Math.round(since(t0));
  return outcome;
}

/** What every failure must say and must not say. */
function expectNamedFailure(expect: ExpectStatic, outcome: { exitCode: number; output: string }, what: RegExp, label: string): void {
  expect(outcome.exitCode, label).not.toBe(0);
  expect(outcome.output, label).toMatch(what);
  expect(outcome.output, label).toContain("check keyform:baseUrl (KEYFORM_BASE_URL)");
  // One line, not the host's stack trace, and never the private key.
  expect(outcome.output, label).not.toMatch(/\n\s+at [\w.<>]+ \(/);
  expect(outcome.output, label).not.toContain(emu.emulator.bootstrap.apiPrivateKey);
}

describe.concurrent.each(Object.keys(doors))("the %s door against a server it cannot reach", (door) => {
  it("preview and up fail at once, naming keyform:baseUrl, where its value came from, and a mistyped KEYFORM_* name", { timeout: 600_000 }, async ({ expect }) => {
    const handle = await doors[door]!();
    const stack: Stack = handle.stack;
    const good = plainConfig(settingsConfig(emu));
    try {
      const escaped = refusedUrl.replace(/[.]/g, "\\.");
      await stack.setAllConfig({ ...good, "keyform:baseUrl": { value: refusedUrl } });
      const refusedMessage = new RegExp(`keyform:baseUrl ${escaped} cannot be reached: it refuses connections \\(ECONNREFUSED\\); the value is from stack config keyform:baseUrl`);
      expectNamedFailure(expect, await timed(`${door} refused preview`, stack.preview()), refusedMessage, "refused preview");
      expectNamedFailure(expect, await timed(`${door} refused up`, stack.up()), refusedMessage, "refused up");

      await stack.setAllConfig({ ...good, "keyform:baseUrl": { value: UNRESOLVED_URL } });
      expectNamedFailure(
        expect,
        await timed(`${door} unresolved preview`, stack.preview()),
        /keyform:baseUrl https:\/\/keyform-nowhere\.invalid cannot be reached: it has a host name that does not resolve \((ENOTFOUND|EAI_AGAIN)\); the value is from stack config keyform:baseUrl/,
        "unresolved preview",
      );

      // The typo leaves keyform:baseUrl unset: the default (the hosted service) is in effect,
      // and the error, whatever the default answers, names the variable that was meant.
      await stack.removeConfig("keyform:baseUrl");
      const env = (stack.workspace as unknown as { envVars: Record<string, string> }).envVars;
      env.KEYFORM_BASE_ULR = emu.emulator.url;
      try {
        const typo = await timed(`${door} mistyped variable preview`, stack.preview());
        expect(typo.exitCode).not.toBe(0);
        expect(typo.output).toContain("KEYFORM_BASE_ULR is not a keyform setting; did you mean KEYFORM_BASE_URL?");
      } finally {
        delete env.KEYFORM_BASE_ULR;
      }

      // Back to the right settings: the stack works (and its time is the figure to compare with).
      await stack.setAllConfig(good);
      const t0 = performance.now();
      await stack.preview();
      figures[`${door} green preview`] = Math.round(since(t0));
    } finally {
      await handle.cleanup();
      if (handle.dir !== undefined) fs.rmSync(handle.dir, { recursive: true, force: true });
    }
  });
});
