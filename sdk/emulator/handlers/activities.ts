/**
 * @module emulator/handlers/activities
 * Reading activities (docs/service-facts.md#38-activities), with their votes and stored App Proofs. Voting
 * (approve_activity / reject_activity) is part of the core pipeline: see `consensus.ts`.
 */
import { invalidArgument, notFound } from "../errors";
import { ACTIVITY_SUBMITTER_MIGRATIONS } from "../store/activity-submitters";
import { withAppProofs } from "./auth-app-proofs";
import type { EmulatorModule } from "./types";
import { activityView } from "./views";

const DEFAULT_PAGE_SIZE = 10;

export const activitiesModule: EmulatorModule = {
  name: "activities",
  migrations: ACTIVITY_SUBMITTER_MIGRATIONS,
  setup: () => ({
    getActivity(ctx, req) {
      const row = ctx.store.activities.get(ctx.organizationId, req.activityId);
      if (!row) throw notFound(`activityId: no activity with id ${req.activityId} in organization ${ctx.organizationId}`);
      return { activity: withAppProofs(ctx.db, activityView(row, ctx.store)) };
    },

    listActivities(ctx, req) {
      const page = req.paginationOptions;
      const cursor = (id: string | undefined, field: string): number | undefined => {
        if (id === undefined) return undefined;
        const row = ctx.store.activities.get(ctx.organizationId, id);
        if (!row || row.seq === undefined) throw invalidArgument(`paginationOptions.${field}: no activity with id ${id} in the organization`);
        return row.seq;
      };
      const rows = ctx.store.activities.list(ctx.organizationId, {
        statuses: req.filterByStatus,
        types: req.filterByType,
        limit: page?.limit !== undefined ? Number(page.limit) : DEFAULT_PAGE_SIZE,
        // Newest first: `after` pages towards older activities, `before` towards newer ones.
        olderThanSeq: cursor(page?.after, "after"),
        newerThanSeq: cursor(page?.before, "before"),
      });
      return { activities: rows.map((row) => withAppProofs(ctx.db, activityView(row, ctx.store))) };
    },
  }),
};
