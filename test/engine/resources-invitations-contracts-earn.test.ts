/**
 * Real engine, real emulator: the lifecycle of Invitation, SmartContractInterface and
 * EarnWrapperState. Settings come from stack config (`keyform:*`, the API private key as a
 * secret) and not from the environment, which proves the provider reads them through
 * `configure`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyformClient } from "../../sdk/client/client";
import { createInlineStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { changes, keyformResources, loadKeyform, since, stateOf } from "../resources/harness/engine-harness";

const keyform = loadKeyform();
const LIFECYCLE_TIMEOUT = 600_000;
const TOKEN = "0x" + "a1".repeat(20);
const ERC20_ABI = [
  { type: "function", name: "transfer", stateMutability: "nonpayable", inputs: [{ name: "to", type: "address" }, { name: "value", type: "uint256" }], outputs: [{ name: "", type: "bool" }] },
  { type: "function", name: "balanceOf", stateMutability: "view", inputs: [{ name: "owner", type: "address" }], outputs: [{ name: "", type: "uint256" }] },
];

let emu: TestEmulator;
let client: KeyformClient;
let rootUserId: string;
const figures: Record<string, number> = {};

beforeAll(async () => {
  emu = await startTestEmulator();
  client = emu.client;
  rootUserId = emu.emulator.bootstrap.userId;
});

afterAll(async () => {
  await emu?.stop();
  console.log(`resources-invitations-contracts-earn figures (ms): ${JSON.stringify(figures)}`);
});

/** Settings as stack config; nothing KEYFORM_* in the environment of the engine. */
function stackConfig() {
  const b = emu.emulator.bootstrap;
  return {
    "keyform:baseUrl": { value: emu.emulator.url },
    "keyform:organizationId": { value: b.organizationId },
    "keyform:apiPublicKey": { value: b.apiPublicKey },
    "keyform:apiPrivateKey": { value: b.apiPrivateKey, secret: true },
  };
}

async function lifecycleStack<T>(projectName: string, declare: (desired: T) => Record<string, unknown>, initial: T) {
  const state = { desired: initial };
  const handle = await createInlineStack({ projectName, program: async () => declare(state.desired), config: stackConfig() });
  return { ...handle, state };
}

describe("Invitation", () => {
  type Desired = { invite?: Record<string, unknown>; adopted?: Record<string, unknown> };
  it("lifecycle", { timeout: LIFECYCLE_TIMEOUT }, async () => {
    const t0 = performance.now();
    const { stack, cleanup, state } = await lifecycleStack<Desired>(
      "kf-invitation",
      (d) => {
        const out: Record<string, unknown> = {};
        if (d.invite) {
          const i = new keyform.Invitation("invite", d.invite as never);
          out.invitationId = i.invitationId;
          out.status = i.status;
        }
        if (d.adopted) out.adoptedId = new keyform.Invitation("adopted", d.adopted as never).invitationId;
        return out;
      },
      { invite: { receiverUserName: "Alice", receiverUserEmail: "alice@example.com", accessType: "ACCESS_TYPE_WEB", senderUserId: rootUserId } },
    );
    try {
      const invitations = async () => (await client.getOrganization()).organizationData.invitations ?? [];

      let up = await stack.up();
      expect(changes(up.summary.resourceChanges, { stack: true })).toEqual({ create: 1 });
      const invitationId = up.outputs.invitationId!.value as string;
      expect(up.outputs.status!.value).toBe("INVITATION_STATUS_CREATED");
      expect((await invitations()).find((i) => i.invitationId === invitationId)?.receiverEmail).toBe("alice@example.com");

      expect(changes((await stack.preview()).changeSummary)).toEqual({});

      // no update exists: another access type replaces the invitation
      state.desired.invite = { ...state.desired.invite, accessType: "ACCESS_TYPE_ALL" };
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ replace: 1 });
      const replacedId = up.outputs.invitationId!.value as string;
      expect(replacedId).not.toBe(invitationId);
      expect((await invitations()).map((i) => [i.invitationId, i.accessType])).toEqual([[replacedId, "ACCESS_TYPE_ALL"]]);

      // invitations cannot be changed, only deleted, out of band
      await client.deleteInvitation({ invitationId: replacedId });
      await stack.refresh();
      expect(await stateOf(stack, "invite")).toBeUndefined();
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 1 });
      expect(await invitations()).toHaveLength(1);

      // importId: a differing invitation cannot be adopted (no update): the create fails and lists the fields
      const { invitationIds } = await client.createInvitations({
        invitations: [{ receiverUserName: "Bob", receiverUserEmail: "bob@example.com", receiverUserTags: [], accessType: "ACCESS_TYPE_API", senderUserId: rootUserId }],
      });
      state.desired.adopted = { receiverUserName: "Bob", receiverUserEmail: "bob@example.com", accessType: "ACCESS_TYPE_WEB", senderUserId: rootUserId, importId: invitationIds[0] };
      const failed = await stack.up().catch((e: Error) => e);
      expect(String(failed)).toMatch(/importId: the existing Invitation .* differs .*accessType \(declared "ACCESS_TYPE_WEB", found "ACCESS_TYPE_API"\)/);
      expect(await stateOf(stack, "adopted")).toBeUndefined();
      // declared as it is, it is adopted
      state.desired.adopted = { ...state.desired.adopted, accessType: "ACCESS_TYPE_API" };
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 1 });
      expect(up.outputs.adoptedId!.value).toBe(invitationIds[0]);

      const destroyed = await stack.destroy();
      expect(changes(destroyed.summary.resourceChanges, { stack: true })).toEqual({ delete: 2 });
      expect(await invitations()).toEqual([]);
    } finally {
      await cleanup();
      figures.invitationLifecycle = since(t0);
    }
  });
});

describe("SmartContractInterface", () => {
  type Desired = { sci?: Record<string, unknown>; adopted?: Record<string, unknown> };
  it("lifecycle; the same ABI in another form is no change", { timeout: LIFECYCLE_TIMEOUT }, async () => {
    const t0 = performance.now();
    const { stack, cleanup, state } = await lifecycleStack<Desired>(
      "kf-sci",
      (d) => {
        const out: Record<string, unknown> = {};
        if (d.sci) out.sciId = new keyform.SmartContractInterface("sci", d.sci as never).smartContractInterfaceId;
        if (d.adopted) out.adoptedId = new keyform.SmartContractInterface("adopted", d.adopted as never).smartContractInterfaceId;
        return out;
      },
      { sci: { smartContractAddress: TOKEN, smartContractInterface: ERC20_ABI, type: "ETHEREUM", label: "Token" } },
    );
    try {
      const all = async () => (await client.listSmartContractInterfaces()).smartContractInterfaces;

      let up = await stack.up();
      expect(changes(up.summary.resourceChanges, { stack: true })).toEqual({ create: 1 });
      const sciId = up.outputs.sciId!.value as string;
      expect(JSON.parse((await all()).find((s) => s.smartContractInterfaceId === sciId)!.smartContractInterface)).toEqual(ERC20_ABI);

      // the same ABI as indented JSON text with keys in another order, and the address in lower case
      const reordered = JSON.stringify(ERC20_ABI.map((f) => Object.fromEntries(Object.entries(f).reverse())), null, 4);
      state.desired.sci = { ...state.desired.sci, smartContractInterface: reordered, smartContractAddress: TOKEN.toLowerCase() };
      expect(changes((await stack.preview()).changeSummary)).toEqual({});

      // no update exists: a new label replaces it (same address: the old one is deleted first)
      state.desired.sci = { ...state.desired.sci, label: "Token v2" };
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ replace: 1 });
      const replacedId = up.outputs.sciId!.value as string;
      expect((await all()).map((s) => [s.smartContractInterfaceId, s.label])).toEqual([[replacedId, "Token v2"]]);

      await client.deleteSmartContractInterface({ smartContractInterfaceId: replacedId });
      await stack.refresh();
      expect(await stateOf(stack, "sci")).toBeUndefined();
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 1 });
      expect(await all()).toHaveLength(1);

      const { smartContractInterfaceId: handMade } = await client.createSmartContractInterface({
        smartContractAddress: "0x" + "b2".repeat(20),
        smartContractInterface: JSON.stringify(ERC20_ABI),
        type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM",
        label: "hand made",
      });
      state.desired.adopted = { smartContractAddress: "0x" + "B2".repeat(20), smartContractInterface: ERC20_ABI, type: "ETHEREUM", label: "hand made", importId: handMade };
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 1 });
      expect(up.outputs.adoptedId!.value).toBe(handMade);
      expect(changes((await stack.preview()).changeSummary)).toEqual({});

      const destroyed = await stack.destroy();
      expect(changes(destroyed.summary.resourceChanges, { stack: true })).toEqual({ delete: 2 });
      expect(await all()).toEqual([]);
    } finally {
      await cleanup();
      figures.smartContractInterfaceLifecycle = since(t0);
    }
  });
});

describe("EarnWrapperState", () => {
  type Desired = { earn?: Record<string, unknown> };
  it("lifecycle; delete re-enables deposits", { timeout: LIFECYCLE_TIMEOUT }, async () => {
    const t0 = performance.now();
    const deploy = (vault: string) => client.earnDeployWrapper({ vaultAddress: vault, chainCaip2: "eip155:1", clientFeeBps: "25", clientFeeWallet: "0x" + "fe".repeat(20) });
    const { wrapperAddress } = await deploy("0x" + "c3".repeat(20));
    const { wrapperAddress: otherWrapper } = await deploy("0x" + "d4".repeat(20));
    const { stack, cleanup, state } = await lifecycleStack<Desired>(
      "kf-earn",
      (d) => (d.earn ? { depositsDisabled: new keyform.EarnWrapperState("earn", d.earn as never).depositsDisabled } : {}),
      { earn: { wrapperAddress, depositsDisabled: true } },
    );
    try {
      const disabled = async (address: string) =>
        (await client.listEarnEnabledVaults()).enabledVaults!.find((v) => v.wrapperAddress === address)!.depositsDisabled;

      let up = await stack.up();
      expect(changes(up.summary.resourceChanges, { stack: true })).toEqual({ create: 1 });
      expect(await disabled(wrapperAddress)).toBe(true);

      expect(changes((await stack.preview()).changeSummary)).toEqual({});

      // the flag changes in place
      state.desired.earn = { wrapperAddress, depositsDisabled: false };
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ update: 1 });
      expect(await disabled(wrapperAddress)).toBe(false);

      // out-of-band change: found by refresh, undone by up
      await client.earnSetWrapperState({ wrapperAddress, depositsDisabled: true });
      await stack.refresh();
      expect((await stateOf(stack, "earn"))?.outputs).toMatchObject({ depositsDisabled: true });
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ update: 1 });
      expect(await disabled(wrapperAddress)).toBe(false);

      // another wrapper replaces the resource: the old wrapper gets deposits back, the new one is set
      state.desired.earn = { wrapperAddress: otherWrapper, depositsDisabled: true };
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ replace: 1 });
      expect(await disabled(otherWrapper)).toBe(true);
      expect(await disabled(wrapperAddress)).toBe(false);
      // (wrappers cannot be deleted or adopted by id: create always takes over the existing wrapper)

      const destroyed = await stack.destroy();
      expect(changes(destroyed.summary.resourceChanges, { stack: true })).toEqual({ delete: 1 });
      expect(await disabled(otherWrapper)).toBe(false);
      expect(await keyformResources(stack)).toEqual([]);
    } finally {
      await cleanup();
      figures.earnWrapperStateLifecycle = since(t0);
    }
  });
});
