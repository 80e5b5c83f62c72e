/**
 * @module emulator/handlers/policy-evaluations
 * `get_policy_evaluations {activityId}`: the per-policy outcomes recorded when the activity was
 * submitted and at each approval (see `policy-gate.ts`). An activity the root quorum ran
 * directly has none: the root quorum bypasses policies.
 */
import { notFound } from "../errors";
import { POLICY_EVALUATION_MIGRATIONS, policyEvaluationStoreOf } from "../store/policy-evaluations";
import { timestampOf } from "../store";
import type { EmulatorModule } from "./types";

export const policyEvaluationsModule: EmulatorModule = {
  name: "policy-evaluations",
  migrations: POLICY_EVALUATION_MIGRATIONS,
  setup: ({ db }) => ({
    getPolicyEvaluations(ctx, req) {
      if (!ctx.store.activities.get(ctx.organizationId, req.activityId)) {
        throw notFound(`activityId: no activity with id ${req.activityId} in organization ${ctx.organizationId}`);
      }
      return {
        policyEvaluations: policyEvaluationStoreOf(db)
          .ofActivity(ctx.organizationId, req.activityId)
          .map((row) => ({
            id: row.id,
            activityId: row.activity_id,
            organizationId: row.org_id,
            voteId: row.vote_id,
            policyEvaluations: JSON.parse(row.evaluations_json) as { policyId: string; outcome: never }[],
            createdAt: timestampOf(row.created_ms),
          })),
      };
    },
  }),
};
