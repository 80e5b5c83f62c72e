/**
 * @module wire/operations/smart-contract-interfaces
 * Smart contract interfaces, ABIs and IDLs (spec 2.7, 4.3; docs/service-facts.md#35-smart-contract-interfaces). There is no
 * update: a changed interface is a new one.
 */
import { z } from "zod";
import { defineActivity, defineQuery } from "../define";
import { SmartContractInterfaceType } from "../enums";
import { Id, JsonText, opt, Timestamp } from "../shared";

/** docs/service-facts.md#35-smart-contract-interfaces: the largest ABI or IDL the service stores. */
export const MAX_SMART_CONTRACT_INTERFACE_BYTES = 400 * 1024;

/**
 * Spec 2.7: a smart contract interface record. `type` is a plain string on the wire: the spec
 * shows `ETHEREUM`/`SOLANA`, the create parameters use the `SMART_CONTRACT_INTERFACE_TYPE_*`
 * form; both are accepted here. `notes` parses as "" when left out.
 */
export const SmartContractInterface = z.object({
  organizationId: z.string(),
  smartContractInterfaceId: z.string(),
  smartContractAddress: z.string(),
  /** JSON text of the ABI or IDL. */
  smartContractInterface: z.string(),
  type: z.string(),
  label: z.string(),
  notes: z.string().default(""),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type SmartContractInterface = z.infer<typeof SmartContractInterface>;

/** `v1SmartContractInterfaceReference`, as listed in `get_organization`. */
export const SmartContractInterfaceReference = z.object({
  smartContractInterfaceId: opt(z.string()),
  smartContractAddress: opt(z.string()),
  digest: opt(z.string()),
});
export type SmartContractInterfaceReference = z.infer<typeof SmartContractInterfaceReference>;

export const createSmartContractInterface = defineActivity("create_smart_contract_interface", {
  type: "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE",
  intentKey: "createSmartContractInterfaceIntent",
  resultKey: "createSmartContractInterfaceResult",
  parameters: z.object({
    smartContractAddress: Id,
    smartContractInterface: JsonText.refine(
      (v) => Buffer.byteLength(v, "utf8") <= MAX_SMART_CONTRACT_INTERFACE_BYTES,
      "must be at most 400 KB of JSON text",
    ),
    type: SmartContractInterfaceType,
    label: Id,
    notes: opt(z.string()),
  }),
  result: z.object({ smartContractInterfaceId: z.string() }),
});

export const deleteSmartContractInterface = defineActivity("delete_smart_contract_interface", {
  type: "ACTIVITY_TYPE_DELETE_SMART_CONTRACT_INTERFACE",
  intentKey: "deleteSmartContractInterfaceIntent",
  resultKey: "deleteSmartContractInterfaceResult",
  parameters: z.object({ smartContractInterfaceId: Id }),
  result: z.object({ smartContractInterfaceId: z.string() }),
});

export const getSmartContractInterface = defineQuery("get_smart_contract_interface", {
  request: z.object({ organizationId: Id, smartContractInterfaceId: Id }),
  response: z.object({ smartContractInterface: SmartContractInterface }),
});

export const listSmartContractInterfaces = defineQuery("list_smart_contract_interfaces", {
  request: z.object({ organizationId: Id }),
  response: z.object({ smartContractInterfaces: z.array(SmartContractInterface) }),
});

export const smartContractInterfaceOperations = {
  createSmartContractInterface,
  deleteSmartContractInterface,
  getSmartContractInterface,
  listSmartContractInterfaces,
};
