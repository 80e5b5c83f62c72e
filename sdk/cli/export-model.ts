/**
 * @module cli/export-model
 * Reads a live organization into the resources of a keyform program: one entry per object,
 * with the inputs that reproduce it and its id as `importId`. The inputs come from the
 * resources' own `read` (the same code `pulumi refresh` runs), so the program they make
 * declares exactly what the providers compare: the first `up` adopts every object without
 * changing it, and later previews report no changes.
 */
import type { KeyformClient } from "../client/client";
import { configure, handlers } from "../resources/runtime";

/** One resource of the exported program. */
export interface ExportedResource {
  /** The keyform class, e.g. `UserTag`. */
  readonly className: string;
  /** The Pulumi resource name (unique per class). */
  readonly name: string;
  /** Declared inputs, `importId` last. */
  readonly inputs: Readonly<Record<string, unknown>>;
}

/** An object to export: its id, what `read` needs to find it, and a label to name it by. */
interface Found {
  readonly id: string;
  readonly hint: Record<string, unknown>;
  readonly label: string;
}

/** How to list the objects of one class (the order of this table is the order in the program). */
interface ExportedKind {
  readonly className: string;
  list(client: KeyformClient, skipApiKey: string | undefined): Promise<Found[]>;
}

const KINDS: readonly ExportedKind[] = [
  {
    className: "UserTag",
    async list(client) {
      const { userTags } = await client.listUserTags({});
      return userTags.filter((t) => t.tagType === "TAG_TYPE_USER").map((t) => ({ id: t.tagId, hint: {}, label: t.tagName }));
    },
  },
  {
    className: "Policy",
    async list(client) {
      const { policies } = await client.listPolicies({});
      return policies.map((p) => ({ id: p.policyId, hint: {}, label: p.policyName }));
    },
  },
  {
    className: "ApiKey",
    async list(client, skipApiKey) {
      const { users } = await client.listUsers({});
      return users.flatMap((u) =>
        u.apiKeys
          .filter((k) => k.credential.publicKey.toLowerCase() !== skipApiKey)
          .map((k) => ({ id: k.apiKeyId, hint: { userId: u.userId }, label: `${u.userName}-${k.apiKeyName}` })),
      );
    },
  },
  {
    className: "Invitation",
    async list(client) {
      const { organizationData } = await client.getOrganization({});
      return (organizationData.invitations ?? [])
        .filter((i) => i.status !== "INVITATION_STATUS_REVOKED")
        .map((i) => ({ id: i.invitationId, hint: {}, label: i.receiverEmail }));
    },
  },
  {
    className: "SmartContractInterface",
    async list(client) {
      const { smartContractInterfaces } = await client.listSmartContractInterfaces({});
      return smartContractInterfaces.map((s) => ({ id: s.smartContractInterfaceId, hint: {}, label: s.label }));
    },
  },
];

/** A Pulumi resource name from a label: lowercase words joined by dashes. */
function slug(label: string, fallback: string): string {
  const words = label.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  return words === "" ? fallback : words.slice(0, 60);
}

/**
 * Every tag, policy, API key, invitation and smart contract interface of the client's
 * organization, as resources adopted by `importId`. The API key the export runs with is left
 * out (`skipApiKey`): a program that adopts its own credential would delete it on destroy.
 * Settings must be in the environment (`KEYFORM_*`): the reads run through the providers' code.
 */
export async function exportOrganization(client: KeyformClient, skipApiKey?: string): Promise<ExportedResource[]> {
  configure({ config: { get: () => undefined } });
  const resources: ExportedResource[] = [];
  // Unique across classes: a Pulumi YAML program names every resource in one namespace.
  const taken = new Set<string>();
  for (const kind of KINDS) {
    const handler = handlers[kind.className]!;
    for (const found of await kind.list(client, skipApiKey?.toLowerCase())) {
      const read = await handler.read(found.id, found.hint);
      if (read.id === "" || read.inputs === undefined) continue; // gone meanwhile
      const { organizationId: _organizationId, importId: _importId, ...readInputs } = read.inputs as Record<string, unknown>;
      // An empty text is how the service reports an unset optional field; leaving it out reads better.
      const inputs = Object.fromEntries(Object.entries(readInputs).filter(([, value]) => value !== ""));
      let name = slug(found.label, kind.className.toLowerCase());
      for (let n = 2; taken.has(name); n++) name = `${slug(found.label, kind.className.toLowerCase())}-${n}`;
      taken.add(name);
      resources.push({ className: kind.className, name, inputs: { ...inputs, importId: found.id } });
    }
  }
  return resources;
}
