/**
 * @module policy/time
 * The literals of time expressions (docs, "Time expressions"): `Timestamp('<RFC 3339>')` with a
 * zero UTC offset (`Z`, `z`, `+00:00` or `-00:00`) and `CronSpan('<5-field cron>', '<duration>',
 * '<IANA time zone>')`. A CronSpan holds while the current time lies within `duration` after a
 * minute the cron expression matches, in that zone. Cron fields take numbers, `*`, ranges and
 * lists only (no steps, macros or names; day-of-week 0-6, 0 is Sunday); when both day-of-month
 * and day-of-week are restricted, either matching is enough (the docs: OR'd, not AND'd).
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const ZERO_OFFSETS = new Set(["Z", "z", "+00:00", "-00:00"]);

/**
 * Parses an RFC 3339 timestamp with a zero UTC offset to epoch milliseconds.
 * @throws Error naming what is wrong
 */
export function parseTimestamp(text: string): number {
  const match = RFC3339.exec(text);
  if (!match) throw new Error(`Timestamp expects an RFC 3339 UTC time like '2025-01-31T09:00:00Z', got '${text}'`);
  const offset = match[8]!;
  if (!ZERO_OFFSETS.has(offset)) throw new Error(`Timestamp '${text}' has the UTC offset ${offset}: only a zero offset (Z, z, +00:00 or -00:00) is accepted`);
  const utc = `${text.slice(0, 10)}T${text.slice(11, text.length - offset.length)}Z`;
  const ms = Date.parse(utc);
  // Date.parse rolls 2025-02-30 over to March; a round trip catches it.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== utc.slice(0, 19)) throw new Error(`Timestamp '${text}' is not a valid date and time`);
  return ms;
}

/** The allowed values of each cron field. */
const FIELDS = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12 },
  { name: "day of week", min: 0, max: 6 },
] as const;

/** A parsed CronSpan: the matching values of each field, the span and the zone. */
export interface CronSpanSpec {
  readonly fields: readonly (ReadonlySet<number> | "*")[];
  readonly durationMinutes: number;
  readonly timeZone: string;
}

const MAX_DURATION_MINUTES = 7 * 24 * 60;

function parseCronField(text: string, index: number): ReadonlySet<number> | "*" {
  const spec = FIELDS[index]!;
  if (text === "*") return "*";
  if (text.includes("/")) throw new Error(`CronSpan ${spec.name} field '${text}': steps ('/') are not supported`);
  const values = new Set<number>();
  for (const part of text.split(",")) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!range) throw new Error(`CronSpan ${spec.name} field '${text}': expected numbers, ranges (a-b) or '*'`);
    const from = Number(range[1]);
    const to = range[2] === undefined ? from : Number(range[2]);
    if (from < spec.min || to > spec.max || from > to) {
      throw new Error(`CronSpan ${spec.name} field '${text}': values must be within ${spec.min}-${spec.max}`);
    }
    for (let v = from; v <= to; v++) values.add(v);
  }
  return values;
}

function parseDuration(text: string): number {
  const match = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?$/.exec(text);
  if (!match || text === "") throw new Error(`CronSpan duration '${text}': expected days, hours and minutes like '8h', '1d12h' or '30m'`);
  const minutes = Number(match[1] ?? 0) * 1440 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
  if (minutes === 0) throw new Error(`CronSpan duration '${text}' must be longer than zero`);
  if (minutes > MAX_DURATION_MINUTES) throw new Error(`CronSpan duration '${text}' is longer than the maximum of 7d`);
  return minutes;
}

function checkTimeZone(zone: string): void {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
  } catch {
    throw new Error(`CronSpan time zone '${zone}' is not an IANA time zone (e.g. 'America/New_York', 'UTC')`);
  }
}

/**
 * Parses and checks the three arguments of a CronSpan.
 * @throws Error naming the argument that is wrong
 */
export function parseCronSpan(cron: string, duration: string, timeZone: string): CronSpanSpec {
  if (cron.trim().startsWith("@")) throw new Error(`CronSpan '${cron}': macros like @daily are not supported`);
  const parts = cron.trim().split(/\s+/);
  if (parts.length !== 5) throw new Error(`CronSpan '${cron}': expected 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`);
  const fields = parts.map(parseCronField);
  const durationMinutes = parseDuration(duration);
  checkTimeZone(timeZone);
  return { fields, durationMinutes, timeZone };
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Minute, hour, day, month and weekday of `ms` in `zone`. */
function localFields(ms: number, zone: string): number[] {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      minute: "numeric",
      hour: "numeric",
      day: "numeric",
      month: "numeric",
      weekday: "short",
    });
    formatters.set(zone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  const weekday = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].indexOf(parts.weekday ?? "");
  return [Number(parts.minute), Number(parts.hour), Number(parts.day), Number(parts.month), weekday];
}

function matches(spec: CronSpanSpec, ms: number): boolean {
  const local = localFields(ms, spec.timeZone);
  const fits = (i: number) => spec.fields[i] === "*" || (spec.fields[i] as ReadonlySet<number>).has(local[i]!);
  if (!fits(0) || !fits(1) || !fits(3)) return false;
  const domRestricted = spec.fields[2] !== "*";
  const dowRestricted = spec.fields[4] !== "*";
  if (domRestricted && dowRestricted) return fits(2) || fits(4);
  return fits(2) && fits(4);
}

/** Whether `nowMs` lies within the span that starts at a minute the cron matches. */
export function cronSpanHolds(spec: CronSpanSpec, nowMs: number): boolean {
  const minute = Math.floor(nowMs / 60000) * 60000;
  for (let back = 0; back < spec.durationMinutes; back++) {
    if (matches(spec, minute - back * 60000)) return true;
  }
  return false;
}
