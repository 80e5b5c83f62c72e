/**
 * @module emulator/handlers/smart-contracts
 * Smart contract interfaces (docs/service-facts.md#35-smart-contract-interfaces). The ABI/IDL text is stored byte for byte as
 * given. One interface per contract address and type in an organization. Records show the
 * short type (`ETHEREUM` / `SOLANA`, spec 2.7).
 */
import { alreadyExists, notFound } from "../errors";
import { newId } from "./common";
import type { EmulatorModule, QueryContext } from "./types";
import { smartContractInterfaceView } from "./views";

const SHORT_TYPE = {
  SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM: "ETHEREUM",
  SMART_CONTRACT_INTERFACE_TYPE_SOLANA: "SOLANA",
} as const;

function requireInterface(ctx: QueryContext, id: string) {
  const row = ctx.store.smartContractInterfaces.get(ctx.organizationId, id);
  if (!row) throw notFound(`smartContractInterfaceId: no smart contract interface with id ${id} in organization ${ctx.organizationId}`);
  return row;
}

export const smartContractsModule: EmulatorModule = {
  name: "smart-contract-interfaces",
  setup: () => ({
    createSmartContractInterface(ctx, p) {
      const type = SHORT_TYPE[p.type];
      // Ethereum addresses are one address in any case (docs: "case insensitive with Ethereum"), Solana's are not.
      const existing =
        type === "ETHEREUM"
          ? ctx.store.smartContractInterfaces.findEthereum(ctx.organizationId, p.smartContractAddress)
          : ctx.store.smartContractInterfaces.findByAddress(ctx.organizationId, p.smartContractAddress, type);
      if (existing) {
        throw alreadyExists(
          `smartContractAddress: an ${type} interface for ${p.smartContractAddress} already exists in the organization`,
        );
      }
      const id = newId();
      ctx.store.smartContractInterfaces.insert({
        id,
        org_id: ctx.organizationId,
        address: p.smartContractAddress,
        interface_text: p.smartContractInterface,
        type,
        label: p.label,
        notes: p.notes ?? "",
        created_ms: ctx.nowMs,
        updated_ms: ctx.nowMs,
      });
      return { smartContractInterfaceId: id };
    },

    deleteSmartContractInterface(ctx, p) {
      const row = requireInterface(ctx, p.smartContractInterfaceId);
      ctx.store.smartContractInterfaces.delete(row.id);
      return { smartContractInterfaceId: row.id };
    },

    getSmartContractInterface(ctx, req) {
      return { smartContractInterface: smartContractInterfaceView(requireInterface(ctx, req.smartContractInterfaceId)) };
    },

    listSmartContractInterfaces(ctx) {
      return { smartContractInterfaces: ctx.store.smartContractInterfaces.list(ctx.organizationId).map(smartContractInterfaceView) };
    },
  }),
};
