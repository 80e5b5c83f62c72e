/**
 * @module resources/webhook-endpoint
 * `WebhookEndpoint`: where the service delivers events. url, name and isActive change in place;
 * subscriptions replace the endpoint.
 */
import * as pulumi from "@pulumi/pulumi";
import { dynamicResourceOptions, KeyformProvider } from "./provider";

/** One subscription of a {@link WebhookEndpoint}. */
export interface WebhookSubscriptionArgs {
  /** `ACTIVITY_UPDATES`, `BALANCE_CONFIRMED_UPDATES`, `BALANCE_FINALIZED_UPDATES`, `SEND_TRANSACTION_STATUS_UPDATES`. */
  eventType: pulumi.Input<string>;
  /** Filter criteria, as JSON text. */
  filtersJson?: pulumi.Input<string>;
  /** Default true. */
  isActive?: pulumi.Input<boolean>;
}

/** Inputs of a {@link WebhookEndpoint}. */
export interface WebhookEndpointInputs {
  /** Absolute http(s) URL events are delivered to. */
  url: pulumi.Input<string>;
  /** The endpoint's name; defaults to the resource name. */
  name?: pulumi.Input<string>;
  /** Default true. */
  isActive?: pulumi.Input<boolean>;
  /** The events delivered (a change replaces the endpoint). */
  subscriptions: pulumi.Input<pulumi.Input<WebhookSubscriptionArgs>[]>;
  /** The organization; defaults to the `keyform:organizationId` setting. Changing it replaces the endpoint. */
  organizationId?: pulumi.Input<string>;
  /** Adopt the existing endpoint with this id instead of creating one; it is updated to match. */
  importId?: pulumi.Input<string>;
}
/** Alias of {@link WebhookEndpointInputs}, in the usual Pulumi naming. */
export type WebhookEndpointArgs = WebhookEndpointInputs;

/** The provider of {@link WebhookEndpoint}; delegates to keyform's provider runtime. */
export class WebhookEndpointProvider extends KeyformProvider {
  constructor() {
    super("WebhookEndpoint");
  }
}

const provider = new WebhookEndpointProvider();

/**
 * A webhook endpoint. In-place updates (`update_webhook_endpoint`): `url`, `name`, `isActive`.
 * Replacement: `subscriptions`, `organizationId`.
 *
 * @example
 * new keyform.WebhookEndpoint("activity-feed", { url: "https://hooks.example.com/keyform", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] });
 */
export class WebhookEndpoint extends pulumi.dynamic.Resource {
  /** The endpoint's id. */
  declare public readonly endpointId: pulumi.Output<string>;
  declare public readonly url: pulumi.Output<string>;
  declare public readonly name: pulumi.Output<string>;
  declare public readonly isActive: pulumi.Output<boolean>;
  declare public readonly subscriptions: pulumi.Output<Array<{ eventType: string; filtersJson?: string; isActive?: boolean }>>;
  declare public readonly organizationId: pulumi.Output<string>;

  constructor(name: string, args: WebhookEndpointInputs, opts?: pulumi.CustomResourceOptions) {
    super(
      provider,
      name,
      { ...args, name: args.name ?? name, isActive: args.isActive ?? true, endpointId: undefined, organizationId: args.organizationId },
      dynamicResourceOptions("WebhookEndpoint", name, opts),
      "keyform",
      "WebhookEndpoint",
    );
  }
}
