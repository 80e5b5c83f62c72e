/**
 * @module resources/runtime/earn-wrapper-state
 * EarnWrapperState: whether an already deployed Earn wrapper accepts deposits (withdrawals are
 * always allowed). The wrapper itself is not created or deleted here: create takes over the
 * deposit flag of an existing wrapper (the resource id is its address), update changes it
 * through `earn_set_wrapper_state`, and delete re-enables deposits, the service's default.
 * A read finds the wrapper in `list_earn_enabled_vaults`.
 */
import { operations } from "../../wire/registry";
import { ETHEREUM_ADDRESS, rule, schemaFailures } from "./check";
import type { Session } from "./client";
import { createActivity } from "./earlier-activity";
import { ProviderError } from "./errors";
import { collections } from "./shared-reads";
import type { ListObjects } from "./listing";
import type { InputsOf, OutputsOf, ResourceDescription } from "./describe";
import { defineResource } from "./define";
import { makeHandler } from "./framework";

interface LiveWrapper {
  wrapperAddress: string;
  depositsDisabled: boolean;
}

const sameAddress = (a: unknown, b: unknown) =>
  typeof a === "string" && typeof b === "string" ? a.toLowerCase() === b.toLowerCase() : a === b;

async function fetchWrapper(session: Session, address: string): Promise<LiveWrapper | undefined> {
  const { enabledVaults } = await collections.earnEnabledVaults(session);
  const vault = (enabledVaults ?? []).find((v) => sameAddress(v.wrapperAddress, address));
  if (!vault || vault.wrapperAddress === undefined) return undefined;
  return { wrapperAddress: vault.wrapperAddress, depositsDisabled: vault.depositsDisabled ?? false };
}

/** The wrapper of every Earn-enabled vault that has one deployed. */
const listEarnWrappers: ListObjects = async (session) =>
  ((await collections.earnEnabledVaults(session)).enabledVaults ?? []).flatMap((v) =>
    v.wrapperAddress === undefined ? [] : [{ id: v.wrapperAddress, label: `earn-wrapper-${v.wrapperAddress.slice(0, 10)}` }],
  );

const describe = {
  description:
    "The deposit state of an existing Earn wrapper (`earn_set_wrapper_state`). Its id is the wrapper address. Creating it takes over the wrapper's flag; `depositsDisabled` changes in place. Deleting the resource re-enables deposits (the wrapper itself stays deployed).",
  // The wrapper already exists by definition: create takes it over, so there is nothing to adopt.
  importId: false,
  importIdMeaning: "the wrapper's address, `wrapperAddress`",
  example: { name: "pause-deposits", inputs: { wrapperAddress: "0x2a1530C4C41db0B0b2bB646CB5Eb1A67b7158667", depositsDisabled: true } },
  guide: [
    "It manages the deposit flag of a wrapper the organization has already deployed; withdrawals are",
    "always allowed. The resource id is the wrapper address. **Destroying the resource re-enables",
    "deposits** (the service's default); the wrapper itself stays deployed. Creating it on a wrapper",
    "that is not deployed fails naming `wrapperAddress`.",
  ].join("\n"),
  inputs: {
    wrapperAddress: { type: "string", description: "Address of a wrapper the organization has deployed.", required: true, replaceOnChange: true },
    depositsDisabled: { type: "boolean", description: "True blocks new deposits; withdrawals are always allowed.", required: true },
  },
  outputs: {
    wrapperAddress: { type: "string", description: "The wrapper's address." },
    depositsDisabled: { type: "boolean", description: "Whether deposits are blocked." },
  },
} as const satisfies ResourceDescription;

/** Normalized inputs of an EarnWrapperState. */
export type EarnWrapperStateInputs = InputsOf<typeof describe>;
/** Outputs of an EarnWrapperState. */
export type EarnWrapperStateOutputs = OutputsOf<typeof describe>;

export const earnWrapperStateSpec = defineResource<EarnWrapperStateInputs, EarnWrapperStateOutputs, LiveWrapper>({
  kind: "EarnWrapperState",
  list: listEarnWrappers,
  describe,
  idProperty: "wrapperAddress",
  equal: { wrapperAddress: sameAddress },
  validate(inputs) {
    const record = inputs as unknown as Record<string, unknown>;
    return [
      ...schemaFailures(
        operations.earnSetWrapperState.parameters,
        { wrapperAddress: inputs.wrapperAddress, depositsDisabled: inputs.depositsDisabled },
        record,
      ),
      ...rule(record, "wrapperAddress", (v) => typeof v !== "string" || ETHEREUM_ADDRESS.test(v), "is not an EVM address (0x and 40 hex digits)"),
    ];
  },
  label: (inputs) => inputs.wrapperAddress ?? "",
  fetch: (session, id) => fetchWrapper(session, id),
  // A set-state an earlier run left waiting for consensus is reported again, not resubmitted.
  // The match is on the address as declared: create sends the address as the service lists
  // it, which is the same text unless the program spells it in another case.
  createActivity: createActivity({
    operation: "earnSetWrapperState",
    parameters: (inputs: EarnWrapperStateInputs) => ({ wrapperAddress: inputs.wrapperAddress, depositsDisabled: inputs.depositsDisabled }),
    createdId: (result) => result.wrapperAddress,
  }),
  async create(session, inputs) {
    const live = await fetchWrapper(session, inputs.wrapperAddress);
    if (live === undefined) {
      throw new ProviderError(
        `wrapperAddress: ${inputs.wrapperAddress} is not a deployed Earn wrapper of organization ${session.organizationId} ` +
          `(deploy it with earn_deploy_wrapper first)`,
      );
    }
    if (live.depositsDisabled !== inputs.depositsDisabled) {
      await session.client.earnSetWrapperState({ wrapperAddress: live.wrapperAddress, depositsDisabled: inputs.depositsDisabled });
    }
    return { id: live.wrapperAddress };
  },
  async update(session, id, _live, inputs) {
    await session.client.earnSetWrapperState({ wrapperAddress: id, depositsDisabled: inputs.depositsDisabled });
  },
  async remove(session, id) {
    // Deleting the resource hands the wrapper back in its default state: deposits enabled.
    await session.client.earnSetWrapperState({ wrapperAddress: id, depositsDisabled: false });
  },
});

/** The runtime handler the EarnWrapperState provider code in state delegates to. */
export const earnWrapperStateHandler = makeHandler(earnWrapperStateSpec);
