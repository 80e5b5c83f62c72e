/**
 * @module resources/runtime
 * What the provider code stored with each resource loads at call time
 * (`require("keyform/provider-runtime")`). Keeping the logic here, and not in the code Pulumi
 * stores in state, keeps state small and free of secrets, and lets a keyform upgrade fix refresh
 * and delete of resources created by an older version.
 *
 * `handlerFor` and `configure` are what every version of that stored code calls: keep their
 * names and signatures stable across releases.
 */
import { apiKeyHandler } from "./api-key";
import { earnWrapperStateHandler } from "./earn-wrapper-state";
import { configure, type AnyResourceSpec, type Handler } from "./framework";
import { invitationHandler } from "./invitation";
import { ipAllowlistHandler } from "./ip-allowlist";
import { policyHandler } from "./policy";
import { privateKeyHandler } from "./private-key";
import { privateKeyTagHandler } from "./private-key-tag";
import { rootQuorumHandler } from "./root-quorum";
import { sessionProfileHandler } from "./session-profile";
import { smartContractInterfaceHandler } from "./smart-contract-interface";
import { userHandler } from "./user";
import { userTagHandler } from "./user-tag";
import { walletHandler } from "./wallet";
import { webhookEndpointHandler } from "./webhook-endpoint";

/** Version of the delegation protocol between the provider code in state and this module. */
export const RUNTIME_PROTOCOL = 1;

/** The handler of each resource class, by class name. */
export const handlers: Readonly<Record<string, Handler>> = {
  UserTag: userTagHandler,
  Policy: policyHandler,
  ApiKey: apiKeyHandler,
  Invitation: invitationHandler,
  SmartContractInterface: smartContractInterfaceHandler,
  EarnWrapperState: earnWrapperStateHandler,
  User: userHandler,
  RootQuorum: rootQuorumHandler,
  WebhookEndpoint: webhookEndpointHandler,
  IpAllowlist: ipAllowlistHandler,
  Wallet: walletHandler,
  PrivateKey: privateKeyHandler,
  PrivateKeyTag: privateKeyTagHandler,
  SessionProfile: sessionProfileHandler,
};

/**
 * The handler of resource class `kind`.
 * @throws {Error} for a class this version of keyform does not know.
 */
export function handlerFor(kind: string): Handler {
  const handler = handlers[kind];
  if (!handler) throw new Error(`keyform: this version has no resource type "${kind}"; upgrade the keyform package`);
  return handler;
}

export { configure };
export { currentSettings } from "./framework";

/**
 * The spec of every registered resource class, in registration order: what the provider
 * plugin's schema and the conformance checks are derived from, so a resource added to
 * {@link handlers} appears there with nothing else to edit.
 */
export function registeredSpecs(): AnyResourceSpec[] {
  return Object.values(handlers).map((handler) => handler.spec);
}
