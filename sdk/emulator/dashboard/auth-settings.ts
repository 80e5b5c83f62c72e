/**
 * @module emulator/dashboard/auth-settings
 * How users of an organization get in, for the dashboard: its IP allowlists (the organization's
 * and each API key's, with the key's name and user), its session profiles, and the OTP outbox
 * (the codes otp_init "sent": the emulator delivers no e-mail or SMS; a developer reads the code
 * here to log in locally). The outbox is the data directory's, not one organization's: a code
 * is sent to a contact, shown with the users that contact belongs to.
 */
import { sessionProfileView } from "../handlers/session-profiles";
import type { Store } from "../store";
import { authStoreOf } from "../store/auth-store";
import { ipAllowlistStoreOf, type IpAllowlistRecord } from "../store/ip-allowlists";
import { sessionProfileStoreOf } from "../store/session-profiles";

/** Codes shown. */
const SHOWN_OTPS = 100;

function allowlistView(record: IpAllowlistRecord) {
  return {
    // A list without the flag (configured, or per key) counts as enabled.
    enabled: record.enabled !== false,
    configured: record.enabled === null,
    onEvaluationError: record.onEvaluationError,
    rules: record.rules.map((r) => ({ cidr: r.cidr, label: r.label ?? "", createdMs: r.createdMs ?? null })),
  };
}

/** IP allowlists and session profiles of an organization; undefined for an unknown one. */
export function authSettingsOf(store: Store, organizationId: string) {
  if (!store.organizations.get(organizationId)) return undefined;
  return store.db.transaction(() => {
    const lists = ipAllowlistStoreOf(store.db);
    const organizationList = lists.record(organizationId, "");
    return {
      organizationAllowlist: organizationList ? allowlistView(organizationList) : null,
      keyAllowlists: lists.keysWithAllowlists(organizationId).map((publicKey) => {
        const key = store.apiKeys.findInOrg(organizationId, publicKey);
        const user = key ? store.users.get(organizationId, key.user_id) : undefined;
        return { publicKey, apiKeyName: key?.name ?? "(deleted key)", userName: user?.name ?? "", ...allowlistView(lists.record(organizationId, publicKey)!) };
      }),
      sessionProfiles: sessionProfileStoreOf(store.db).list(organizationId).map(sessionProfileView),
    };
  })();
}

/** The newest codes of the OTP outbox, each with the users whose e-mail or phone number is its contact. */
export function otpMessages(store: Store, nowMs: number) {
  const owners = store.db.prepare<[string, string], { name: string; org_name: string }>(
    "SELECT u.name, o.name AS org_name FROM users u JOIN organizations o ON o.id = u.org_id WHERE lower(u.email) = lower(?) OR u.phone_number = ? ORDER BY u.created_ms",
  );
  return store.db.transaction(() =>
    authStoreOf(store.db)
      .outbox(undefined, SHOWN_OTPS)
      .map((row) => ({
        otpId: row.id,
        otpType: row.otp_type,
        contact: row.contact,
        code: row.code,
        sentMs: row.created_ms,
        expiresMs: row.expires_ms,
        state: row.used_ms !== null ? "used" : row.expires_ms <= nowMs ? "expired" : "valid",
        users: owners.all(row.contact, row.contact).map((u) => `${u.name} (${u.org_name})`),
      })),
  )();
}
