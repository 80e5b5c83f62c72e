/**
 * @module resources/wallet
 * `Wallet`: an HD wallet with its accounts. Rename in place; everything else replaces it. Never
 * deleted unless `deleteWithoutExport: true`.
 */
import * as pulumi from "@pulumi/pulumi";
import { dynamicResourceOptions, KeyformProvider } from "./provider";

/** One account of a {@link Wallet}. */
export interface WalletAccountArgs {
  /** `CURVE_SECP256K1` or `CURVE_ED25519`. */
  curve: pulumi.Input<string>;
  /** Default `PATH_FORMAT_BIP32`. */
  pathFormat?: pulumi.Input<string>;
  /** Derivation path, e.g. `m/44'/60'/0'/0/0`. */
  path: pulumi.Input<string>;
  /** e.g. `ADDRESS_FORMAT_ETHEREUM`, `ADDRESS_FORMAT_SOLANA`. */
  addressFormat: pulumi.Input<string>;
  name?: pulumi.Input<string>;
}

/** Inputs of a {@link Wallet}. */
export interface WalletInputs {
  /** The wallet's name (unique in the organization); defaults to the resource name. */
  walletName?: pulumi.Input<string>;
  /** The accounts, in derivation order; a change replaces the wallet. */
  accounts: pulumi.Input<pulumi.Input<WalletAccountArgs>[]>;
  /** 12 (default), 15, 18, 21 or 24 words; a change replaces the wallet. */
  mnemonicLength?: pulumi.Input<number>;
  /**
   * Delete the wallet on destroy or replacement even though it was never exported. Default
   * false: the wallet is retained (`retainOnDelete`). A plain value, since it decides the
   * resource options.
   */
  deleteWithoutExport?: boolean;
  /** The organization; defaults to the `keyform:organizationId` setting. Changing it replaces the wallet. */
  organizationId?: pulumi.Input<string>;
  /** Adopt the existing wallet with this id instead of creating one; it is renamed to match. */
  importId?: pulumi.Input<string>;
}
/** Alias of {@link WalletInputs}, in the usual Pulumi naming. */
export type WalletArgs = WalletInputs;

/** The provider of {@link Wallet}; delegates to keyform's provider runtime. */
export class WalletProvider extends KeyformProvider {
  constructor() {
    super("Wallet");
  }
}

const provider = new WalletProvider();

/**
 * An HD wallet. In-place updates (`update_wallet`): `walletName`, `deleteWithoutExport`.
 * Replacement: `accounts`, `mnemonicLength`, `organizationId`. Retained on destroy unless
 * `deleteWithoutExport: true`.
 *
 * @example
 * new keyform.Wallet("treasury", { accounts: [{ curve: "CURVE_SECP256K1", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] });
 */
export class Wallet extends pulumi.dynamic.Resource {
  /** The wallet's id. */
  declare public readonly walletId: pulumi.Output<string>;
  declare public readonly walletName: pulumi.Output<string>;
  /** The accounts with their ids and addresses. */
  declare public readonly accounts: pulumi.Output<Array<{ walletAccountId: string; address: string; curve: string; pathFormat: string; path: string; addressFormat: string; name?: string }>>;
  /** The accounts' addresses, in order. */
  declare public readonly addresses: pulumi.Output<string[]>;
  declare public readonly exported: pulumi.Output<boolean>;
  declare public readonly deleteWithoutExport: pulumi.Output<boolean>;
  declare public readonly organizationId: pulumi.Output<string>;

  constructor(name: string, args: WalletInputs, opts?: pulumi.CustomResourceOptions) {
    super(
      provider,
      name,
      { ...args, walletName: args.walletName ?? name, walletId: undefined, addresses: undefined, exported: undefined, organizationId: args.organizationId },
      // Key material is never deleted by accident.
      dynamicResourceOptions("Wallet", name, { retainOnDelete: args.deleteWithoutExport !== true, ...opts }),
      "keyform",
      "Wallet",
    );
  }
}
