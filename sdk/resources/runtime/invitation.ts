/**
 * @module resources/runtime/invitation
 * Invitation: the service has no get, list or update for invitations (docs/service-facts.md#34-invitations). A read
 * finds the invitation in `get_organization`'s `organizationData.invitations` (where the email
 * field is `receiverEmail`); every change is a new invitation. A revoked invitation counts as
 * gone.
 */
import { AccessType } from "../../wire/enums";
import { operations } from "../../wire/registry";
import { EMAIL, rule, schemaFailures } from "./check";
import type { Session } from "./client";
import { collections } from "./shared-reads";
import { createActivity } from "./earlier-activity";
import type { ListObjects } from "./listing";
import type { InputsOf, OutputsOf, ResourceDescription } from "./describe";
import { defineResource, parametersFrom } from "./define";
import { makeHandler } from "./framework";
import { sortedSet } from "./values";

interface LiveInvitation {
  invitationId: string;
  receiverUserName: string;
  receiverEmail: string;
  receiverUserTags: string[];
  accessType: string;
  status: string;
  senderUserId: string;
}

/** The status the service gives a new invitation (docs/service-facts.md#34-invitations). */
const INITIAL_INVITATION_STATUS = "INVITATION_STATUS_CREATED";

async function fetchInvitation(session: Session, id: string): Promise<LiveInvitation | undefined> {
  const { organizationData } = await collections.organization(session);
  const found = (organizationData.invitations ?? []).find((i) => i.invitationId === id);
  if (!found || found.status === "INVITATION_STATUS_REVOKED") return undefined;
  return {
    invitationId: found.invitationId,
    receiverUserName: found.receiverUserName,
    receiverEmail: found.receiverEmail,
    receiverUserTags: sortedSet(found.receiverUserTags ?? []),
    accessType: found.accessType,
    status: found.status,
    senderUserId: found.senderUserId,
  };
}

/** The create_invitations parameters of `inputs`: one invitation, its fields the inputs of the same names. */
function createParameters(inputs: InvitationInputs) {
  return { invitations: [parametersFrom(operations.createInvitations.parameters.shape.invitations.element, inputs)] };
}

/** Every pending or accepted invitation (a revoked one counts as gone). */
const listInvitations: ListObjects = async (session) =>
  ((await collections.organization(session)).organizationData.invitations ?? [])
    .filter((i) => i.status !== "INVITATION_STATUS_REVOKED")
    .map((i) => ({ id: i.invitationId, label: `invite-${i.receiverUserName}` }));

const describe = {
  description:
    "An invitation of a new user. Every input change replaces it (the service has no update). A revoked invitation counts as gone: refresh drops it and the next `up` invites again.",
  example: {
    name: "invite-carol",
    inputs: {
      receiverUserName: "carol",
      receiverUserEmail: "carol@example.com",
      receiverUserTags: ["${admins.userTagId}"],
      accessType: "ACCESS_TYPE_ALL",
      senderUserId: "${alice.userId}",
    },
  },
  guide: [
    "The service cannot change an invitation: **every change replaces it**. Invitations are read from",
    "the organization record (there is no other way to read them); a revoked or deleted invitation is",
    "dropped by refresh and sent again by the next `up`.",
  ].join("\n"),
  importIdMeaning: "the invitation's id, `invitationId`",
  inputs: {
    receiverUserName: { type: "string", description: "The invited user's name.", required: true, replaceOnChange: true },
    receiverUserEmail: { type: "string", description: "The invited user's email address.", required: true, replaceOnChange: true },
    receiverUserTags: {
      type: "array",
      items: { type: "string" },
      description: "Tag ids the new user receives (a set). Default: none.",
      replaceOnChange: true,
      references: { kind: "UserTag" },
      set: true,
      default: [],
    },
    accessType: {
      type: "string",
      enum: AccessType.options,
      description: "`ACCESS_TYPE_WEB`, `ACCESS_TYPE_API` or `ACCESS_TYPE_ALL`.",
      required: true,
      replaceOnChange: true,
    },
    senderUserId: { type: "string", description: "The inviting user.", required: true, replaceOnChange: true, references: { kind: "User" } },
  },
  outputs: {
    invitationId: { type: "string", description: "The invitation's id." },
    status: { type: "string", enum: ["INVITATION_STATUS_CREATED", "INVITATION_STATUS_ACCEPTED"], description: "`INVITATION_STATUS_CREATED` or `INVITATION_STATUS_ACCEPTED`." },
    receiverUserName: { type: "string", description: "The invited user's name." },
    receiverUserEmail: { type: "string", description: "The invited user's email address." },
    receiverUserTags: { type: "array", items: { type: "string" }, description: "Tag ids the new user receives, sorted." },
    accessType: { type: "string", enum: AccessType.options, description: "The access type." },
    senderUserId: { type: "string", description: "The inviting user." },
  },
} as const satisfies ResourceDescription;

/** Normalized inputs of an Invitation. */
export type InvitationInputs = InputsOf<typeof describe>;
/** Outputs of an Invitation. */
export type InvitationOutputs = OutputsOf<typeof describe>;

export const invitationSpec = defineResource<InvitationInputs, InvitationOutputs, LiveInvitation>({
  kind: "Invitation",
  list: listInvitations,
  describe,
  idProperty: "invitationId",
  validate(inputs) {
    const record = inputs as unknown as Record<string, unknown>;
    const { receiverUserName, receiverUserEmail, receiverUserTags, accessType, senderUserId } = inputs;
    return [
      ...schemaFailures(
        operations.createInvitations.parameters,
        { invitations: [{ receiverUserName, receiverUserEmail, receiverUserTags, accessType, senderUserId }] },
        record,
        (path) => String(path[0] === "invitations" ? (path[2] ?? "invitations") : (path[0] ?? "")),
      ),
      ...rule(record, "receiverUserEmail", (v) => typeof v !== "string" || v === "" || EMAIL.test(v), "is not an email address"),
    ];
  },
  label: (inputs) => JSON.stringify(inputs.receiverUserEmail ?? ""),
  fetch: (session, id) => fetchInvitation(session, id),
  // The record calls the e-mail `receiverEmail`. A revoked invitation is gone (fetch), so the
  // status is one the outputs list.
  flatten: (live) => ({ receiverUserEmail: live.receiverEmail }),
  createActivity: createActivity({
    operation: "createInvitations",
    parameters: createParameters,
    createdId: (result) => (result.invitationIds.length === 1 ? result.invitationIds[0] : undefined),
    // A batched create made this invitation as one item of several (batch.ts).
    items: { key: "invitations", createdIdAt: (result, index) => result.invitationIds[index] },
  }),
  async create(session, inputs) {
    const parameters = createParameters(inputs);
    const result = await session.client.createInvitations(parameters);
    const id = result.invitationIds[0];
    if (id === undefined) throw new Error("create_invitations returned no invitationIds");
    return { id, live: sentInvitation(id, parameters.invitations[0]!) };
  },
  batch: {
    // At most the organization's 100 invitations (docs "Resource limits"). Deletes have no
    // plural form: one delete_invitation each.
    create: {
      max: 100,
      async submit(session, items) {
        const invitations = items.flatMap((inputs) => createParameters(inputs).invitations);
        const { invitationIds } = await session.client.createInvitations({ invitations });
        return invitationIds.map((id, i) => ({ id, live: sentInvitation(id, invitations[i]!) }));
      },
    },
  },
  async remove(session, id) {
    await session.client.deleteInvitation({ invitationId: id });
  },
});

/**
 * The invitation a completed create made from `sent`. The service has no get for an invitation
 * (they are listed in the whole organization record): the completed activity made exactly this
 * one, in its initial status.
 */
function sentInvitation(id: string, sent: ReturnType<typeof createParameters>["invitations"][number]): LiveInvitation {
  return {
    invitationId: id,
    receiverUserName: sent.receiverUserName,
    receiverEmail: sent.receiverUserEmail,
    receiverUserTags: sortedSet(sent.receiverUserTags),
    accessType: sent.accessType,
    status: INITIAL_INVITATION_STATUS,
    senderUserId: sent.senderUserId,
  };
}

/** The runtime handler the Invitation provider code in state delegates to. */
export const invitationHandler = makeHandler(invitationSpec);
