/**
 * @module resources/runtime/lookups
 * Reading an object that may be gone: a not-found answer is `undefined` (drift), any other
 * error is thrown.
 */
import { isNotFound } from "./errors";

/** The result of `read`, or `undefined` when the service answers not found. */
export async function unlessNotFound<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
