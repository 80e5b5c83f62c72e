/**
 * @module emulator/store/activities
 * The activity log. `fingerprint` is unique: a byte-identical resubmission finds the
 * activity it already produced instead of running again. `seq` orders activities
 * (newest first in listings) independently of clock resolution.
 */
import type { Db } from "./database";

export interface ActivityRow {
  seq?: number;
  id: string;
  org_id: string;
  type: string;
  status: string;
  fingerprint: string;
  intent_json: string;
  result_json: string;
  created_ms: number;
  updated_ms: number;
  /** `{code, message, details}` when the activity FAILED after a consensus; null otherwise. */
  failure_json?: string | null;
}

/** Filters and cursor of a listing, newest first. */
export interface ActivityListOptions {
  statuses?: readonly string[];
  types?: readonly string[];
  limit: number;
  /** Only activities older than this sequence number. */
  olderThanSeq?: number;
  /** Only activities newer than this sequence number. */
  newerThanSeq?: number;
}

/** Reads and writes the `activities` table. */
export class ActivityStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      byId: db.prepare<[string, string], ActivityRow>("SELECT * FROM activities WHERE org_id = ? AND id = ?"),
      byFingerprint: db.prepare<[string], ActivityRow>("SELECT * FROM activities WHERE fingerprint = ?"),
      settle: db.prepare<[string, string, string | null, number, string]>(
        "UPDATE activities SET status = ?, result_json = ?, failure_json = ?, updated_ms = ? WHERE id = ?",
      ),
      insert: db.prepare(
        "INSERT INTO activities (id, org_id, type, status, fingerprint, intent_json, result_json, created_ms, updated_ms) VALUES (@id, @org_id, @type, @status, @fingerprint, @intent_json, @result_json, @created_ms, @updated_ms)",
      ),
    };
  }

  get(orgId: string, id: string): ActivityRow | undefined {
    return this.s.byId.get(orgId, id);
  }

  findByFingerprint(fingerprint: string): ActivityRow | undefined {
    return this.s.byFingerprint.get(fingerprint);
  }

  /** Moves an activity to its final status (after a consensus decided it). */
  settle(id: string, change: { status: string; resultJson: string; failureJson: string | null; updatedMs: number }): void {
    this.s.settle.run(change.status, change.resultJson, change.failureJson, change.updatedMs, id);
  }

  insert(row: ActivityRow): void {
    this.s.insert.run(row);
  }

  /** One page of an organization's activities, newest first. */
  list(orgId: string, options: ActivityListOptions): ActivityRow[] {
    const where = ["org_id = ?"];
    const args: (string | number)[] = [orgId];
    if (options.statuses && options.statuses.length > 0) {
      where.push(`status IN (${options.statuses.map(() => "?").join(", ")})`);
      args.push(...options.statuses);
    }
    if (options.types && options.types.length > 0) {
      where.push(`type IN (${options.types.map(() => "?").join(", ")})`);
      args.push(...options.types);
    }
    if (options.olderThanSeq !== undefined) {
      where.push("seq < ?");
      args.push(options.olderThanSeq);
    }
    if (options.newerThanSeq !== undefined) {
      where.push("seq > ?");
      args.push(options.newerThanSeq);
    }
    // `before` pages (newer items) are read oldest-first from the cursor, then reversed, so the
    // page is the one adjacent to the cursor.
    const ascending = options.newerThanSeq !== undefined && options.olderThanSeq === undefined;
    const sql = `SELECT * FROM activities WHERE ${where.join(" AND ")} ORDER BY seq ${ascending ? "ASC" : "DESC"} LIMIT ?`;
    const rows = this.db.prepare<(string | number)[], ActivityRow>(sql).all(...args, options.limit);
    return ascending ? rows.reverse() : rows;
  }
}
