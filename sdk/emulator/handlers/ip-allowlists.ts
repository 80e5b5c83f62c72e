/**
 * @module emulator/handlers/ip-allowlists
 * IP allowlists: set_ip_allowlist, get_ip_allowlist, remove_ip_allowlist (spec 4.4), the
 * enforcement of allowlists on every main-API request, and the emulator configuration that
 * sets them.
 *
 * Which allowlist applies to a request: the allowlist of the stamping API key if it has one
 * and its organization's organization-level list is in force (per-key lists apply only when
 * the organization-level list is enabled), else the organization-level allowlist of the
 * organization the request targets when it is enabled, else none (every address accepted).
 * A refused address answers 403 code 7 naming the address.
 */
import { invalidArgument, notFound, permissionDenied } from "../errors";
import type { Db } from "../store";
import { isIP } from "node:net";
import { IP_ALLOWLIST_MIGRATIONS, ipAllowed, ipAllowlistStoreOf, ipRuleProblem, normalizeIp, type StoredIpRule } from "../store/ip-allowlists";
import type { Caller, EmulatorModule, QueryContext } from "./types";

/** A stored rule without the absent fields. */
function compactRule(rule: StoredIpRule): StoredIpRule {
  return rule.label === undefined ? { cidr: rule.cidr, createdMs: rule.createdMs } : rule;
}

/** One configured allowlist (declared with the public types). */
export type { IpAllowlistConfig } from "keyform/emulator-contract";
import type { IpAllowlistConfig } from "keyform/emulator-contract";

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
  const inForce = (orgId: string) => {
    const org = store.record(orgId, "");
    return org !== undefined && org.enabled !== false;
  };
  const keyRules = inForce(caller.organizationId) ? store.get(caller.organizationId, caller.publicKey) : undefined;
  const rules = keyRules ?? (inForce(organizationId) ? store.get(organizationId, "") : undefined);
  if (rules === undefined) return;
  const ip = normalizeIp(remoteAddress);
  if (!ipAllowed(rules, ip)) {
    const which = keyRules ? `the IP allowlist of API key ${caller.apiKeyId}` : `the IP allowlist of organization ${organizationId}`;
    throw permissionDenied(`IP address ${ip} is not allowed by ${which}`);
  }
}

/** The service's limit on rules per address family. */
const MAX_RULES_PER_FAMILY = 10;

/** The API key a `publicKey` field names, checked to exist in the organization. */
function requireKeyOf(ctx: QueryContext, publicKey: string): void {
  if (!/^[0-9a-fA-F]+$/u.test(publicKey)) throw invalidArgument("publicKey: expected an API key public key, hex");
  if (!ctx.store.apiKeys.findInOrg(ctx.organizationId, publicKey)) {
    throw notFound(`publicKey: no API key with public key ${publicKey} in organization ${ctx.organizationId}`);
  }
}

/** Checks the rules of a set_ip_allowlist: valid blocks, no repeats, at most 10 per family. */
function checkRules(rules: readonly { cidr: string }[]): void {
  const seen = new Set<string>();
  const perFamily = { 4: 0, 6: 0 };
  rules.forEach((rule, i) => {
    const problem = ipRuleProblem(rule.cidr);
    if (problem) throw invalidArgument(`rules[${i}].cidr: ${problem}`);
    if (seen.has(rule.cidr)) throw invalidArgument(`rules[${i}].cidr: ${rule.cidr} is listed more than once`);
    seen.add(rule.cidr);
    const family = isIP(rule.cidr.split("/")[0] ?? "") as 4 | 6;
    if (++perFamily[family] > MAX_RULES_PER_FAMILY) {
      throw invalidArgument(`rules[${i}].cidr: at most ${MAX_RULES_PER_FAMILY} IPv${family} rules are allowed per allowlist`);
    }
  });
}

export const ipAllowlistsModule: EmulatorModule = {
  name: "ip-allowlists",
  migrations: IP_ALLOWLIST_MIGRATIONS,
  setup: () => ({
    setIpAllowlist(ctx, p) {
      const store = ipAllowlistStoreOf(ctx.db);
      const key = p.publicKey ?? "";
      if (p.publicKey !== undefined) {
        requireKeyOf(ctx, p.publicKey);
        if (p.enabled !== undefined) throw invalidArgument("enabled: only the organization-level allowlist has an enabled flag; omit it with publicKey");
      }
      const existing = store.record(ctx.organizationId, key);
      if (p.rules !== undefined) checkRules(p.rules);
      const createdMs = new Map((existing?.rules ?? []).map((r) => [r.cidr, r.createdMs]));
      // The rules are replaced whole; a rule kept from before keeps its creation time.
      const rules = p.rules?.map((r) => compactRule({ cidr: r.cidr, label: r.label, createdMs: createdMs.get(r.cidr) ?? ctx.nowMs })) ?? existing?.rules ?? [];
      store.put(
        ctx.organizationId,
        key,
        {
          rules,
          enabled: p.publicKey !== undefined ? null : (p.enabled ?? existing?.enabled ?? true),
          onEvaluationError: p.onEvaluationError ?? existing?.onEvaluationError ?? "DENY",
        },
        ctx.nowMs,
      );
      return {};
    },

    getIpAllowlist(ctx, req) {
      const store = ipAllowlistStoreOf(ctx.db);
      if (req.publicKey !== undefined) requireKeyOf(ctx, req.publicKey);
      const record = store.record(ctx.organizationId, req.publicKey ?? "");
      if (!record) {
        throw notFound(
          req.publicKey === undefined
            ? `organizationId: organization ${ctx.organizationId} has no organization-level IP allowlist`
            : `publicKey: the API key ${req.publicKey} has no IP allowlist of its own`,
        );
      }
      return {
        allowlist: {
          organizationId: ctx.organizationId,
          rules: record.rules.map((r) => ({ cidr: r.cidr, ...(r.label !== undefined ? { label: r.label } : {}), ...(r.createdMs !== undefined ? { createdAt: String(r.createdMs) } : {}) })),
          ...(req.publicKey !== undefined ? { publicKey: req.publicKey } : { enabled: record.enabled !== false }),
          onEvaluationError: record.onEvaluationError,
        },
      };
    },

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
