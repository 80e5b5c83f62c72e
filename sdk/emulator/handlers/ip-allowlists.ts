/**
 * @module emulator/handlers/ip-allowlists
 * IP allowlists: remove_ip_allowlist (spec 4.4), the enforcement of allowlists on every
 * main-API request, and the emulator configuration that sets them.
 *
 * Which allowlist applies to a request: the allowlist of the stamping API key if it has one,
 * else the organization-level allowlist of the organization the request targets, else none
 * (every address accepted). A refused address answers 403 code 7 naming the address.
 */
import { invalidArgument, notFound, permissionDenied } from "../errors";
import type { Db } from "../store";
import { IP_ALLOWLIST_MIGRATIONS, ipAllowed, ipAllowlistStoreOf, ipRuleProblem, normalizeIp } from "../store/ip-allowlists";
import type { Caller, EmulatorModule } from "./types";

/** One configured allowlist (`startEmulator({ ipAllowlists })`, `keyform serve --ip-allowlist`). */
export interface IpAllowlistConfig {
  /** Organization the allowlist belongs to; default the root (bootstrap) organization. */
  organizationId?: string;
  /** API key public key (hex) the allowlist is for; absent = the organization-level allowlist. */
  publicKey?: string;
  /** Exact IP addresses or CIDR blocks, IPv4 or IPv6, e.g. `["127.0.0.1", "10.0.0.0/8"]`. */
  allow: readonly string[];
}

/**
 * Replaces every stored allowlist with `configs` (the configuration is declarative: what is
 * not listed is removed, so `[]` clears them all).
 * @throws Error naming the entry for an invalid rule or an unknown organization
 */
export function applyIpAllowlistConfig(db: Db, rootOrganizationId: string, configs: readonly IpAllowlistConfig[], nowMs = Date.now()): void {
  const store = ipAllowlistStoreOf(db);
  db.transaction(() => {
    store.clear();
    configs.forEach((config, i) => {
      const orgId = config.organizationId ?? rootOrganizationId;
      if (!db.prepare("SELECT 1 FROM organizations WHERE id = ?").get(orgId)) {
        throw new Error(`ipAllowlists[${i}].organizationId: no organization with id ${orgId}`);
      }
      config.allow.forEach((rule, j) => {
        const problem = ipRuleProblem(rule);
        if (problem) throw new Error(`ipAllowlists[${i}].allow[${j}]: ${problem}`);
      });
      store.set(orgId, config.publicKey ?? "", config.allow, nowMs);
    });
  })();
}

/**
 * Refuses a request from an address outside the allowlist that applies (see the module
 * documentation). Call it after authentication.
 * @param remoteAddress the TCP peer address; undefined (no socket) skips the check
 * @throws EmulatorError 403 code 7 naming the address
 */
export function enforceIpAllowlist(db: Db, caller: Caller, organizationId: string, remoteAddress: string | undefined): void {
  if (remoteAddress === undefined) return;
  const store = ipAllowlistStoreOf(db);
  const keyRules = store.get(caller.organizationId, caller.publicKey);
  const rules = keyRules ?? store.get(organizationId, "");
  if (rules === undefined) return;
  const ip = normalizeIp(remoteAddress);
  if (!ipAllowed(rules, ip)) {
    const which = keyRules ? `the IP allowlist of API key ${caller.apiKeyId}` : `the IP allowlist of organization ${organizationId}`;
    throw permissionDenied(`IP address ${ip} is not allowed by ${which}`);
  }
}

export const ipAllowlistsModule: EmulatorModule = {
  name: "ip-allowlists",
  migrations: IP_ALLOWLIST_MIGRATIONS,
  setup: () => ({
    removeIpAllowlist(ctx, p) {
      const store = ipAllowlistStoreOf(ctx.db);
      if (p.publicKey === undefined) {
        if (!store.delete(ctx.organizationId, "")) {
          throw notFound(`publicKey: organization ${ctx.organizationId} has no organization-level IP allowlist`);
        }
        return {};
      }
      if (!/^[0-9a-fA-F]+$/u.test(p.publicKey)) throw invalidArgument("publicKey: expected an API key public key, hex");
      const key = ctx.store.apiKeys.findInOrg(ctx.organizationId, p.publicKey);
      if (!key) throw notFound(`publicKey: no API key with public key ${p.publicKey} in organization ${ctx.organizationId}`);
      if (!store.delete(ctx.organizationId, p.publicKey)) {
        throw notFound(`publicKey: API key ${key.id} has no IP allowlist of its own`);
      }
      return {};
    },
  }),
};
