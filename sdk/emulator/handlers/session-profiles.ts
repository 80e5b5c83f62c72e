/**
 * @module emulator/handlers/session-profiles
 * Session profiles (spec 2.6, 4.3 get_session_profile; docs/service-facts.md#311-session-profiles):
 * create_session_profile, get_session_profile, get_session_profiles. Names are unique within
 * the organization (409); there is no update or delete.
 */
import type { SessionProfile } from "keyform/wire/operations/session-profiles";
import { alreadyExists, notFound } from "../errors";
import { timestampOf } from "../store";
import { SESSION_PROFILE_MIGRATIONS, sessionProfileStoreOf, type SessionProfileRow } from "../store/session-profiles";
import { newId } from "./common";
import type { EmulatorModule } from "./types";

/** A session profile as the main API shows it (also the local dashboard's view). */
export function sessionProfileView(row: SessionProfileRow): SessionProfile {
  const view: SessionProfile = {
    sessionProfileId: row.id,
    sessionProfileName: row.name,
    scope: row.scope,
    createdAt: timestampOf(row.created_ms),
    updatedAt: timestampOf(row.updated_ms),
  };
  if (row.expiration_seconds !== null) view.expirationSeconds = row.expiration_seconds;
  if (row.notes !== null) view.notes = row.notes;
  return view;
}

export const sessionProfilesModule: EmulatorModule = {
  name: "session-profiles",
  migrations: SESSION_PROFILE_MIGRATIONS,
  setup: () => ({
    createSessionProfile(ctx, p) {
      const store = sessionProfileStoreOf(ctx.db);
      if (store.getByName(ctx.organizationId, p.sessionProfileName)) {
        throw alreadyExists(`sessionProfileName: a session profile named ${JSON.stringify(p.sessionProfileName)} already exists in organization ${ctx.organizationId}`);
      }
      const id = newId();
      store.insert({
        id,
        org_id: ctx.organizationId,
        name: p.sessionProfileName,
        scope: p.scope,
        expiration_seconds: p.expirationSeconds ?? null,
        notes: p.notes ?? null,
        created_ms: ctx.nowMs,
        updated_ms: ctx.nowMs,
      });
      return { sessionProfileId: id };
    },

    getSessionProfile(ctx, req) {
      const row = sessionProfileStoreOf(ctx.db).get(ctx.organizationId, req.sessionProfileId);
      if (!row) throw notFound(`sessionProfileId: no session profile with id ${req.sessionProfileId} in organization ${ctx.organizationId}`);
      return { sessionProfile: sessionProfileView(row) };
    },

    getSessionProfiles(ctx) {
      return { sessionProfiles: sessionProfileStoreOf(ctx.db).list(ctx.organizationId).map(sessionProfileView) };
    },
  }),
};
