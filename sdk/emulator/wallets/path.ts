/**
 * @module emulator/wallets/path
 * Parsing and validation of BIP-32 derivation paths such as `m/44'/60'/0'/0/0`.
 */
import { WalletDerivationError } from "./errors";

/** Index offset of hardened children (2^31). */
export const HARDENED_OFFSET = 0x8000_0000;

/** BIP-32 serialises depth in one byte. */
const MAX_DEPTH = 255;

// A decimal index without leading zeros, optionally hardened with ', h or H.
const SEGMENT = /^(0|[1-9][0-9]*)(['hH]?)$/u;

/**
 * Parses a BIP-32 path into child indexes (hardened ones have `HARDENED_OFFSET` added).
 * `m` alone is the master key and yields an empty list.
 * @throws WalletDerivationError (field `path`) naming the faulty segment
 */
export function parseDerivationPath(path: string): number[] {
  if (typeof path !== "string" || path.length === 0) {
    throw new WalletDerivationError("path", "path must be a non-empty string such as m/44'/60'/0'/0/0");
  }
  const segments = path.split("/");
  if (segments[0] !== "m") {
    throw new WalletDerivationError("path", `path must start with "m"; got ${JSON.stringify(path)}`);
  }
  const rest = segments.slice(1);
  if (rest.length > MAX_DEPTH) {
    throw new WalletDerivationError("path", `path is deeper than ${MAX_DEPTH} levels`);
  }
  return rest.map((segment, position) => {
    const match = SEGMENT.exec(segment);
    if (!match) {
      throw new WalletDerivationError(
        "path",
        `path segment ${position + 1} (${JSON.stringify(segment)}) is not an index like 44 or 44'`,
      );
    }
    const index = Number(match[1]);
    if (index >= HARDENED_OFFSET) {
      throw new WalletDerivationError(
        "path",
        `path segment ${position + 1} (${JSON.stringify(segment)}) exceeds the maximum index 2147483647`,
      );
    }
    return match[2] ? index + HARDENED_OFFSET : index;
  });
}

/** True when the index is hardened. */
export function isHardened(index: number): boolean {
  return index >= HARDENED_OFFSET;
}
