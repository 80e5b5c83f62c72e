/**
 * @module wire/registry
 * Every operation the client, the emulator and the resources know, keyed by its camelCase
 * method name (`createUserTag`); `byWireName` finds one by its path name (`create_user_tag`).
 */
import { z } from "zod";
import type { ActivityDef, AuthProxyDef, OperationDef, QueryDef } from "./define";
import { activityOperations } from "./operations/activities";
import { apiKeyOperations } from "./operations/api-keys";
import { authOperations } from "./operations/auth";
import { earnOperations } from "./operations/earn";
import { historyOperations } from "./operations/history";
import { invitationOperations } from "./operations/invitations";
import { ipAllowlistOperations } from "./operations/ip-allowlists";
import { organizationOperations } from "./operations/organization";
import { policyOperations } from "./operations/policies";
import { privateKeyTagOperations } from "./operations/private-key-tags";
import { privateKeyOperations } from "./operations/private-keys";
import { signingOperations } from "./operations/signing";
import { sessionProfileOperations } from "./operations/session-profiles";
import { smartContractInterfaceOperations } from "./operations/smart-contract-interfaces";
import { userTagOperations } from "./operations/user-tags";
import { userOperations } from "./operations/users";
import { walletOperations } from "./operations/wallets";
import { webhookOperations } from "./operations/webhooks";

export const operations = {
  ...userTagOperations,
  ...userOperations,
  ...organizationOperations,
  ...activityOperations,
  ...policyOperations,
  ...apiKeyOperations,
  ...invitationOperations,
  ...smartContractInterfaceOperations,
  ...earnOperations,
  ...walletOperations,
  ...privateKeyOperations,
  ...privateKeyTagOperations,
  ...historyOperations,
  ...webhookOperations,
  ...sessionProfileOperations,
  ...authOperations,
  ...ipAllowlistOperations,
  ...signingOperations,
} as const;

export type Operations = typeof operations;
export type OperationName = keyof Operations;
export type QueryName = { [K in OperationName]: Operations[K] extends QueryDef ? K : never }[OperationName];
export type ActivityName = { [K in OperationName]: Operations[K] extends ActivityDef ? K : never }[OperationName];
export type AuthProxyName = { [K in OperationName]: Operations[K] extends AuthProxyDef ? K : never }[OperationName];

/** The request body of a query or auth proxy operation, or the `parameters` of an activity. */
export type ParamsOf<K extends OperationName> = Operations[K] extends ActivityDef<string, string, infer P>
  ? z.input<P>
  : Operations[K] extends QueryDef<string, infer Req> | AuthProxyDef<string, infer Req>
    ? z.input<Req>
    : never;
/** The response of a query or auth proxy operation, or the result object of an activity. */
export type ResultOf<K extends OperationName> = Operations[K] extends ActivityDef<string, string, z.ZodType, infer R>
  ? z.output<R>
  : Operations[K] extends QueryDef<string, z.ZodType, infer Res> | AuthProxyDef<string, z.ZodType, infer Res>
    ? z.output<Res>
    : never;

const byPath = new Map<string, OperationDef>(
  Object.values(operations as Record<string, OperationDef>).map((def) => [def.path, def]),
);

/** Finds the definition served at a path (`/public/v1/submit/create_user_tag`), if any. */
export function operationAtPath(path: string): OperationDef | undefined {
  return byPath.get(path);
}
