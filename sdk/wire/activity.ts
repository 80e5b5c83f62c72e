/**
 * @module wire/activity
 * The activity object (spec 2.2, docs/service-facts.md#2-request-and-response-envelope) and the submit envelope (spec 4.1).
 */
import { z } from "zod";
import { ActivityStatus, VoteSelection } from "./enums";
import { AppProof, Id, opt, Uint64String } from "./shared";

/** docs/service-facts.md#2-request-and-response-envelope: a vote on a consensus-gated activity. */
export const Vote = z.object({
  id: z.string(),
  userId: z.string(),
  activityId: z.string(),
  selection: VoteSelection,
  message: opt(z.string()),
  publicKey: opt(z.string()),
  signature: opt(z.string()),
  scheme: opt(z.string()),
  createdAt: z.unknown(),
  user: opt(z.unknown()),
});
export type Vote = z.infer<typeof Vote>;

/** Why an activity failed (present when status is `ACTIVITY_STATUS_FAILED`). */
export const ActivityFailure = z.object({
  code: z.number().int(),
  message: z.string(),
  details: opt(z.array(z.unknown())),
});
export type ActivityFailure = z.infer<typeof ActivityFailure>;

/**
 * An activity timestamp. The spec makes it a string (epoch milliseconds); the hosted service's
 * generated types show a `{seconds, nanos}` object, so that form is accepted too and converted
 * to the same millisecond string, keeping the output type one string for every caller.
 */
export const ActivityTimestamp = z.preprocess((value) => {
  if (typeof value === "object" && value !== null && "seconds" in value) {
    const { seconds, nanos } = value as { seconds?: unknown; nanos?: unknown };
    if (typeof seconds === "string" && /^\d+$/.test(seconds)) {
      const millis = BigInt(seconds) * 1000n + BigInt(Math.floor(Number(nanos ?? 0) / 1e6));
      return millis.toString();
    }
  }
  return value;
}, z.string()) as unknown as z.ZodType<string, string | { seconds: string; nanos: string }>;

/**
 * Spec 2.2: the activity object. `intent` and `result` each hold exactly one key named per
 * operation; their contents are parsed by the operation's own schemas (see `define.ts`).
 * Timestamps of activities are strings (epoch milliseconds).
 */
export const Activity = z.object({
  id: Id,
  organizationId: Id,
  status: ActivityStatus,
  type: z.string(),
  intent: z.record(z.string(), z.unknown()),
  result: z.record(z.string(), z.unknown()),
  votes: z.array(Vote),
  fingerprint: z.string(),
  canApprove: z.boolean(),
  canReject: z.boolean(),
  createdAt: ActivityTimestamp,
  updatedAt: ActivityTimestamp,
  failure: opt(ActivityFailure),
  appProofs: opt(z.array(AppProof)),
});
export type Activity = z.infer<typeof Activity>;

/** Every activity endpoint answers `{ activity }`. */
export const ActivityResponse = z.object({ activity: Activity });
export type ActivityResponse = z.infer<typeof ActivityResponse>;

/**
 * The answer of one operation's activity, its result checked by the operation's own schema in
 * the same pass as the envelope, so the result's bytes are parsed once. The result is absent
 * until the activity completes; other keys of `result` are kept as they are.
 */
export function activityResponseWith(resultKey: string, result: z.ZodType) {
  return z.object({ activity: Activity.extend({ result: z.looseObject({ [resultKey]: result.optional() }) }) });
}

/** Spec 4.1: the envelope of every submit, with its operation's `type` and `parameters`. */
export function activityEnvelope<T extends string, P extends z.ZodType>(type: T, parameters: P) {
  return z.object({
    type: z.literal(type),
    timestampMs: Uint64String,
    organizationId: Id,
    parameters,
    generateAppProofs: opt(z.boolean()),
  });
}
