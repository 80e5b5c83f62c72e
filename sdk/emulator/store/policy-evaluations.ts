/**
 * @module emulator/store/policy-evaluations
 * The policy evaluations of each activity: one row per vote that ran the policies (the
 * submission, each approval), holding every policy's outcome (get_policy_evaluations).
 */
import type { Db } from "./database";

/** Schema versions of the policy-evaluations module. Never edit a released step. */
export const POLICY_EVALUATION_MIGRATIONS: readonly string[] = [
  /* v1 */ `
  CREATE TABLE policy_evaluations (
    id TEXT PRIMARY KEY,
    activity_id TEXT NOT NULL,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    vote_id TEXT NOT NULL,
    evaluations_json TEXT NOT NULL,
    created_ms INTEGER NOT NULL
  );
  CREATE INDEX policy_evaluations_activity ON policy_evaluations(activity_id);
  `,
];

export interface PolicyEvaluationRow {
  id: string;
  activity_id: string;
  org_id: string;
  /** The vote whose request ran the policies ("" for a submission that cast no vote). */
  vote_id: string;
  /** JSON `[{policyId, outcome}]`. */
  evaluations_json: string;
  created_ms: number;
}

/** Reads and writes `policy_evaluations`. */
export class PolicyEvaluationStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      insert: db.prepare(
        "INSERT INTO policy_evaluations (id, activity_id, org_id, vote_id, evaluations_json, created_ms) VALUES (@id, @activity_id, @org_id, @vote_id, @evaluations_json, @created_ms)",
      ),
      ofActivity: db.prepare<[string, string], PolicyEvaluationRow>(
        "SELECT * FROM policy_evaluations WHERE org_id = ? AND activity_id = ? ORDER BY created_ms, rowid",
      ),
    };
  }

  insert(row: PolicyEvaluationRow): void {
    this.s.insert.run(row);
  }

  ofActivity(orgId: string, activityId: string): PolicyEvaluationRow[] {
    return this.s.ofActivity.all(orgId, activityId);
  }
}

const stores = new WeakMap<Db, PolicyEvaluationStore>();

/** The evaluation store of a connection (statements prepared once per connection). */
export function policyEvaluationStoreOf(db: Db): PolicyEvaluationStore {
  let store = stores.get(db);
  if (!store) {
    store = new PolicyEvaluationStore(db);
    stores.set(db, store);
  }
  return store;
}
