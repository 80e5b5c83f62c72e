/**
 * @module resources/runtime/webhook-endpoint
 * WebhookEndpoint (docs/service-facts.md#310-webhooks): url, name and isActive change in place
 * (`update_webhook_endpoint`); subscriptions cannot be updated, so a change replaces the
 * endpoint. There is no get-by-id: a read lists the endpoints.
 */
import type { WebhookEndpoint } from "../../wire/operations/webhooks";
import { operations } from "../../wire/registry";
import { schemaFailures } from "./check";
import type { Session } from "./client";
import type { InputsOf, OutputsOf, ResourceDescription } from "./describe";
import type { ListObjects } from "./listing";
import { createActivity } from "./earlier-activity";
import { defineResource, parametersFrom } from "./define";
import { makeHandler } from "./framework";
import { canonicalDocument, compact, containsUnknown } from "./values";

/** A comparable form: active by default, filters as canonical JSON, sorted by event type. */
function canonicalSubscriptions(value: unknown): string {
  const list = ((value ?? []) as WebhookSubscriptionInput[]).map((s) => {
    let filters = s.filtersJson;
    try {
      if (filters !== undefined) filters = canonicalDocument(filters);
    } catch {
      // Not JSON: compared as written (check reports it).
    }
    return JSON.stringify([s.eventType, filters ?? null, s.isActive ?? true]);
  });
  return JSON.stringify(list.sort());
}

async function fetchEndpoint(session: Session, id: string): Promise<WebhookEndpoint | undefined> {
  const { webhookEndpoints } = await session.client.listWebhookEndpoints();
  return webhookEndpoints.find((e) => e.endpointId === id);
}

/** The create_webhook_endpoint parameters of `inputs`: its inputs of the same names (create takes no `isActive`). */
const createParameters = (inputs: WebhookEndpointInputs) => parametersFrom(operations.createWebhookEndpoint.parameters, inputs);

const SUBSCRIPTION = {
  type: "object",
  properties: {
    eventType: {
      type: "string",
      description: "`ACTIVITY_UPDATES`, `BALANCE_CONFIRMED_UPDATES`, `BALANCE_FINALIZED_UPDATES` or `SEND_TRANSACTION_STATUS_UPDATES`.",
      required: true,
    },
    filtersJson: { type: "string", description: "Filter criteria, as JSON text." },
    isActive: { type: "boolean", description: "Whether events of this subscription are delivered; default true." },
  },
} as const;

const describe = {
  description:
    "A webhook endpoint of the organization: events of its subscriptions are delivered to `url`. `url`, `name` and `isActive` change " +
    "in place (`update_webhook_endpoint`); the service cannot change subscriptions, so a change of `subscriptions` replaces the endpoint.",
  example: {
    name: "activity-feed",
    inputs: {
      url: "https://hooks.example.com/keyform",
      name: "activity-feed",
      subscriptions: [{"eventType": "ACTIVITY_UPDATES"}],
    },
  },
  importIdMeaning: "the endpoint's id, `endpointId`",
  inputs: {
    url: { type: "string", description: "The absolute http(s) URL events are delivered to.", required: true },
    name: { type: "string", description: "The endpoint's name.", required: true, defaultsToResourceName: true },
    isActive: { type: "boolean", description: "Whether the endpoint receives events; default true.", default: true },
    subscriptions: { type: "array", items: SUBSCRIPTION, description: "The events delivered (order does not matter).", required: true, replaceOnChange: true, default: [] },
  },
  outputs: {
    endpointId: { type: "string", description: "The endpoint's id." },
    url: { type: "string", description: "The URL as the service holds it." },
    name: { type: "string", description: "The name as the service holds it." },
    isActive: { type: "boolean", description: "Whether the endpoint receives events." },
    subscriptions: { type: "array", items: SUBSCRIPTION, description: "The subscriptions as the service holds them." },
  },
} as const satisfies ResourceDescription;

/** Normalized inputs of a WebhookEndpoint. */
export type WebhookEndpointInputs = InputsOf<typeof describe>;
/** Outputs of a WebhookEndpoint. */
export type WebhookEndpointOutputs = OutputsOf<typeof describe>;
/** One subscription: an event type, an optional filter (JSON), active or not. */
export type WebhookSubscriptionInput = WebhookEndpointInputs["subscriptions"][number];

/** Every webhook endpoint of the organization. */
const listWebhookEndpoints: ListObjects = async (session) =>
  (await session.client.listWebhookEndpoints()).webhookEndpoints.map((e) => ({ id: e.endpointId, label: e.name }));

export const webhookEndpointSpec = defineResource<WebhookEndpointInputs, WebhookEndpointOutputs, WebhookEndpoint>({
  kind: "WebhookEndpoint",
  describe,
  list: listWebhookEndpoints,
  idProperty: "endpointId",
  equal: { subscriptions: (a, b) => canonicalSubscriptions(a) === canonicalSubscriptions(b) },
  normalize(inputs) {
    const subscriptions: unknown = inputs.subscriptions;
    return {
      ...inputs,
      subscriptions:
        Array.isArray(subscriptions) && !containsUnknown(subscriptions)
          ? (subscriptions as WebhookSubscriptionInput[]).map((s) => compact({ eventType: s.eventType, filtersJson: s.filtersJson ?? undefined, isActive: s.isActive ?? undefined }))
          : inputs.subscriptions,
    };
  },
  validate(inputs) {
    const record = inputs as unknown as Record<string, unknown>;
    return [
      ...schemaFailures(operations.createWebhookEndpoint.parameters, createParameters(inputs), record),
      ...schemaFailures(operations.updateWebhookEndpoint.parameters, { endpointId: "-", isActive: inputs.isActive }, record),
    ];
  },
  label: (inputs) => JSON.stringify(inputs.name ?? ""),
  fetch: (session, id) => fetchEndpoint(session, id),
  flatten: (live) => ({
    // Only the subscription fields the description declares, unset ones left out.
    subscriptions: (live.subscriptions ?? []).map((s) => compact({ eventType: s.eventType, filtersJson: s.filtersJson, isActive: s.isActive })),
  }),
  createActivity: createActivity({
    operation: "createWebhookEndpoint",
    parameters: createParameters,
    createdId: (result) => result.endpointId,
  }),
  async create(session, inputs) {
    const created = await session.client.createWebhookEndpoint(createParameters(inputs));
    // create takes no isActive: an endpoint declared inactive is switched off right after.
    // Either result holds the endpoint as the service keeps it: no list of every endpoint.
    const live = inputs.isActive
      ? created.webhookEndpoint
      : (await session.client.updateWebhookEndpoint({ endpointId: created.endpointId, isActive: false })).webhookEndpoint;
    return { id: created.endpointId, live };
  },
  async update(session, id, live, inputs) {
    await session.client.updateWebhookEndpoint(
      compact({
        endpointId: id,
        url: inputs.url !== live.url ? inputs.url : undefined,
        name: inputs.name !== live.name ? inputs.name : undefined,
        isActive: inputs.isActive !== live.isActive ? inputs.isActive : undefined,
      }),
    );
  },
  async remove(session, id) {
    await session.client.deleteWebhookEndpoint({ endpointId: id });
  },
});

/** The runtime handler the WebhookEndpoint provider code in state delegates to. */
export const webhookEndpointHandler = makeHandler(webhookEndpointSpec);
