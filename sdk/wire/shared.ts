/**
 * @module wire/shared
 * Building blocks shared by every operation's schema: tolerant optional fields, the
 * protobuf-JSON scalars (64-bit integers as strings), and the shared types of spec 2.1.
 */
import { z } from "zod";
import { AppProofScheme, ClientSignatureScheme } from "./enums";

/**
 * The static type of an {@link opt} field: optional in input and output, `null` accepted on
 * input. (The runtime schema is a preprocess pipe; this type keeps the typed client precise
 * instead of widening every optional field's input to `unknown`.)
 */
export type Opt<T extends z.ZodType> = z.ZodOptional<z.ZodType<z.output<T>, z.input<T> | null>>;

/**
 * An optional field as real clients send it: absent, `null`, or (for anything but a string,
 * where "" is a value) the empty string all mean "not given" and parse to `undefined`.
 * The Rust CLI sends `"generateAppProofs": null` and `"before": ""` (docs/service-facts.md#2-request-and-response-envelope).
 */
export function opt<T extends z.ZodType>(schema: T): Opt<T> {
  const emptyMeansAbsent = !(schema instanceof z.ZodString);
  return z.preprocess(
    (value) => (value === null || (emptyMeansAbsent && value === "") ? undefined : value),
    schema.optional(),
  ) as unknown as Opt<T>;
}

/** Like {@link opt}, but "" also means absent for a string (cursors, optional ids). */
export function optId(): Opt<z.ZodString> {
  return z.preprocess(
    (value) => (value === null || value === "" ? undefined : value),
    z.string().optional(),
  ) as unknown as Opt<z.ZodString>;
}

/** A non-empty identifier string; the message names what is missing. */
export const Id = z.string().min(1, "must not be empty");

const UINT64_MAX = (1n << 64n) - 1n;

/** A 64-bit unsigned integer carried as a decimal string (protobuf JSON). */
export const Uint64String = z
  .string()
  .regex(/^\d{1,20}$/, "must be a string of decimal digits")
  .refine((v) => !/^\d{1,20}$/.test(v) || BigInt(v) <= UINT64_MAX, "must fit in an unsigned 64-bit integer");

/** A phone number in E.164 form: `+`, country code, subscriber number, at most 15 digits. */
export const E164PhoneNumber = z
  .string()
  .regex(/^\+[1-9]\d{1,14}$/, "must be an E.164 phone number such as +14155550123");

/** JSON text (ABIs, IDLs, filters): must parse as JSON. */
export const JsonText = z.string().refine((v) => {
  try {
    JSON.parse(v);
    return true;
  } catch {
    return false;
  }
}, "must be valid JSON text");

/** Spec 2.1: Timestamp object of resource records. */
export const Timestamp = z.object({ seconds: z.string(), nanos: z.string() });
export type Timestamp = z.infer<typeof Timestamp>;

/** Spec 2.1: paginationOptions; `limit` is "1" to "100". */
export const PaginationOptions = z.object({
  limit: opt(
    z
      .string()
      .regex(/^\d+$/, "must be a string of decimal digits")
      .refine((v) => Number(v) >= 1 && Number(v) <= 100, "must be between 1 and 100"),
  ),
  before: optId(),
  after: optId(),
});
export type PaginationOptions = z.infer<typeof PaginationOptions>;

/** Spec 2.1: pageInfo of paginated responses. */
export const PageInfo = z.object({
  hasNextPage: opt(z.boolean()),
  hasPreviousPage: opt(z.boolean()),
  startCursor: opt(z.string()),
  endCursor: opt(z.string()),
});
export type PageInfo = z.infer<typeof PageInfo>;

/** Spec 2.1: clientSignature. */
export const ClientSignature = z.object({
  publicKey: Id,
  scheme: ClientSignatureScheme,
  message: z.string(),
  signature: Id,
});
export type ClientSignature = z.infer<typeof ClientSignature>;

/** Spec 2.1: one App Proof. */
export const AppProof = z.object({
  scheme: AppProofScheme,
  publicKey: z.string(),
  proofPayload: z.string(),
  signature: z.string(),
});
export type AppProof = z.infer<typeof AppProof>;

/** The error body of every failed call (docs/service-facts.md#5-errors): gRPC-gateway `rpcStatus`. */
export const ErrorBody = z.object({
  code: z.number().int(),
  message: z.string(),
  details: opt(z.array(z.unknown())),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/**
 * Formats a zod error as one line naming every offending field by its dotted path,
 * e.g. `parameters.userTagName: is required (expected string, received undefined)`.
 */
export function describeZodError(error: z.ZodError, root?: string): string {
  return error.issues
    .map((issue) => {
      const path = [root, ...issue.path.map(String)].filter((p) => p !== undefined && p !== "").join(".");
      // zod reports a missing field as "expected string, received undefined"; say it plainly.
      const missing = issue.code === "invalid_type" && /received undefined$/.test(issue.message);
      return `${path || "(body)"}: ${missing ? `is required (${issue.message.replace(/^Invalid input: /, "")})` : issue.message}`;
    })
    .join("; ");
}
