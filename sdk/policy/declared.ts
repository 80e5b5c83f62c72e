/**
 * @module policy/declared
 * Reads policies from the JSON shapes a project has at hand: a list of policies, `{policies:
 * [...]}` (the list_policies response, a create_policies intent), a single policy, or a
 * `pulumi stack export` document (the outputs of its keyform Policy resources).
 */
import type { PolicyRecord } from "./engine";

const POLICY_TYPE = /keyform:Policy$/;

function record(value: unknown, where: string): PolicyRecord {
  if (typeof value !== "object" || value === null) throw new TypeError(`${where}: expected a policy object`);
  const p = value as Record<string, unknown>;
  const text = (name: string): string | undefined => {
    const v = p[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string") throw new TypeError(`${where}.${name}: expected a string`);
    return v;
  };
  const policyName = text("policyName");
  const policyId = text("policyId") ?? policyName;
  if (!policyId) throw new TypeError(`${where}: a policy needs a policyName or a policyId`);
  const effect = text("effect");
  if (effect !== "EFFECT_ALLOW" && effect !== "EFFECT_DENY") {
    throw new TypeError(`${where}.effect: expected EFFECT_ALLOW or EFFECT_DENY, got ${JSON.stringify(p.effect)}`);
  }
  return { policyId, policyName: policyName ?? policyId, effect, condition: text("condition") ?? null, consensus: text("consensus") ?? null, time: text("time") ?? null };
}

/**
 * The policies in a parsed JSON document.
 * @param source name of the document, for messages
 * @throws TypeError naming the entry that is not a policy
 */
export function declaredPolicies(document: unknown, source: string): PolicyRecord[] {
  if (Array.isArray(document)) return document.map((p, i) => record(p, `${source}[${i}]`));
  if (typeof document !== "object" || document === null) throw new TypeError(`${source}: expected a policy, a list of policies or {policies: [...]}`);
  const doc = document as Record<string, unknown>;
  if (Array.isArray(doc.policies)) return doc.policies.map((p, i) => record(p, `${source}.policies[${i}]`));
  const deployment = doc.deployment as { resources?: unknown } | undefined;
  if (deployment && Array.isArray(deployment.resources)) {
    return deployment.resources
      .map((r, i) => [r as { type?: unknown; outputs?: unknown; inputs?: unknown }, i] as const)
      .filter(([r]) => typeof r.type === "string" && POLICY_TYPE.test(r.type))
      .map(([r, i]) => record({ ...(r.inputs as object), ...(r.outputs as object) }, `${source}.deployment.resources[${i}]`));
  }
  return [record(document, source)];
}
