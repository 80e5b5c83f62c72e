/**
 * @module emulator/wallets/errors
 * The one error type of the wallet modules. It names the offending request field so the
 * emulator can answer with a 400 whose message points at that field. Messages never carry a
 * mnemonic, a seed or a private key.
 */

/** Request fields a derivation error can point at. */
export type WalletField =
  | "mnemonic"
  | "mnemonicLength"
  | "seed"
  | "curve"
  | "pathFormat"
  | "path"
  | "addressFormat"
  | "publicKey";

/** A derivation or encoding request that cannot be served; `field` names the culprit. */
export class WalletDerivationError extends Error {
  override readonly name = "WalletDerivationError";

  /**
   * @param field the request field at fault (also the first word of the message)
   * @param message what is wrong, without any secret material
   */
  constructor(
    readonly field: WalletField,
    message: string,
  ) {
    super(message);
  }
}
