/**
 * @module emulator/handlers/activities
 * Reading activities (fact sheet 3.8). Every emulated activity completes when it is
 * submitted, so nothing ever waits for a vote: approve/reject find the activity by
 * fingerprint and refuse with 400 code 9.
 */
import { failedPrecondition, invalidArgument, notFound } from "../errors";
import type { EmulatorModule } from "./types";
import { activityView } from "./views";

const DEFAULT_PAGE_SIZE = 10;

export const activitiesModule: EmulatorModule = {
  name: "activities",
  setup: () => ({
    getActivity(ctx, req) {
      const row = ctx.store.activities.get(ctx.organizationId, req.activityId);
      if (!row) throw notFound(`activityId: no activity with id ${req.activityId} in organization ${ctx.organizationId}`);
      return { activity: activityView(row) };
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
      return { activities: rows.map(activityView) };
    },

    approveActivity(ctx, p) {
      const row = ctx.store.activities.findByFingerprint(p.fingerprint);
      if (!row || row.org_id !== ctx.organizationId) throw notFound(`fingerprint: no activity with fingerprint ${p.fingerprint}`);
      throw failedPrecondition(`fingerprint: activity ${row.id} is ${row.status}, not awaiting consensus`);
    },

    rejectActivity(ctx, p) {
      const row = ctx.store.activities.findByFingerprint(p.fingerprint);
      if (!row || row.org_id !== ctx.organizationId) throw notFound(`fingerprint: no activity with fingerprint ${p.fingerprint}`);
      throw failedPrecondition(`fingerprint: activity ${row.id} is ${row.status}, not awaiting consensus`);
    },
  }),
};
