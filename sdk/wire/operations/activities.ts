/**
 * @module wire/operations/activities
 * Reading and deciding activities (docs/service-facts.md#38-activities).
 */
import { z } from "zod";
import { Activity } from "../activity";
import { defineActivity, defineQuery } from "../define";
import { ActivityStatus } from "../enums";
import { Id, opt, PaginationOptions } from "../shared";

export const getActivity = defineQuery("get_activity", {
  request: z.object({ organizationId: Id, activityId: Id }),
  response: z.object({ activity: Activity }),
});

export const listActivities = defineQuery("list_activities", {
  request: z.object({
    organizationId: Id,
    filterByStatus: opt(z.array(ActivityStatus)),
    /** `ACTIVITY_TYPE_*` values. */
    filterByType: opt(z.array(Id)),
    paginationOptions: opt(PaginationOptions),
  }),
  /** Newest first; the next (older) page is `after = <last id>`. */
  response: z.object({ activities: z.array(Activity) }),
  pageItems: "activities",
});

/**
 * A vote on a consensus-gated activity, named by its `fingerprint`. The service keeps no result
 * object for votes (the generated types have no approve/reject result key), so the result is
 * empty: what matters is the returned activity, which may be the target or the vote itself.
 */
const decision = z.object({ fingerprint: Id });

export const approveActivity = defineActivity("approve_activity", {
  type: "ACTIVITY_TYPE_APPROVE_ACTIVITY",
  intentKey: "approveActivityIntent",
  resultKey: "approveActivityResult",
  parameters: decision,
  result: z.object({}),
});

export const rejectActivity = defineActivity("reject_activity", {
  type: "ACTIVITY_TYPE_REJECT_ACTIVITY",
  intentKey: "rejectActivityIntent",
  resultKey: "rejectActivityResult",
  parameters: decision,
  result: z.object({}),
});

export const activityOperations = { getActivity, listActivities, approveActivity, rejectActivity };
