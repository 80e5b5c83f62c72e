/**
 * @module resources/smart-contract-interface
 * `SmartContractInterface`: the ABI (Ethereum) or IDL (Solana) of a contract, which lets
 * policies inspect calls to it. The service cannot change one, so every change replaces it;
 * the document is compared as canonical JSON.
 */
import * as pulumi from "@pulumi/pulumi";
import { dynamicResourceOptions, KeyformProvider } from "./provider";

/** Inputs of a {@link SmartContractInterface}. */
export interface SmartContractInterfaceInputs {
  /** Contract (Ethereum, `0x…`) or program (Solana, base58) address. */
  smartContractAddress: pulumi.Input<string>;
  /** The ABI or IDL, as JSON text or as an object; whitespace and key order do not matter. */
  smartContractInterface: pulumi.Input<string | object>;
  /** `ETHEREUM` or `SOLANA`. */
  type: pulumi.Input<"ETHEREUM" | "SOLANA" | string>;
  label: pulumi.Input<string>;
  /** Free text; default "". */
  notes?: pulumi.Input<string>;
  /** The organization; defaults to the `keyform:organizationId` setting. */
  organizationId?: pulumi.Input<string>;
  /** Adopt the existing interface with this id; it must match the inputs. */
  importId?: pulumi.Input<string>;
}
/** Alias of {@link SmartContractInterfaceInputs}, in the usual Pulumi naming. */
export type SmartContractInterfaceArgs = SmartContractInterfaceInputs;

/** The provider of {@link SmartContractInterface}; delegates to keyform's provider runtime. */
export class SmartContractInterfaceProvider extends KeyformProvider {
  constructor() {
    super("SmartContractInterface");
  }
}

const provider = new SmartContractInterfaceProvider();

/**
 * A smart contract interface. Every input change replaces it (the service has no update).
 *
 * @example
 * new keyform.SmartContractInterface("usdc", {
 *   smartContractAddress: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
 *   smartContractInterface: erc20Abi, type: "ETHEREUM", label: "USDC",
 * });
 */
export class SmartContractInterface extends pulumi.dynamic.Resource {
  declare public readonly smartContractInterfaceId: pulumi.Output<string>;
  /** The document as canonical JSON text. */
  declare public readonly smartContractInterface: pulumi.Output<string>;
  declare public readonly organizationId: pulumi.Output<string>;

  constructor(name: string, args: SmartContractInterfaceInputs, opts?: pulumi.CustomResourceOptions) {
    super(
      provider,
      name,
      { ...args, smartContractInterfaceId: undefined, notes: args.notes, organizationId: args.organizationId },
      dynamicResourceOptions("SmartContractInterface", name, opts),
      "keyform",
      "SmartContractInterface",
    );
  }
}
