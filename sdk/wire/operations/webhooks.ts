/**
 * @module wire/operations/webhooks
 * Webhook endpoints (spec 2.5, 4.3 list_webhook_endpoints; docs/service-facts.md#310-webhooks for create, update
 * and delete). There is no get-by-id, and subscriptions cannot be changed by an update.
 */
import { z } from "zod";
import { defineActivity, defineQuery } from "../define";
import { Id, JsonText, opt } from "../shared";

/** An absolute http(s) URL events are delivered to. */
export const WebhookUrl = z.string().refine((v) => {
  try {
    const url = new URL(v);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}, "must be an absolute http or https URL");

/**
 * Spec 2.5 subscription. `eventType` is a string: the spec names `ACTIVITY_UPDATES`,
 * `BALANCE_CONFIRMED_UPDATES` and `BALANCE_FINALIZED_UPDATES` but not the complete list.
 */
export const WebhookSubscription = z.object({
  eventType: z.string(),
  /** JSON-encoded filter criteria. */
  filtersJson: opt(z.string()),
  isActive: opt(z.boolean()),
});
export type WebhookSubscription = z.infer<typeof WebhookSubscription>;

/** A subscription to create: as above, with the filter checked to be JSON. */
export const WebhookSubscriptionParams = z.object({
  eventType: Id,
  filtersJson: opt(JsonText),
  isActive: opt(z.boolean()),
});
export type WebhookSubscriptionParams = z.infer<typeof WebhookSubscriptionParams>;

/** Spec 2.5: a webhook endpoint. */
export const WebhookEndpoint = z.object({
  endpointId: z.string(),
  organizationId: z.string(),
  url: z.string(),
  name: z.string(),
  isActive: z.boolean(),
  subscriptions: opt(z.array(WebhookSubscription)),
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

export const listWebhookEndpoints = defineQuery("list_webhook_endpoints", {
  request: z.object({ organizationId: Id }),
  response: z.object({ webhookEndpoints: z.array(WebhookEndpoint) }),
});

export const createWebhookEndpoint = defineActivity("create_webhook_endpoint", {
  type: "ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT",
  intentKey: "createWebhookEndpointIntent",
  resultKey: "createWebhookEndpointResult",
  parameters: z.object({
    url: WebhookUrl,
    name: Id,
    subscriptions: opt(z.array(WebhookSubscriptionParams)),
  }),
  result: z.object({ endpointId: z.string(), webhookEndpoint: WebhookEndpoint }),
});

export const updateWebhookEndpoint = defineActivity("update_webhook_endpoint", {
  type: "ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT",
  intentKey: "updateWebhookEndpointIntent",
  resultKey: "updateWebhookEndpointResult",
  parameters: z.object({
    endpointId: Id,
    url: opt(WebhookUrl),
    name: opt(Id),
    isActive: opt(z.boolean()),
  }),
  result: z.object({ endpointId: z.string(), webhookEndpoint: WebhookEndpoint }),
});

export const deleteWebhookEndpoint = defineActivity("delete_webhook_endpoint", {
  type: "ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT",
  intentKey: "deleteWebhookEndpointIntent",
  resultKey: "deleteWebhookEndpointResult",
  parameters: z.object({ endpointId: Id }),
  result: z.object({ endpointId: z.string() }),
});

export const webhookOperations = {
  listWebhookEndpoints,
  createWebhookEndpoint,
  updateWebhookEndpoint,
  deleteWebhookEndpoint,
};
