/**
 * Real engine, real emulator: the lifecycle of Invitation, SmartContractInterface and
 * EarnWrapperState, declared in one stack so that each step is one engine run for the three
 * (docs/testing.md). Settings come from stack config (`keyform:*`, the API private key as a
 * secret) and not from the environment, which proves the provider reads them through
 * `configure`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyformClient } from "../../sdk/client/client";
import { createInlineStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { changes, keyformResources, loadKeyform, since, stateOf } from "../resources/harness/engine-harness";
import { settingsConfig } from "./plugin-support";

const keyform = loadKeyform();
const LIFECYCLE_TIMEOUT = 900_000;
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

interface Desired {
  invite: Record<string, unknown>;
  sci: Record<string, unknown>;
  earn: Record<string, unknown>;
  adoptedInvite?: Record<string, unknown>;
  adoptedSci?: Record<string, unknown>;
}

describe("Invitation, SmartContractInterface and EarnWrapperState", () => {
  it("lifecycle in one stack; the same ABI in another form is no change; deleting the earn state re-enables deposits", { timeout: LIFECYCLE_TIMEOUT }, async () => {
    const t0 = performance.now();
    const deploy = (vault: string) => client.earnDeployWrapper({ vaultAddress: vault, chainCaip2: "eip155:1", clientFeeBps: "25", clientFeeWallet: "0x" + "fe".repeat(20) });
    const { wrapperAddress } = await deploy("0x" + "c3".repeat(20));
    const { wrapperAddress: otherWrapper } = await deploy("0x" + "d4".repeat(20));
    const state: { desired: Desired } = {
      desired: {
        invite: { receiverUserName: "Alice", receiverUserEmail: "alice@example.com", accessType: "ACCESS_TYPE_WEB", senderUserId: rootUserId },
        sci: { smartContractAddress: TOKEN, smartContractInterface: ERC20_ABI, type: "ETHEREUM", label: "Token" },
        earn: { wrapperAddress, depositsDisabled: true },
      },
    };
    const { stack, cleanup } = await createInlineStack({
      projectName: "kf-invitations-contracts-earn",
      // Settings as stack config; nothing KEYFORM_* in the environment of the engine.
      config: settingsConfig(emu),
      program: async () => {
        const d = state.desired;
        const invite = new keyform.Invitation("invite", d.invite as never);
        const out: Record<string, unknown> = {
          invitationId: invite.invitationId,
          status: invite.status,
          sciId: new keyform.SmartContractInterface("sci", d.sci as never).smartContractInterfaceId,
          depositsDisabled: new keyform.EarnWrapperState("earn", d.earn as never).depositsDisabled,
        };
        if (d.adoptedInvite) out.adoptedInviteId = new keyform.Invitation("adopted-invite", d.adoptedInvite as never).invitationId;
        if (d.adoptedSci) out.adoptedSciId = new keyform.SmartContractInterface("adopted-sci", d.adoptedSci as never).smartContractInterfaceId;
        return out;
      },
    });
    try {
      const invitations = async () => (await client.getOrganization()).organizationData.invitations ?? [];
      const interfaces = async () => (await client.listSmartContractInterfaces()).smartContractInterfaces;
      const disabled = async (address: string) =>
        (await client.listEarnEnabledVaults()).enabledVaults!.find((v) => v.wrapperAddress === address)!.depositsDisabled;

      // up creates the three
      let up = await stack.up();
      expect(changes(up.summary.resourceChanges, { stack: true })).toEqual({ create: 3 });
      const invitationId = up.outputs.invitationId!.value as string;
      expect(up.outputs.status!.value).toBe("INVITATION_STATUS_CREATED");
      expect((await invitations()).find((i) => i.invitationId === invitationId)?.receiverEmail).toBe("alice@example.com");
      const sciId = up.outputs.sciId!.value as string;
      expect(JSON.parse((await interfaces()).find((s) => s.smartContractInterfaceId === sciId)!.smartContractInterface)).toEqual(ERC20_ABI);
      expect(await disabled(wrapperAddress)).toBe(true);

      // no changes, also with the same ABI as indented JSON text with keys in another order and
      // the address in lower case
      const reordered = JSON.stringify(ERC20_ABI.map((f) => Object.fromEntries(Object.entries(f).reverse())), null, 4);
      state.desired.sci = { ...state.desired.sci, smartContractInterface: reordered, smartContractAddress: TOKEN.toLowerCase() };
      expect(changes((await stack.preview()).changeSummary)).toEqual({});

      // no update exists for invitations and interfaces: another access type and a new label
      // replace them (same address: the old interface is deleted first); the earn flag changes in place
      state.desired.invite = { ...state.desired.invite, accessType: "ACCESS_TYPE_ALL" };
      state.desired.sci = { ...state.desired.sci, label: "Token v2" };
      state.desired.earn = { wrapperAddress, depositsDisabled: false };
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ replace: 2, update: 1 });
      const replacedInviteId = up.outputs.invitationId!.value as string;
      expect(replacedInviteId).not.toBe(invitationId);
      expect((await invitations()).map((i) => [i.invitationId, i.accessType])).toEqual([[replacedInviteId, "ACCESS_TYPE_ALL"]]);
      const replacedSciId = up.outputs.sciId!.value as string;
      expect((await interfaces()).map((s) => [s.smartContractInterfaceId, s.label])).toEqual([[replacedSciId, "Token v2"]]);
      expect(await disabled(wrapperAddress)).toBe(false);

      // out of band: invitations and interfaces can only be deleted (refresh drops them, up
      // re-creates them); the earn flag is changed (refresh finds it, up undoes it)
      await client.deleteInvitation({ invitationId: replacedInviteId });
      await client.deleteSmartContractInterface({ smartContractInterfaceId: replacedSciId });
      await client.earnSetWrapperState({ wrapperAddress, depositsDisabled: true });
      await stack.refresh();
      expect(await stateOf(stack, "invite")).toBeUndefined();
      expect(await stateOf(stack, "sci")).toBeUndefined();
      expect((await stateOf(stack, "earn"))?.outputs).toMatchObject({ depositsDisabled: true });
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 2, update: 1 });
      expect(await invitations()).toHaveLength(1);
      expect(await interfaces()).toHaveLength(1);
      expect(await disabled(wrapperAddress)).toBe(false);

      // importId adopts an interface made with the client; another wrapper replaces the earn
      // state: the old wrapper gets deposits back, the new one is set (wrappers cannot be
      // deleted or adopted by id: create always takes over the existing wrapper)
      const { smartContractInterfaceId: handMade } = await client.createSmartContractInterface({
        smartContractAddress: "0x" + "b2".repeat(20),
        smartContractInterface: JSON.stringify(ERC20_ABI),
        type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM",
        label: "hand made",
      });
      state.desired.adoptedSci = { smartContractAddress: "0x" + "B2".repeat(20), smartContractInterface: ERC20_ABI, type: "ETHEREUM", label: "hand made", importId: handMade };
      state.desired.earn = { wrapperAddress: otherWrapper, depositsDisabled: true };
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 1, replace: 1 });
      expect(up.outputs.adoptedSciId!.value).toBe(handMade);
      expect(await disabled(otherWrapper)).toBe(true);
      expect(await disabled(wrapperAddress)).toBe(false);
      // Nothing else left to change (the adopted interface declared with its address in upper
      // case included): the last up below counts exactly one create.

      // importId: a differing invitation cannot be adopted (no update): the create fails and lists the fields
      const { invitationIds } = await client.createInvitations({
        invitations: [{ receiverUserName: "Bob", receiverUserEmail: "bob@example.com", receiverUserTags: [], accessType: "ACCESS_TYPE_API", senderUserId: rootUserId }],
      });
      state.desired.adoptedInvite = { receiverUserName: "Bob", receiverUserEmail: "bob@example.com", accessType: "ACCESS_TYPE_WEB", senderUserId: rootUserId, importId: invitationIds[0] };
      const failed = await stack.up().catch((e: Error) => e);
      expect(String(failed)).toMatch(/importId: the existing Invitation .* differs .*accessType \(declared "ACCESS_TYPE_WEB", found "ACCESS_TYPE_API"\)/);
      expect(await stateOf(stack, "adopted-invite")).toBeUndefined();
      // declared as it is, it is adopted
      state.desired.adoptedInvite = { ...state.desired.adoptedInvite, accessType: "ACCESS_TYPE_API" };
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 1 });
      expect(up.outputs.adoptedInviteId!.value).toBe(invitationIds[0]);

      // destroy leaves nothing, and the wrapper gets deposits back
      const destroyed = await stack.destroy();
      expect(changes(destroyed.summary.resourceChanges, { stack: true })).toEqual({ delete: 5 });
      expect(await invitations()).toEqual([]);
      expect(await interfaces()).toEqual([]);
      expect(await disabled(otherWrapper)).toBe(false);
      expect(await keyformResources(stack)).toEqual([]);
    } finally {
      await cleanup();
      figures.lifecycle = since(t0);
    }
  });
});
