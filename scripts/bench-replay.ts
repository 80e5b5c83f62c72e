/**
 * @module scripts/bench-replay
 * The replay floors of `bench-plugin`: the state keyform wrote in one run, written again by
 * providers that send no request, so the engine's cost of keyform's state can be told apart
 * from the cost of keyform's own work.
 *   NYout   the no-op plugin (`bench-noop-plugin.ts`) returning each resource's recorded id and
 *           outputs (keyed by resource name)
 *   F1out   keyform's dynamic resource types, inputs and provider-code length, served by
 *           {@link replayProvider} instead of keyform's runtime (keyed by the declared object's
 *           unique key, since a dynamic provider's create is not told the resource's name)
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { secretOutputs } from "../sdk/plugin/schema";
import { isSecret } from "../sdk/plugin/values";
import { DYNAMIC_TYPE_PREFIX, providerCode } from "../sdk/resources/provider";
import { handlerFor } from "../sdk/resources/runtime";

/** One resource's id and outputs as a replaying provider returns them. */
export interface Recorded {
  id: string;
  outputs: Record<string, unknown>;
  /** Outputs to return as secrets (the no-op plugin's reading; dynamic resources mark them by option). */
  secretKeys: string[];
}

/** A resource of an exported deployment, as far as recording needs it. */
export interface ExportedResource {
  urn: string;
  id?: string;
  custom?: boolean;
  type?: string;
  outputs?: Record<string, unknown>;
}

/** Where the dynamic host finds the replaying provider's records. */
const OUTPUTS_VARIABLE = "KFREPLAY_OUTPUTS";

/**
 * The id and outputs of every resource whose type starts with `typePrefix`, by resource name,
 * with the recorded run's prefix `from` turned into the replaying run's `to` (so names and
 * values keep their length) and each secret replaced by 64 hex digits (a private key's length:
 * the ciphertext cannot be read back), to be returned as a secret. `__provider` is left out:
 * the dynamic host adds the replaying resource's own.
 */
export function recordedOutputs(resources: readonly ExportedResource[], typePrefix: string, from: string, to: string): Record<string, Recorded> {
  const recorded: Record<string, Recorded> = {};
  for (const r of resources) {
    if (!r.custom || !r.type?.startsWith(typePrefix) || r.id === undefined) continue;
    const secretKeys: string[] = [];
    const entries = Object.entries(r.outputs ?? {})
      .filter(([key]) => key !== "__provider")
      .map(([key, value]) => {
        const secret = isSecret(value);
        if (secret) secretKeys.push(key);
        return [key, secret ? "ab".repeat(32) : value] as const;
      });
    const outputs = JSON.parse(JSON.stringify(Object.fromEntries(entries)).split(from).join(to)) as Record<string, unknown>;
    recorded[r.urn.slice(r.urn.lastIndexOf("::") + 2)] = { id: r.id, outputs, secretKeys };
  }
  return recorded;
}

/** The environment that points {@link replayProvider} at `file` (records keyed by object key). */
export function replayEnvironment(file: string): Record<string, string> {
  return { [OUTPUTS_VARIABLE]: file };
}

let records: Record<string, Recorded> | undefined;

/**
 * A dynamic provider that creates nothing: check keeps the inputs, create returns the recorded
 * id and outputs of the object whose unique key (a name, an address, an e-mail) is one of the
 * inputs, delete does nothing.
 */
export const replayProvider: pulumi.dynamic.ResourceProvider = {
  async check(_olds, news) {
    return { inputs: news };
  },
  async create(inputs: Record<string, unknown>) {
    records ??= JSON.parse(fs.readFileSync(process.env[OUTPUTS_VARIABLE] ?? "", "utf8")) as Record<string, Recorded>;
    const key = Object.values(inputs).find((v): v is string => typeof v === "string" && records![v.toLowerCase()] !== undefined);
    if (key === undefined) throw new Error("bench-replay: no recorded outputs for these inputs");
    // Secrets are marked by the resource's options, as keyform's classes mark them.
    const { id, outputs } = records[key.toLowerCase()]!;
    return { id, outs: outputs };
  },
  async delete() {},
};

/**
 * The provider code of a replaying resource, padded to the length of keyform's own for `kind`,
 * so the state is as large as keyform's.
 */
function replayCode(kind: string): string {
  const code = `exports.handler=()=>require(${JSON.stringify(path.join(__dirname, "bench-replay.js"))}).replayProvider;`;
  const keyform = providerCode(kind).length;
  return code.length + 2 < keyform ? `${code}//${"x".repeat(keyform - code.length - 2)}` : code;
}

/** A resource of keyform's dynamic type for `kind`, served by {@link replayProvider}. */
export class ReplayResource extends pulumi.CustomResource {
  constructor(kind: string, name: string, args: Record<string, unknown>) {
    const secrets = secretOutputs(handlerFor(kind).spec);
    super(`${DYNAMIC_TYPE_PREFIX}${kind}`, name, { ...args, __provider: replayCode(kind) }, secrets.length > 0 ? { additionalSecretOutputs: secrets } : undefined);
  }
}
