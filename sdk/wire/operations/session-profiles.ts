/**
 * @module wire/operations/session-profiles
 * Session profiles (spec 2.6, 4.3 get_session_profile; docs/service-facts.md#311-session-profiles). There is no update
 * or delete activity.
 */
import { z } from "zod";
import { defineActivity, defineQuery } from "../define";
import { Id, opt, Timestamp, Uint64String } from "../shared";

/** Spec 2.6: a session profile. */
export const SessionProfile = z.object({
  sessionProfileId: z.string(),
  sessionProfileName: z.string(),
  /** The scope sessions created from this profile are limited to. */
  scope: z.string(),
  /** How long such sessions last, in seconds. */
  expirationSeconds: opt(z.string()),
  notes: opt(z.string()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type SessionProfile = z.infer<typeof SessionProfile>;

export const getSessionProfile = defineQuery("get_session_profile", {
  request: z.object({ organizationId: Id, sessionProfileId: Id }),
  response: z.object({ sessionProfile: SessionProfile }),
});

export const getSessionProfiles = defineQuery("get_session_profiles", {
  request: z.object({ organizationId: Id }),
  response: z.object({ sessionProfiles: z.array(SessionProfile) }),
});

export const createSessionProfile = defineActivity("create_session_profile", {
  type: "ACTIVITY_TYPE_CREATE_SESSION_PROFILE",
  intentKey: "createSessionProfileIntent",
  resultKey: "createSessionProfileResult",
  parameters: z.object({
    sessionProfileName: Id,
    scope: Id,
    expirationSeconds: opt(Uint64String),
    notes: opt(z.string()),
  }),
  result: z.object({ sessionProfileId: z.string() }),
});

export const sessionProfileOperations = { getSessionProfile, getSessionProfiles, createSessionProfile };
