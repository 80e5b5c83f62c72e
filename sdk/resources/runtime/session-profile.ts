/**
 * @module resources/runtime/session-profile
 * SessionProfile (docs/service-facts.md#311-session-profiles): immutable and undeletable on the service. Every change
 * creates a new profile (a replacement), and destroy only forgets the profile, with a warning
 * that it stays in the organization. Profile names are unique, so a changed profile needs a
 * new name.
 */
import type { SessionProfile } from "../../wire/operations/session-profiles";
import { operations } from "../../wire/registry";
import { schemaFailures } from "./check";
import type { Session } from "./client";
import type { InputsOf, OutputsOf, ResourceDescription } from "./describe";
import type { ListObjects } from "./listing";
import { createActivity } from "./earlier-activity";
import { warnEngine } from "./engine-log";
import { defineResource, parametersFrom } from "./define";
import { makeHandler } from "./framework";
import { unlessNotFound } from "./lookups";
import { expressionFailures } from "./policy-expressions";
import { collections } from "./shared-reads";

const fetchProfile = (session: Session, id: string): Promise<SessionProfile | undefined> =>
  unlessNotFound(async () => (await session.client.getSessionProfile({ sessionProfileId: id })).sessionProfile);

/** The create_session_profile parameters of `inputs`: its inputs of the same names. */
const createParameters = (inputs: SessionProfileInputs) => parametersFrom(operations.createSessionProfile.parameters, inputs);

const sameOptional = (a: unknown, b: unknown) => (a ?? "") === (b ?? "");

const describe = {
  description:
    "A session profile (`create_session_profile`): the scope and lifetime of sessions created from it. The service can neither " +
    "change nor delete a profile, so every change replaces it (give the new one a new name: names are unique) and destroy only " +
    "removes it from the stack, with a warning.",
  example: { name: "wallet-only-v1", inputs: { sessionProfileName: "wallet-only-v1", scope: "activity.resource == 'WALLET'", expirationSeconds: "900" } },
  guide: [
    "`scope` is a policy-language expression, checked at preview. The service can neither change nor",
    "delete a profile: **every change replaces it** (give the new profile a new name: names are",
    "unique), and destroy (or a replacement) **only removes it from the stack**, with a warning that",
    "it stays in the organization.",
  ].join("\n"),
  importIdMeaning: "the profile's id, `sessionProfileId`",
  expressionInputs: ["scope"],
  inputs: {
    sessionProfileName: { type: "string", description: "The profile's name, unique in the organization.", required: true, replaceOnChange: true, defaultsToResourceName: true },
    scope: { type: "string", description: "The scope sessions of this profile are limited to: a policy-language expression (checked at preview).", required: true, replaceOnChange: true },
    expirationSeconds: { type: "string", acceptsNumber: true, description: "How long such sessions last, in seconds (a decimal string, or a number).", replaceOnChange: true },
    notes: { type: "string", description: "Free text.", replaceOnChange: true },
  },
  outputs: {
    sessionProfileId: { type: "string", description: "The profile's id." },
    sessionProfileName: { type: "string", description: "The name as the service holds it." },
    scope: { type: "string", description: "The scope as the service holds it." },
    expirationSeconds: { type: "string", description: "The session lifetime in seconds, when set.", optional: true },
    notes: { type: "string", description: "The notes, when set.", optional: true },
  },
} as const satisfies ResourceDescription;

/** Normalized inputs of a SessionProfile. */
export type SessionProfileInputs = InputsOf<typeof describe>;
/** Outputs of a SessionProfile. */
export type SessionProfileOutputs = OutputsOf<typeof describe>;

/** Every session profile of the organization. */
const listSessionProfiles: ListObjects = async (session) =>
  (await collections.sessionProfiles(session)).sessionProfiles.map((p) => ({ id: p.sessionProfileId, label: p.sessionProfileName }));

export const sessionProfileSpec = defineResource<SessionProfileInputs, SessionProfileOutputs, SessionProfile>({
  kind: "SessionProfile",
  describe,
  list: listSessionProfiles,
  idProperty: "sessionProfileId",
  // Unset and empty are the same on the service.
  equal: { expirationSeconds: sameOptional, notes: sameOptional },
  validate: (inputs) => [
    ...schemaFailures(operations.createSessionProfile.parameters, createParameters(inputs), inputs as unknown as Record<string, unknown>),
    // The scope is a policy-language expression: a broken one fails at preview.
    ...expressionFailures(inputs as unknown as Record<string, unknown>, { scope: "scope" }),
  ],
  label: (inputs) => JSON.stringify(inputs.sessionProfileName ?? ""),
  fetch: (session, id) => fetchProfile(session, id),
  // The service's "" means no notes.
  flatten: (live) => ({ notes: live.notes === "" ? undefined : live.notes }),
  createActivity: createActivity({
    operation: "createSessionProfile",
    parameters: createParameters,
    createdId: (result) => result.sessionProfileId,
  }),
  async findExisting(session, inputs) {
    // Session profile names are unique in an organization.
    const { sessionProfiles } = await collections.sessionProfiles(session);
    const live = sessionProfiles.find((p) => p.sessionProfileName === inputs.sessionProfileName);
    return live === undefined ? undefined : { id: live.sessionProfileId, live };
  },
  async create(session, inputs) {
    return { id: (await session.client.createSessionProfile(createParameters(inputs))).sessionProfileId };
  },
  async remove(session, id, props) {
    await warnEngine(
      `SessionProfile ${JSON.stringify(props.sessionProfileName ?? id)} (${id}): the service cannot delete session profiles; ` +
        `it stays in organization ${session.organizationId} and is only removed from the stack.`,
    );
  },
});

/** The runtime handler the SessionProfile provider code in state delegates to. */
export const sessionProfileHandler = makeHandler(sessionProfileSpec);
