/**
 * @module emulator/dashboard/webhooks
 * An organization's webhook endpoints for the dashboard: each with its subscriptions and its
 * recorded delivery attempts, newest first (`webhook_deliveries`, written by the deliverer).
 */
import type { Store } from "../store";
import { webhookStoreOf } from "../store/webhooks";

/** Attempts shown per endpoint. */
const SHOWN_DELIVERIES = 50;

/** The endpoints, oldest first; undefined for an unknown organization. */
export function webhooksOf(store: Store, organizationId: string) {
  if (!store.organizations.get(organizationId)) return undefined;
  const webhooks = webhookStoreOf(store.db);
  return store.db.transaction(() =>
    webhooks.list(organizationId).map((endpoint) => ({
      endpointId: endpoint.id,
      name: endpoint.name,
      url: endpoint.url,
      isActive: endpoint.is_active === 1,
      createdMs: endpoint.created_ms,
      subscriptions: webhooks.subscriptions(endpoint.id).map((s) => ({ eventType: s.event_type, filtersJson: s.filters_json, isActive: s.is_active === 1 })),
      deliveries: webhooks.deliveries(endpoint.id, SHOWN_DELIVERIES).map((d) => ({
        eventId: d.event_id,
        activityId: d.activity_id,
        activityStatus: d.activity_status,
        attempt: d.attempt,
        ok: d.ok === 1,
        statusCode: d.status_code,
        response: d.response,
        error: d.error,
        atMs: d.started_ms,
        durationMs: d.duration_ms,
        nextAttemptMs: d.next_attempt_ms,
      })),
    })),
  )();
}
