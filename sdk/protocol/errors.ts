/**
 * @module protocol/errors
 * The error of the protocol layer: an API key a stamper cannot use. The client re-exports it
 * beside its other errors.
 */

/**
 * The API key given to a stamper is unusable: `field` names the setting at fault (a malformed
 * or out-of-range private key, a public key that is not hex or not the private key's). A
 * TypeError, as bad arguments are; its message never holds the private key.
 */
export class InvalidApiKeyError extends TypeError {
  constructor(
    message: string,
    /** The option at fault. */
    readonly field: "apiPublicKey" | "apiPrivateKey",
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "InvalidApiKeyError";
  }
}
