/**
 * @module resources/session-profile
 * `SessionProfile`: immutable and undeletable on the service. Every change replaces it; destroy
 * forgets it with a warning.
 */
import * as pulumi from "@pulumi/pulumi";
import { warnAboutPolicyExpressions } from "./policy-warnings";
import { dynamicResourceOptions, KeyformProvider } from "./provider";

/** Inputs of a {@link SessionProfile}. */
export interface SessionProfileInputs {
  /** The profile's name (unique in the organization); defaults to the resource name. A changed profile needs a new name. */
  sessionProfileName?: pulumi.Input<string>;
  /** The scope sessions of this profile are limited to. */
  scope: pulumi.Input<string>;
  /** Session lifetime in seconds (string or number). */
  expirationSeconds?: pulumi.Input<string | number>;
  notes?: pulumi.Input<string>;
  /** The organization; defaults to the `keyform:organizationId` setting. */
  organizationId?: pulumi.Input<string>;
  /** Adopt the existing profile with this id instead of creating one. */
  importId?: pulumi.Input<string>;
}
/** Alias of {@link SessionProfileInputs}, in the usual Pulumi naming. */
export type SessionProfileArgs = SessionProfileInputs;

/** The provider of {@link SessionProfile}; delegates to keyform's provider runtime. */
export class SessionProfileProvider extends KeyformProvider {
  constructor() {
    super("SessionProfile");
  }
}

const provider = new SessionProfileProvider();

/**
 * A session profile. Replacement: every property. Destroy only removes it from the stack (the
 * service cannot delete profiles), with a warning.
 *
 * @example
 * new keyform.SessionProfile("wallet-only-v1", { scope: "activity.resource == 'WALLET'", expirationSeconds: 900 });
 */
export class SessionProfile extends pulumi.dynamic.Resource {
  /** The profile's id. */
  declare public readonly sessionProfileId: pulumi.Output<string>;
  declare public readonly sessionProfileName: pulumi.Output<string>;
  declare public readonly scope: pulumi.Output<string>;
  declare public readonly expirationSeconds: pulumi.Output<string | undefined>;
  declare public readonly notes: pulumi.Output<string | undefined>;
  declare public readonly organizationId: pulumi.Output<string>;

  constructor(name: string, args: SessionProfileInputs, opts?: pulumi.CustomResourceOptions) {
    super(
      provider,
      name,
      { ...args, sessionProfileName: args.sessionProfileName ?? name, sessionProfileId: undefined, expirationSeconds: args.expirationSeconds, notes: args.notes, organizationId: args.organizationId },
      dynamicResourceOptions("SessionProfile", name, opts),
      "keyform",
      "SessionProfile",
    );
    warnAboutPolicyExpressions(`SessionProfile ${JSON.stringify(name)}`, { scope: args.scope });
  }
}
