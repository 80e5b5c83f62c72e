/**
 * @module resources/runtime/credential-deletes
 * The preview-time half of "never delete the credentials keyform deploys with". The engine plans
 * the delete of a resource removed from the program without calling the provider (it never
 * calls `Delete` at preview: pulumi/pulumi#13576, and the protocol has no preview delete,
 * pulumi/pulumi#16004), so no provider can refuse it during `pulumi preview`; the provider
 * refuses it at `up`, before the request is sent (`lockout.ts`). A program that drives the
 * engine through the Automation API sees the planned steps, though: this collects, from a
 * preview's events, the deletes (a removal, or the delete half of a replacement) of ApiKey and
 * User resources, and names those that are the API key keyform signs with or the user it
 * belongs to. The GitOps runner's preview and `scripts/org-up` fail on them.
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import type { KeyformClient } from "../../client";

/** keyform's ApiKey and User resources on both front doors (dynamic providers and the plugin). */
const CREDENTIAL_TYPE = /(?:^keyform:index:|\/keyform:)(ApiKey|User)$/;
/** Steps that delete the old object: a removal, a delete-before-replace, a replacement's delete. */
const DELETING_OPS = new Set(["delete", "replace", "delete-replaced"]);

/** One planned delete of an ApiKey or User. */
export interface PlannedCredentialDelete {
  readonly kind: "ApiKey" | "User";
  readonly urn: string;
  readonly op: string;
  /** The object's id in the organization. */
  readonly id: string;
  /** An ApiKey's public key (hex), as recorded in state. */
  readonly publicKey?: string;
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/** Collects the planned deletes of ApiKey and User resources from a preview's (or up's) events. */
export class PlannedCredentialDeletes {
  private readonly deletes = new Map<string, PlannedCredentialDelete>();

  /** Pass as (part of) the preview's `onEvent`. */
  readonly onEvent = (event: EngineEvent): void => {
    const meta = event.resourcePreEvent?.metadata;
    if (meta === undefined || !DELETING_OPS.has(meta.op)) return;
    const kind = CREDENTIAL_TYPE.exec(meta.type)?.[1] as "ApiKey" | "User" | undefined;
    if (kind === undefined || meta.old === undefined) return;
    const outputs = (meta.old.outputs ?? {}) as Record<string, unknown>;
    const inputs = (meta.old.inputs ?? {}) as Record<string, unknown>;
    const id = text(meta.old.id) ?? text(outputs.apiKeyId) ?? text(outputs.userId) ?? "";
    const publicKey = text(outputs.publicKey) ?? text(inputs.publicKey);
    this.deletes.set(`${meta.urn}|${meta.op}`, { kind, urn: meta.urn, op: meta.op, id, ...(publicKey !== undefined ? { publicKey } : {}) });
  };

  /** Every planned delete seen so far. */
  get planned(): readonly PlannedCredentialDelete[] {
    return [...this.deletes.values()];
  }

  /**
   * Why the plan would lock the deploying credentials out: one message per planned delete of the
   * API key `apiPublicKey`, or of the user it belongs to (read through `client`, which signs with it).
   */
  async lockouts(client: Pick<KeyformClient, "listUsers">, apiPublicKey: string): Promise<string[]> {
    if (this.deletes.size === 0) return [];
    const sameKey = (k: string | undefined) => k !== undefined && k.toLowerCase() === apiPublicKey.toLowerCase();
    const users = (await client.listUsers({})).users;
    const owner = users.find((u) => u.apiKeys.some((k) => sameKey(k.credential.publicKey)));
    const ownKeyIds = new Set(owner?.apiKeys.filter((k) => sameKey(k.credential.publicKey)).map((k) => k.apiKeyId) ?? []);
    const found: string[] = [];
    for (const d of this.deletes.values()) {
      const step = d.op === "delete" ? "deletes" : "replaces (deleting)";
      if (d.kind === "ApiKey" && (sameKey(d.publicKey) || ownKeyIds.has(d.id))) {
        found.push(`ApiKey ${d.id} [${d.urn}]: this plan ${step} the API key keyform signs with (keyform:apiPublicKey), which would lock this stack out of its organization`);
      }
      if (d.kind === "User" && owner !== undefined && d.id === owner.userId) {
        found.push(`User ${d.id} (${JSON.stringify(owner.userName)}) [${d.urn}]: this plan ${step} the user the API key keyform signs with belongs to, which would lock this stack out of its organization`);
      }
    }
    return found;
  }
}
