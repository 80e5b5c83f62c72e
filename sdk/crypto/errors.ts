/**
 * @module crypto/errors
 * The one error class of the crypto layer. Caller bugs (wrong argument types) throw
 * `TypeError`; bad data (malformed encodings, failed authentication, wrong keys) throws
 * {@link CryptoError}. Messages name the offending field and never carry key material.
 */

/** Bad or unauthentic cryptographic data: malformed input, failed signature or tag check. */
export class CryptoError extends Error {
  /** The argument or field the error is about, e.g. `targetPublicKeyHex`. */
  readonly field: string | undefined;

  constructor(message: string, field?: string) {
    super(message);
    this.name = "CryptoError";
    this.field = field;
  }
}
