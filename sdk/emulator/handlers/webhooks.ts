/**
 * @module emulator/handlers/webhooks
 * Webhook endpoints (spec 2.5, 4.3 list_webhook_endpoints; docs/service-facts.md#310-webhooks):
 * create_webhook_endpoint, update_webhook_endpoint (url, name, isActive; subscriptions cannot
 * change), delete_webhook_endpoint, list_webhook_endpoints. Delivery of events is
 * `webhooks/deliverer.ts`.
 */
import type { WebhookEndpoint } from "keyform/wire/operations/webhooks";
import { notFound } from "../errors";
import { WEBHOOK_MIGRATIONS, webhookStoreOf, type WebhookEndpointRow } from "../store/webhooks";
import type { Db } from "../store";
import { newId } from "./common";
import type { EmulatorModule, QueryContext } from "./types";

function endpointView(db: Db, row: WebhookEndpointRow): WebhookEndpoint {
  return {
    endpointId: row.id,
    organizationId: row.org_id,
    url: row.url,
    name: row.name,
    isActive: row.is_active === 1,
    subscriptions: webhookStoreOf(db)
      .subscriptions(row.id)
      .map((s) => ({ eventType: s.event_type, ...(s.filters_json !== null ? { filtersJson: s.filters_json } : {}), isActive: s.is_active === 1 })),
  };
}

function requireEndpoint(ctx: QueryContext, id: string): WebhookEndpointRow {
  const row = webhookStoreOf(ctx.db).get(ctx.organizationId, id);
  if (!row) throw notFound(`endpointId: no webhook endpoint with id ${id} in organization ${ctx.organizationId}`);
  return row;
}

export const webhooksModule: EmulatorModule = {
  name: "webhooks",
  migrations: WEBHOOK_MIGRATIONS,
  setup: () => ({
    createWebhookEndpoint(ctx, p) {
      const row: WebhookEndpointRow = {
        id: newId(),
        org_id: ctx.organizationId,
        url: p.url,
        name: p.name,
        is_active: 1,
        created_ms: ctx.nowMs,
        updated_ms: ctx.nowMs,
      };
      webhookStoreOf(ctx.db).insert(
        row,
        (p.subscriptions ?? []).map((s) => ({ event_type: s.eventType, filters_json: s.filtersJson ?? null, is_active: s.isActive === false ? 0 : 1 })),
      );
      return { endpointId: row.id, webhookEndpoint: endpointView(ctx.db, row) };
    },

    updateWebhookEndpoint(ctx, p) {
      const current = requireEndpoint(ctx, p.endpointId);
      const row: WebhookEndpointRow = {
        ...current,
        url: p.url ?? current.url,
        name: p.name ?? current.name,
        is_active: p.isActive === undefined ? current.is_active : p.isActive ? 1 : 0,
        updated_ms: ctx.nowMs,
      };
      webhookStoreOf(ctx.db).update(row);
      return { endpointId: row.id, webhookEndpoint: endpointView(ctx.db, row) };
    },

    deleteWebhookEndpoint(ctx, p) {
      const row = requireEndpoint(ctx, p.endpointId);
      webhookStoreOf(ctx.db).delete(row.id);
      return { endpointId: row.id };
    },

    listWebhookEndpoints(ctx) {
      return { webhookEndpoints: webhookStoreOf(ctx.db).list(ctx.organizationId).map((row) => endpointView(ctx.db, row)) };
    },
  }),
};
