/**
 * @module emulator/store/activity-submitters
 * Who submitted each activity: the user and the API key of the request's stamp, written in the
 * activity's own transaction. The service's activity record does not carry its submitter; the
 * local dashboard's feed shows it. Activities recorded before this table existed have none.
 */
import type { Db } from "./database";

/** Schema versions of the activities module. Never edit a released step. */
export const ACTIVITY_SUBMITTER_MIGRATIONS: readonly string[] = [
  /* v1 */ `
  CREATE TABLE activity_submitters (
    activity_id TEXT PRIMARY KEY REFERENCES activities(id),
    user_id TEXT NOT NULL,
    api_key_id TEXT NOT NULL
  );
  `,
];

export interface ActivitySubmitterRow {
  activity_id: string;
  user_id: string;
  /** "" when no API key signed (a vote cast from the dashboard, a passkey stamp). */
  api_key_id: string;
}

/** Reads and writes `activity_submitters`. */
export class ActivitySubmitterStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      insert: db.prepare("INSERT INTO activity_submitters (activity_id, user_id, api_key_id) VALUES (@activity_id, @user_id, @api_key_id)"),
      get: db.prepare<[string], ActivitySubmitterRow>("SELECT * FROM activity_submitters WHERE activity_id = ?"),
    };
  }

  insert(row: ActivitySubmitterRow): void {
    this.s.insert.run(row);
  }

  get(activityId: string): ActivitySubmitterRow | undefined {
    return this.s.get.get(activityId);
  }
}

const stores = new WeakMap<Db, ActivitySubmitterStore>();

/** The submitter store of a connection (statements prepared once per connection). */
export function activitySubmitterStoreOf(db: Db): ActivitySubmitterStore {
  let store = stores.get(db);
  if (!store) {
    store = new ActivitySubmitterStore(db);
    stores.set(db, store);
  }
  return store;
}
