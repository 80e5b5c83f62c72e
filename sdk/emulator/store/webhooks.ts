/**
 * @module emulator/store/webhooks
 * Webhook endpoints (spec 2.5) and their subscriptions. Subscriptions are set when the
 * endpoint is created and never change (docs/service-facts.md#310-webhooks). Each delivery
 * attempt is recorded (the emulator's own table, shown by the local dashboard), the newest
 * {@link KEPT_DELIVERIES} per endpoint.
 */
import type { Db } from "./database";

/** Schema versions of the webhooks module. Never edit a released step. */
export const WEBHOOK_MIGRATIONS: readonly string[] = [
  /* v1 */ `
  CREATE TABLE webhook_endpoints (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    url TEXT NOT NULL,
    name TEXT NOT NULL,
    is_active INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
  );
  CREATE INDEX webhook_endpoints_org ON webhook_endpoints(org_id);

  CREATE TABLE webhook_subscriptions (
    endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    event_type TEXT NOT NULL,
    filters_json TEXT,
    is_active INTEGER NOT NULL,
    PRIMARY KEY (endpoint_id, position)
  );
  `,
  /* v2: delivery attempts. `status_code` is null when no answer came (network error, timeout);
     `error` says why an attempt failed; `response` holds the start of the answer's body. */ `
  CREATE TABLE webhook_deliveries (
    id TEXT PRIMARY KEY,
    endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
    event_id TEXT NOT NULL,
    activity_id TEXT NOT NULL,
    activity_status TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    ok INTEGER NOT NULL,
    status_code INTEGER,
    response TEXT,
    error TEXT,
    started_ms INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    next_attempt_ms INTEGER
  );
  CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries(endpoint_id, started_ms);
  `,
];

/** Delivery attempts kept per endpoint (older ones are dropped as new ones are recorded). */
export const KEPT_DELIVERIES = 100;

export interface WebhookEndpointRow {
  id: string;
  org_id: string;
  url: string;
  name: string;
  is_active: number;
  created_ms: number;
  updated_ms: number;
}

export interface WebhookSubscriptionRow {
  endpoint_id: string;
  position: number;
  event_type: string;
  filters_json: string | null;
  is_active: number;
}

/** One delivery attempt of an event to an endpoint. */
export interface WebhookDeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  activity_id: string;
  /** The activity's status the event reported. */
  activity_status: string;
  /** 1 for the first try. */
  attempt: number;
  /** 1 when the endpoint answered 2xx. */
  ok: number;
  status_code: number | null;
  /** The start of the answer's body, if any. */
  response: string | null;
  /** Why the attempt failed (refused, network error, timeout); null when it succeeded. */
  error: string | null;
  started_ms: number;
  duration_ms: number;
  /** When the next attempt is scheduled; null when there is none (delivered or given up). */
  next_attempt_ms: number | null;
}

/** Reads and writes the webhook tables. */
export class WebhookStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      get: db.prepare<[string, string], WebhookEndpointRow>("SELECT * FROM webhook_endpoints WHERE org_id = ? AND id = ?"),
      byName: db.prepare<[string, string], WebhookEndpointRow>("SELECT * FROM webhook_endpoints WHERE org_id = ? AND name = ?"),
      list: db.prepare<[string], WebhookEndpointRow>("SELECT * FROM webhook_endpoints WHERE org_id = ? ORDER BY created_ms, rowid"),
      insert: db.prepare(
        "INSERT INTO webhook_endpoints (id, org_id, url, name, is_active, created_ms, updated_ms) VALUES (@id, @org_id, @url, @name, @is_active, @created_ms, @updated_ms)",
      ),
      update: db.prepare("UPDATE webhook_endpoints SET url = @url, name = @name, is_active = @is_active, updated_ms = @updated_ms WHERE id = @id"),
      delete: db.prepare("DELETE FROM webhook_endpoints WHERE id = ?"),
      deleteSubscriptions: db.prepare("DELETE FROM webhook_subscriptions WHERE endpoint_id = ?"),
      subscriptions: db.prepare<[string], WebhookSubscriptionRow>("SELECT * FROM webhook_subscriptions WHERE endpoint_id = ? ORDER BY position"),
      insertDelivery: db.prepare(
        "INSERT INTO webhook_deliveries (id, endpoint_id, event_id, activity_id, activity_status, attempt, ok, status_code, response, error, started_ms, duration_ms, next_attempt_ms) VALUES (@id, @endpoint_id, @event_id, @activity_id, @activity_status, @attempt, @ok, @status_code, @response, @error, @started_ms, @duration_ms, @next_attempt_ms)",
      ),
      pruneDeliveries: db.prepare(
        "DELETE FROM webhook_deliveries WHERE endpoint_id = @endpoint_id AND rowid NOT IN (SELECT rowid FROM webhook_deliveries WHERE endpoint_id = @endpoint_id ORDER BY started_ms DESC, rowid DESC LIMIT @keep)",
      ),
      deliveries: db.prepare<[string, number], WebhookDeliveryRow>("SELECT * FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY started_ms DESC, rowid DESC LIMIT ?"),
      deleteDeliveries: db.prepare("DELETE FROM webhook_deliveries WHERE endpoint_id = ?"),
      insertSubscription: db.prepare(
        "INSERT INTO webhook_subscriptions (endpoint_id, position, event_type, filters_json, is_active) VALUES (@endpoint_id, @position, @event_type, @filters_json, @is_active)",
      ),
    };
  }

  get(orgId: string, id: string): WebhookEndpointRow | undefined {
    return this.s.get.get(orgId, id);
  }

  getByName(orgId: string, name: string): WebhookEndpointRow | undefined {
    return this.s.byName.get(orgId, name);
  }

  list(orgId: string): WebhookEndpointRow[] {
    return this.s.list.all(orgId);
  }

  insert(row: WebhookEndpointRow, subscriptions: readonly Omit<WebhookSubscriptionRow, "endpoint_id" | "position">[]): void {
    this.s.insert.run(row);
    subscriptions.forEach((s, position) => this.s.insertSubscription.run({ ...s, endpoint_id: row.id, position }));
  }

  update(row: WebhookEndpointRow): void {
    this.s.update.run(row);
  }

  delete(id: string): void {
    this.s.deleteSubscriptions.run(id);
    this.s.deleteDeliveries.run(id);
    this.s.delete.run(id);
  }

  subscriptions(endpointId: string): WebhookSubscriptionRow[] {
    return this.s.subscriptions.all(endpointId);
  }

  /** Records an attempt and drops the endpoint's oldest beyond {@link KEPT_DELIVERIES}, in one transaction. */
  recordDelivery(row: WebhookDeliveryRow): void {
    this.db.transaction(() => {
      this.s.insertDelivery.run(row);
      this.s.pruneDeliveries.run({ endpoint_id: row.endpoint_id, keep: KEPT_DELIVERIES });
    })();
  }

  /** The endpoint's newest attempts first. */
  deliveries(endpointId: string, limit = KEPT_DELIVERIES): WebhookDeliveryRow[] {
    return this.s.deliveries.all(endpointId, limit);
  }
}

const stores = new WeakMap<Db, WebhookStore>();

/** The webhook store of a connection. */
export function webhookStoreOf(db: Db): WebhookStore {
  let store = stores.get(db);
  if (!store) {
    store = new WebhookStore(db);
    stores.set(db, store);
  }
  return store;
}
