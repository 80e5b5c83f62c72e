/**
 * @module emulator/store/webhooks
 * Webhook endpoints (spec 2.5) and their subscriptions. Subscriptions are set when the
 * endpoint is created and never change (docs/service-facts.md#310-webhooks).
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
];

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

/** Reads and writes the webhook tables. */
export class WebhookStore {
  private readonly s;

  constructor(db: Db) {
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
    this.s.delete.run(id);
  }

  subscriptions(endpointId: string): WebhookSubscriptionRow[] {
    return this.s.subscriptions.all(endpointId);
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
