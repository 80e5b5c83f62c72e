/**
 * @module wire/define
 * The shape of an operation definition. Each operation of the interface is described once,
 * here in the wire layer; the client derives its methods from these definitions, the emulator
 * validates requests with them, and the resources reuse them in `check`.
 */
import { z } from "zod";
import { activityEnvelope } from "./activity";

/** A read-only operation: `POST /public/v1/query/<name>`, body = request. */
export interface QueryDef<N extends string = string, Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  readonly kind: "query";
  readonly name: N;
  readonly path: `/public/v1/query/${N}`;
  readonly request: Req;
  readonly response: Res;
  /** For paginated queries: the response key holding the page's items. */
  readonly pageItems?: string;
}

/** A state-changing operation: `POST /public/v1/submit/<name>`, body = envelope. */
export interface ActivityDef<
  N extends string = string,
  T extends string = string,
  P extends z.ZodType = z.ZodType,
  R extends z.ZodType = z.ZodType,
> {
  readonly kind: "activity";
  readonly name: N;
  readonly path: `/public/v1/submit/${N}`;
  /** The versioned `ACTIVITY_TYPE_*` value the envelope carries. */
  readonly type: T;
  /** Key of `activity.intent` holding the echoed parameters, e.g. `createPolicyIntentV3`. */
  readonly intentKey: string;
  /** Key of `activity.result` holding the result, e.g. `createPolicyResult`. */
  readonly resultKey: string;
  readonly parameters: P;
  readonly result: R;
  /** The whole submit body: `{type, timestampMs, organizationId, parameters, generateAppProofs?}`. */
  readonly request: ReturnType<typeof activityEnvelope<T, P>>;
}

/** An authentication proxy operation: `POST {auth_url}/v1/<name>`, no stamp. */
export interface AuthProxyDef<N extends string = string, Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  readonly kind: "authProxy";
  readonly name: N;
  readonly path: `/v1/${N}`;
  readonly request: Req;
  readonly response: Res;
}

export type OperationDef = QueryDef | ActivityDef | AuthProxyDef;

/** Defines a query. */
export function defineQuery<N extends string, Req extends z.ZodType, Res extends z.ZodType>(
  name: N,
  spec: { request: Req; response: Res; pageItems?: string },
): QueryDef<N, Req, Res> {
  return { kind: "query", name, path: `/public/v1/query/${name}`, ...spec };
}

/** Defines an activity; its request schema is the envelope around `parameters`. */
export function defineActivity<N extends string, T extends string, P extends z.ZodType, R extends z.ZodType>(
  name: N,
  spec: { type: T; intentKey: string; resultKey: string; parameters: P; result: R },
): ActivityDef<N, T, P, R> {
  return {
    kind: "activity",
    name,
    path: `/public/v1/submit/${name}`,
    ...spec,
    request: activityEnvelope(spec.type, spec.parameters),
  };
}

/** Defines an authentication proxy operation. */
export function defineAuthProxy<N extends string, Req extends z.ZodType, Res extends z.ZodType>(
  name: N,
  spec: { request: Req; response: Res },
): AuthProxyDef<N, Req, Res> {
  return { kind: "authProxy", name, path: `/v1/${name}`, ...spec };
}
