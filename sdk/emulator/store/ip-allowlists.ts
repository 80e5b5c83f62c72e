/**
 * @module emulator/store/ip-allowlists
 * IP allowlists (spec 4.4 remove_ip_allowlist, set_ip_allowlist, get_ip_allowlist): at most one
 * per organization (`public_key = ''`) and one per API key of it. Rules are exact IPv4/IPv6
 * addresses or CIDR blocks, each with an optional label. `enabled` is null for the lists of
 * the emulator's configuration and for per-key lists (their presence is their enablement).
 */
import { BlockList, isIP } from "node:net";
import type { Db } from "./database";

/** Schema versions of the ip-allowlists module. Never edit a released step. */
export const IP_ALLOWLIST_MIGRATIONS: readonly string[] = [
  /* v1 */ `
  CREATE TABLE ip_allowlists (
    org_id TEXT NOT NULL REFERENCES organizations(id),
    public_key TEXT NOT NULL DEFAULT '',
    rules_json TEXT NOT NULL,
    updated_ms INTEGER NOT NULL,
    PRIMARY KEY (org_id, public_key)
  );
  `,
  /* v2: set_ip_allowlist. \`rules_json\` may also hold [{cidr, label?, createdMs}]. */ `
  ALTER TABLE ip_allowlists ADD COLUMN enabled INTEGER;
  ALTER TABLE ip_allowlists ADD COLUMN on_evaluation_error TEXT NOT NULL DEFAULT 'DENY';
  `,
];

/** One stored rule. */
export interface StoredIpRule {
  cidr: string;
  label?: string;
  /** When the rule was first set, epoch ms (absent for configured rules). */
  createdMs?: number;
}

/** An allowlist with everything set_ip_allowlist stores. */
export interface IpAllowlistRecord {
  rules: StoredIpRule[];
  /** null: no flag (configured and per-key lists), which counts as enabled. */
  enabled: boolean | null;
  onEvaluationError: string;
}

export interface IpAllowlistRow {
  org_id: string;
  /** '' for the organization-level allowlist. */
  public_key: string;
  rules_json: string;
  updated_ms: number;
  enabled: number | null;
  on_evaluation_error: string;
}

function rulesOf(row: IpAllowlistRow): StoredIpRule[] {
  return (JSON.parse(row.rules_json) as (string | StoredIpRule)[]).map((r) => (typeof r === "string" ? { cidr: r } : r));
}

/**
 * Checks one rule: an IPv4/IPv6 address or a CIDR block (`10.0.0.0/8`, `fd00::/8`).
 * @returns why the rule is invalid, or undefined when it is valid
 */
export function ipRuleProblem(rule: string): string | undefined {
  const [address, prefix, extra] = rule.split("/");
  const family = isIP(address ?? "");
  if (family === 0 || extra !== undefined) return `${JSON.stringify(rule)} is not an IP address or CIDR block`;
  if (prefix !== undefined) {
    const bits = Number(prefix);
    if (!/^\d{1,3}$/u.test(prefix) || bits > (family === 4 ? 32 : 128)) return `${JSON.stringify(rule)} has an invalid prefix length`;
  }
  return undefined;
}

/** Strips the IPv4-mapped IPv6 form (`::ffff:127.0.0.1`) Node reports on dual-stack sockets. */
export function normalizeIp(ip: string): string {
  return ip.startsWith("::ffff:") && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
}

/** True when `ip` matches one of `rules` (validated rules; invalid ones never match). */
export function ipAllowed(rules: readonly string[], ip: string): boolean {
  const address = normalizeIp(ip);
  const family = isIP(address);
  if (family === 0) return false;
  const list = new BlockList();
  for (const rule of rules) {
    if (ipRuleProblem(rule) !== undefined) continue;
    const [base, prefix] = rule.split("/") as [string, string | undefined];
    const type = isIP(base) === 4 ? "ipv4" : "ipv6";
    if (prefix === undefined) list.addAddress(base, type);
    else list.addSubnet(base, Number(prefix), type);
  }
  return list.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** Reads and writes the `ip_allowlists` table. */
export class IpAllowlistStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      get: db.prepare<[string, string], IpAllowlistRow>("SELECT * FROM ip_allowlists WHERE org_id = ? AND public_key = ?"),
      upsert: db.prepare(
        "INSERT INTO ip_allowlists (org_id, public_key, rules_json, updated_ms) VALUES (@org_id, @public_key, @rules_json, @updated_ms) ON CONFLICT(org_id, public_key) DO UPDATE SET rules_json = excluded.rules_json, updated_ms = excluded.updated_ms",
      ),
      put: db.prepare(
        "INSERT INTO ip_allowlists (org_id, public_key, rules_json, updated_ms, enabled, on_evaluation_error) VALUES (@org_id, @public_key, @rules_json, @updated_ms, @enabled, @on_evaluation_error) ON CONFLICT(org_id, public_key) DO UPDATE SET rules_json = excluded.rules_json, updated_ms = excluded.updated_ms, enabled = excluded.enabled, on_evaluation_error = excluded.on_evaluation_error",
      ),
      delete: db.prepare("DELETE FROM ip_allowlists WHERE org_id = ? AND public_key = ?"),
      keys: db.prepare<[string], { public_key: string }>("SELECT public_key FROM ip_allowlists WHERE org_id = ? AND public_key <> '' ORDER BY updated_ms, public_key"),
      clear: db.prepare("DELETE FROM ip_allowlists"),
    };
  }

  /** The rules of an allowlist, or undefined when there is none. `publicKey` '' = organization level. */
  get(orgId: string, publicKey: string): string[] | undefined {
    const row = this.s.get.get(orgId, publicKey);
    return row ? rulesOf(row).map((r) => r.cidr) : undefined;
  }

  /** The whole allowlist, or undefined when there is none. */
  record(orgId: string, publicKey: string): IpAllowlistRecord | undefined {
    const row = this.s.get.get(orgId, publicKey);
    if (!row) return undefined;
    return { rules: rulesOf(row), enabled: row.enabled === null ? null : row.enabled === 1, onEvaluationError: row.on_evaluation_error };
  }

  /** Creates or replaces an allowlist as set_ip_allowlist does. */
  put(orgId: string, publicKey: string, record: IpAllowlistRecord, nowMs: number): void {
    this.s.put.run({
      org_id: orgId,
      public_key: publicKey,
      rules_json: JSON.stringify(record.rules),
      updated_ms: nowMs,
      enabled: record.enabled === null ? null : record.enabled ? 1 : 0,
      on_evaluation_error: record.onEvaluationError,
    });
  }

  set(orgId: string, publicKey: string, rules: readonly string[], nowMs: number): void {
    this.s.upsert.run({ org_id: orgId, public_key: publicKey, rules_json: JSON.stringify(rules), updated_ms: nowMs });
  }

  /** @returns whether an allowlist was removed */
  delete(orgId: string, publicKey: string): boolean {
    return this.s.delete.run(orgId, publicKey).changes > 0;
  }

  /** Public keys of the organization's API keys that have an allowlist of their own. */
  keysWithAllowlists(orgId: string): string[] {
    return this.s.keys.all(orgId).map((row) => row.public_key);
  }

  /** Removes every allowlist (before the configuration is applied again). */
  clear(): void {
    this.s.clear.run();
  }
}

const stores = new WeakMap<Db, IpAllowlistStore>();

/** The allowlist store of a connection. */
export function ipAllowlistStoreOf(db: Db): IpAllowlistStore {
  let store = stores.get(db);
  if (!store) {
    store = new IpAllowlistStore(db);
    stores.set(db, store);
  }
  return store;
}
