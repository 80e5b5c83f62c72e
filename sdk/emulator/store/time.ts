/**
 * @module emulator/store/time
 * Conversions between stored epoch milliseconds and the wire's two time forms.
 */

/** Spec 2.1: the Timestamp object of resource records, from epoch milliseconds. */
export function timestampOf(ms: number): { seconds: string; nanos: string } {
  const seconds = Math.floor(ms / 1000);
  return { seconds: String(seconds), nanos: String((ms - seconds * 1000) * 1_000_000) };
}
