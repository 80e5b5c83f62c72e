/**
 * Both front doors behave the same: one list of objects covering every resource kind, rendered
 * by the exporter's own renderers as a TypeScript program (dynamic resources, run by the real
 * engine through the Automation API) and as a Pulumi YAML program (the provider plugin), each
 * brought up against its own fresh emulator. The two give the same plan (the steps of the first
 * preview, of the preview after `up`, and of `destroy`), and leave the same organization after
 * `up` and after `destroy`, read back with the official client (`@turnkey/http`): key material
 * declared without `deleteWithoutExport` stays in the organization on both paths, and the
 * wallet declared with it is deleted on both.
 *
 * The two doors also say the same things: the warnings and errors the engine received in every
 * step (lint findings of policy expressions, the root quorum member and the root quorum that
 * destroy leaves in place, the session profile the service cannot delete), compared line by line
 * with ids, organization ids and URNs normalized. The TypeScript door sends them from the program
 * and from its dynamic-provider process, the plugin through its own engine connection.
 *
 * The two doors run side by side (an emulator, a project and a stack each).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { EngineEvent, Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RENDERERS } from "../../sdk/cli/export-render";
import { ExportReference, type ExportedResource } from "../../sdk/cli/export-model";
import { registeredSpecs } from "../../sdk/resources/runtime";
import { deployEarnWrapper } from "../../examples/org/seed";
import { createWorkDirStack, repoRoot, type TestStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { organizationSnapshot } from "../support/organization-snapshot";
import { linkedTypeScriptProject } from "../support/typescript-project";
import { emulatorEnv } from "../resources/harness/engine-harness";
import { exampleSettings, settingsConfig } from "./plugin-support";

const TIMEOUT = 900_000;
const ref = (resource: string, output: string) => new ExportReference(resource, output);
const ETHEREUM_ACCOUNT = { curve: "CURVE_SECP256K1", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" };

/**
 * The objects both programs declare, one or more of every kind. Only facts of the organization
 * the program runs against (its root user, its Earn wrapper) differ between the two.
 */
function objects(rootUserId: string, wrapperAddress: string): ExportedResource[] {
  const r = (className: string, name: string, inputs: Record<string, unknown>): ExportedResource => ({ className, name, inputs });
  return [
    r("User", "alice", { userName: "alice", userEmail: "alice@example.com" }),
    r("User", "bot", { userName: "bot" }),
    r("RootQuorum", "root-quorum", { threshold: 1, userIds: [rootUserId, ref("alice", "userId")] }),
    r("UserTag", "admins", { userTagName: "admins", userIds: [ref("alice", "userId")] }),
    r("Policy", "deny-exports", { policyName: "Nobody exports keys", effect: "EFFECT_DENY", condition: "activity.action == 'EXPORT'", notes: "break glass only" }),
    // Lint finding unscoped-signing-allow: an ALLOW that covers signing with every key.
    r("Policy", "sign-anything", { policyName: "Approvers sign anything", effect: "EFFECT_ALLOW", condition: "activity.action == 'SIGN'" }),
    r("ApiKey", "bot-key", { userId: ref("bot", "userId"), apiKeyName: "bot-key", curveType: "API_KEY_CURVE_P256" }),
    r("IpAllowlist", "bot-ips", { publicKey: ref("bot-key", "publicKey"), rules: [{ cidr: "203.0.113.0/24", label: "CI runners" }] }),
    r("Invitation", "invite-erin", {
      receiverUserName: "erin",
      receiverUserEmail: "erin@example.com",
      receiverUserTags: [ref("admins", "userTagId")],
      accessType: "ACCESS_TYPE_ALL",
      senderUserId: ref("alice", "userId"),
    }),
    r("SmartContractInterface", "token", {
      smartContractAddress: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      smartContractInterface: JSON.stringify([{ type: "function", name: "transfer", inputs: [{ name: "to", type: "address" }], outputs: [] }]),
      type: "ETHEREUM",
      label: "Token",
    }),
    r("EarnWrapperState", "earn-wrapper", { wrapperAddress, depositsDisabled: true }),
    r("WebhookEndpoint", "activity-webhook", { name: "activity-updates", url: "https://hooks.example.com/keyform", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] }),
    // Retained on destroy: no deleteWithoutExport.
    r("Wallet", "treasury", { walletName: "treasury", accounts: [ETHEREUM_ACCOUNT] }),
    r("Wallet", "scratch", { walletName: "scratch", accounts: [ETHEREUM_ACCOUNT], deleteWithoutExport: true }),
    r("PrivateKey", "signer", { privateKeyName: "signer", curve: "CURVE_SECP256K1", addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] }),
    r("PrivateKeyTag", "signers", { privateKeyTagName: "signers", privateKeyIds: [ref("signer", "privateKeyId")] }),
    r("SessionProfile", "read-only", { sessionProfileName: "read-only", scope: "activity.action == 'READ'", expirationSeconds: "3600" }),
  ];
}

/** `<op> <kind> <name>` of every keyform step the engine reported, sorted: the plan, whichever door. */
function steps(events: EngineEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    const meta = e.resourcePreEvent?.metadata;
    if (!meta) continue;
    const kind = /^(?:pulumi-nodejs:dynamic\/keyform|keyform:index):(\w+)$/.exec(meta.type)?.[1];
    if (kind === undefined) continue;
    out.push(`${meta.op} ${kind} ${meta.urn.split("::").pop()}`);
  }
  return out.sort();
}

/**
 * The warnings and errors the engine received, one line each, sorted (resources run
 * concurrently): ids, organization ids and URNs (whose project and type tokens differ by door)
 * normalized to placeholders.
 */
function diagnostics(events: EngineEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    const d = e.diagnosticEvent;
    if (d === undefined || (d.severity !== "warning" && d.severity !== "error")) continue;
    // The engine's own note on where it found the plugin (bin/ on PATH here), not keyform's.
    if (/^using pulumi-resource-keyform from \$PATH/.test(d.message.trim())) continue;
    const message = d.message
      .trim()
      .replace(/urn:pulumi:[^\s\]]*::([\w.-]+)/g, "<urn $1>")
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<id>")
      .replace(/\b[0-9a-f]{40,}\b/gi, "<hex>");
    for (const line of message.split("\n")) out.push(`${d.severity}: ${line.trim()}`);
  }
  return out.sort();
}

/** One door: its emulator, its stack, and the steps and organizations it went through. */
interface Run {
  readonly emu: TestEmulator;
  readonly handle: TestStack;
  readonly dir: string;
}

async function typescriptRun(emu: TestEmulator, declared: ExportedResource[]): Promise<Run> {
  const dir = linkedTypeScriptProject(repoRoot, "front-doors-ts");
  fs.writeFileSync(path.join(dir, "index.ts"), RENDERERS.typescript!.render(declared, emu.emulator.bootstrap.organizationId));
  return { emu, dir, handle: await createWorkDirStack({ workDir: dir, envVars: emulatorEnv(emu.emulator) }) };
}

async function yamlRun(emu: TestEmulator, declared: ExportedResource[]): Promise<Run> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "front-doors-yaml-"));
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), RENDERERS.yaml!.render(declared, emu.emulator.bootstrap.organizationId));
  return { emu, dir, handle: await createWorkDirStack({ workDir: dir, config: settingsConfig(emu) }) };
}

/** The organization of a run, as comparable data. */
function snapshotOf(run: Run): Promise<unknown> {
  const b = run.emu.emulator.bootstrap;
  return organizationSnapshot({ baseUrl: run.emu.emulator.url, organizationId: b.organizationId, apiPublicKey: b.apiPublicKey, apiPrivateKey: b.apiPrivateKey });
}

/** What a run goes through, in order: every plan and every organization. */
async function lifecycle(stack: Stack, snapshot: () => Promise<unknown>) {
  const record = () => {
    const events: EngineEvent[] = [];
    return { events, onEvent: (e: EngineEvent) => events.push(e) };
  };
  const before = record();
  await stack.preview({ onEvent: before.onEvent });
  const up = record();
  const upResult = await stack.up({ onEvent: up.onEvent });
  const afterUp = await snapshot();
  const quiet = record();
  await stack.preview({ onEvent: quiet.onEvent });
  const destroy = record();
  await stack.destroy({ onEvent: destroy.onEvent });
  const afterDestroy = await snapshot();
  return {
    upResult: upResult.summary.result,
    plans: { preview: steps(before.events), up: steps(up.events), previewAfterUp: steps(quiet.events), destroy: steps(destroy.events) },
    said: { preview: diagnostics(before.events), up: diagnostics(up.events), previewAfterUp: diagnostics(quiet.events), destroy: diagnostics(destroy.events) },
    afterUp,
    afterDestroy,
  };
}

/** Like Promise.all, but waits for every promise before it throws the first failure. */
async function allSettled<T extends readonly unknown[]>(promises: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

let typescriptEmulator: TestEmulator;
let yamlEmulator: TestEmulator;

beforeAll(async () => {
  [typescriptEmulator, yamlEmulator] = await Promise.all([startTestEmulator(), startTestEmulator()]);
});

afterAll(async () => {
  await Promise.all([typescriptEmulator?.stop(), yamlEmulator?.stop()]);
});

describe("the TypeScript and YAML front doors", () => {
  it("give the same plans and the same organization after up and after destroy, for every kind", { timeout: TIMEOUT }, async () => {
    const declaredFor = async (emu: TestEmulator) => {
      const wrapper = (await deployEarnWrapper(emu.client, exampleSettings())).deployedWrapper!;
      return objects(emu.emulator.bootstrap.userId, wrapper);
    };
    const declaredTs = await declaredFor(typescriptEmulator);
    // Not vacuous: every registered kind is declared.
    expect([...new Set(declaredTs.map((o) => o.className))].sort()).toEqual(registeredSpecs().map((s) => s.kind).sort());

    const [ts, yaml] = await Promise.all([typescriptRun(typescriptEmulator, declaredTs), declaredFor(yamlEmulator).then((declared) => yamlRun(yamlEmulator, declared))]);
    try {
      // The doors have an emulator, a project and a stack each: they run side by side, each
      // waiting on its engine while the other's works.
      // Both settle before either stack is cleaned up.
      const [fromTypescript, fromYaml] = await allSettled([lifecycle(ts.handle.stack, () => snapshotOf(ts)), lifecycle(yaml.handle.stack, () => snapshotOf(yaml))]);
      expect(fromTypescript.upResult).toBe("succeeded");
      expect(fromYaml.plans).toEqual(fromTypescript.plans);
      expect(fromYaml.said).toEqual(fromTypescript.said);
      expect(fromYaml.afterUp).toEqual(fromTypescript.afterUp);
      expect(fromYaml.afterDestroy).toEqual(fromTypescript.afterDestroy);

      // What the comparison covers: every object after up, and exactly the key material declared
      // without deleteWithoutExport after destroy.
      const up = JSON.stringify(fromTypescript.afterUp);
      for (const thing of ["user:alice", "tag:admins", "Nobody exports keys", "203.0.113.0/24", "activity-updates", "erin@example.com", "scratch", "signers", "read-only"]) {
        expect(up).toContain(thing);
      }
      expect(fromTypescript.plans.preview).toHaveLength(declaredTs.length);
      const left = fromTypescript.afterDestroy as { wallets: Array<{ walletName: string }>; privateKeys: Array<{ privateKeyName: string }>; users: Array<{ userName: string }> };
      expect(left.wallets.map((w) => w.walletName)).toEqual(["treasury"]);
      expect(left.privateKeys.map((k) => k.privateKeyName)).toEqual(["signer"]);
      // A root quorum member stays (destroy cannot leave the organization without approvers); bot goes.
      expect(left.users.map((u) => u.userName).sort()).toEqual(["alice", "root"]);
      // What the comparison of diagnostics covers: the lint at preview and up, and what destroy leaves.
      for (const step of ["preview", "up", "previewAfterUp"] as const) {
        expect(fromTypescript.said[step].join("\n"), step).toContain('warning: Policy "sign-anything": condition');
        expect(fromTypescript.said[step].join("\n"), step).toContain("[unscoped-signing-allow]");
      }
      const destroyed = fromTypescript.said.destroy.join("\n");
      expect(destroyed).toMatch(/warning: User "alice" \(<id>\) is a member of the root quorum .*it is left in place/);
      expect(destroyed).toContain("RootQuorum of organization <id>: destroy leaves the root quorum as it is");
      expect(destroyed).toMatch(/SessionProfile "read-only" \(<id>\): the service cannot delete session profiles/);
    } finally {
      await ts.handle.cleanup();
      await yaml.handle.cleanup();
      fs.rmSync(ts.dir, { recursive: true, force: true });
      fs.rmSync(yaml.dir, { recursive: true, force: true });
    }
  });
});
