/**
 * The access diff of a pull request: the live organization's policies against the policies the
 * preview plans (live ones with the planned creates, updates, replacements and deletes of
 * keyform Policy resources applied), over the organization's users, proved with Z3
 * (`keyform/policy`'s `diffPolicies`) and rendered as a Markdown table of who gains or loses
 * what, for the pull request comment.
 */
import type { EngineEvent, Stack } from "@pulumi/pulumi/automation";
import type { KeyformClient } from "../client/client";
import { diffPolicies, type PolicyRecord } from "../policy";
import { lockoutCheck } from "../policy/smt/properties";
import { stackClient } from "./stack-client";
import { accessTableMarkdown, organizationNames } from "./access-table";

const POLICY_TYPE = /keyform:Policy$/;
const IGNORED_OPS = new Set(["same", "read", "refresh", "create-replacement", "delete-replaced", "discard-replaced"]);

/** One planned step on a Policy resource. */
interface PlannedPolicy {
  readonly op: string;
  readonly name: string;
  /** The live policy it changes or deletes. */
  readonly policyId?: string;
  readonly inputs?: Record<string, unknown>;
}

/** Collects the planned Policy steps from a preview's events. */
export class PlannedPolicies {
  private readonly steps = new Map<string, PlannedPolicy>();

  /** Pass as (part of) the preview's `onEvent`. */
  readonly onEvent = (event: EngineEvent): void => {
    const meta = event.resourcePreEvent?.metadata;
    // A replacement's own "replace" step carries the old policy and the new inputs.
    if (!meta || !POLICY_TYPE.test(meta.type) || IGNORED_OPS.has(meta.op)) return;
    const policyId = (meta.old?.outputs as { policyId?: string } | undefined)?.policyId;
    this.steps.set(meta.urn, { op: meta.op, name: meta.urn.split("::").pop() ?? meta.urn, policyId, inputs: meta.new?.inputs });
  };

  /** Whether the preview plans any change to a policy. */
  get changed(): boolean {
    return this.steps.size > 0;
  }

  /** The live policies with the planned steps applied. */
  apply(live: readonly PolicyRecord[]): PolicyRecord[] {
    const byId = new Map(live.map((p) => [p.policyId, p]));
    for (const step of this.steps.values()) {
      if (step.policyId !== undefined) byId.delete(step.policyId);
      if (step.op === "delete" || !step.inputs) continue;
      const text = (key: string) => (typeof step.inputs![key] === "string" ? (step.inputs![key] as string) : null);
      const id = step.policyId ?? `(planned) ${step.name}`;
      byId.set(id, { policyId: id, policyName: text("policyName") ?? step.name, effect: text("effect") ?? "", condition: text("condition"), consensus: text("consensus"), time: text("time") });
    }
    return [...byId.values()];
  }
}

/** What the preview's access check found: the Markdown section, and why the preview must fail (if it must). */
export interface AccessCheck {
  readonly markdown: string;
  /** A lockout, or (with `noNewAccess`) a gain or a verdict that is not proved. */
  readonly failure?: string;
}

/** The gate of the access check: `noNewAccess` fails on a proved gain and on "not proved"; `breakGlassTag` on a lockout. */
export interface AccessGate {
  readonly noNewAccess?: boolean;
  readonly breakGlassTag?: string;
}

/** The Markdown section for the pull request comment, or "" when the preview plans no policy change. */
export async function accessDiffSection(stack: Stack, planned: PlannedPolicies): Promise<string> {
  return (await accessCheck(stack, planned)).markdown;
}

/** The access section and the gate's verdict; a preview that cannot compute the diff fails under `noNewAccess`. */
export async function accessCheck(stack: Stack, planned: PlannedPolicies, gate: AccessGate = {}): Promise<AccessCheck> {
  if (!planned.changed) return { markdown: "" };
  try {
    return await provedSection(stack, planned, gate);
  } catch (error) {
    // The plan itself stands; say why the access table is missing.
    const why = error instanceof Error ? error.message : String(error);
    return { markdown: `### Access changes\n\nNot computed: ${why}\n`, ...(gate.noNewAccess ? { failure: `access diff not computed (${why}): not proved` } : {}) };
  }
}

async function provedSection(stack: Stack, planned: PlannedPolicies, gate: AccessGate): Promise<AccessCheck> {
  const client = await stackClient(stack, "the access diff of a preview");
  const live: PolicyRecord[] = (await client.listPolicies()).policies.map((p) => ({ ...p, time: p.time ?? null }));
  const roots = await rootUserIds(client);
  const listed = (await client.listUsers()).users;
  const users = listed.map((u) => ({ id: u.userId, tags: u.userTags, email: u.userEmail ?? "", alias: u.userName, root: roots.has(u.userId) }));
  const names = organizationNames(listed, (await client.listUserTags()).userTags);
  const after = planned.apply(live);
  const diff = await diffPolicies(live, after, { users, names: { ...names.tags, ...names.users } });
  const lockout = await lockoutCheck(live, after, gate.breakGlassTag);
  let markdown = accessTableMarkdown(diff, names);
  if (gate.breakGlassTag !== undefined) {
    markdown += `\n_Lockout: ${lockout.rootQuorum}; break-glass tag ${gate.breakGlassTag}: ${lockout.lost.length > 0 ? `**loses ${lockout.lost.join(", ")}**` : lockout.proved ? "keeps its policy-management access (proved)" : "keeps it as far as found (not proved)"}._\n`;
  }
  if (lockout.lost.length > 0) return { markdown, failure: `lockout: the break-glass tag ${gate.breakGlassTag} loses ${lockout.lost.join(", ")}` };
  if (gate.noNewAccess) {
    const gains = diff.changes.filter((c) => c.direction === "gains" && c.confirmed);
    if (gains.length > 0) return { markdown, failure: `--no-new-access: ${gains.length} change(s) give access` };
    if (!diff.proved) return { markdown, failure: `--no-new-access: not proved (${diff.notProved.map((n) => n.clause).join(", ")})` };
  }
  return { markdown };
}

/** The root quorum's users (never listed: the root quorum bypasses policies). */
async function rootUserIds(client: KeyformClient): Promise<Set<string>> {
  try {
    const org = (await (client as unknown as { getOrganization(): Promise<{ organizationData?: { rootQuorum?: { userIds?: string[] } } }> }).getOrganization()) ?? {};
    return new Set(org.organizationData?.rootQuorum?.userIds ?? []);
  } catch {
    return new Set();
  }
}
