/**
 * @module emulator/store/consensus
 * What consensus needs to remember: the validated request of an activity that waits for the
 * root quorum (so that it runs later exactly as a direct submission would), and the votes.
 * A user votes at most once per activity (unique index).
 */
import type { Db } from "./database";

/** The request of a CONSENSUS_NEEDED activity, kept until the quorum decides. */
export interface PendingActivityRow {
  activity_id: string;
  /** Registry name of the operation (`createUserTag`). */
  operation: string;
  /** JSON of the submitter's `Caller`. */
  caller_json: string;
  /** JSON of the validated `parameters`. */
  parameters_json: string;
}

export interface VoteRow {
  id: string;
  activity_id: string;
  user_id: string;
  selection: string;
  /** The exact request body the voter signed (the submission, or the approve/reject body). */
  message: string;
  public_key: string;
  signature: string;
  scheme: string;
  created_ms: number;
}

/** Reads and writes `pending_activities` and `activity_votes`. */
export class ConsensusStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      insertPending: db.prepare(
        "INSERT INTO pending_activities (activity_id, operation, caller_json, parameters_json) VALUES (@activity_id, @operation, @caller_json, @parameters_json)",
      ),
      pending: db.prepare<[string], PendingActivityRow>("SELECT * FROM pending_activities WHERE activity_id = ?"),
      deletePending: db.prepare<[string]>("DELETE FROM pending_activities WHERE activity_id = ?"),
      insertVote: db.prepare(
        "INSERT INTO activity_votes (id, activity_id, user_id, selection, message, public_key, signature, scheme, created_ms) VALUES (@id, @activity_id, @user_id, @selection, @message, @public_key, @signature, @scheme, @created_ms)",
      ),
      votes: db.prepare<[string], VoteRow>("SELECT * FROM activity_votes WHERE activity_id = ? ORDER BY created_ms, rowid"),
    };
  }

  insertPending(row: PendingActivityRow): void {
    this.s.insertPending.run(row);
  }

  pending(activityId: string): PendingActivityRow | undefined {
    return this.s.pending.get(activityId);
  }

  /** Forgets the request once the activity left CONSENSUS_NEEDED. */
  deletePending(activityId: string): void {
    this.s.deletePending.run(activityId);
  }

  insertVote(row: VoteRow): void {
    this.s.insertVote.run(row);
  }

  /** Votes of an activity, oldest first. */
  votes(activityId: string): VoteRow[] {
    return this.s.votes.all(activityId);
  }
}
