/**
 * @module resources/runtime/org-after-plan
 * The organization as it will be once a plan is applied, in the parts that decide whether the
 * deploying credential still gets in (`deployer-access.ts`): the policies, the deploying user's
 * tags (UserTag `userIds`), the IP allowlists that can apply to the deploying key, the root
 * quorum, and the objects the stack manages. Built from the organization as this run first read
 * it (`before`) with each resource of the plan laid over it, in the program's order.
 *
 * Which IP allowlist applies follows the service's activation rule, as the emulator enforces it
 * (`sdk/emulator/handlers/ip-allowlists.ts`, documented in `sdk/emulator/README.md`, "IP
 * allowlists"): the deploying key's own list when it has one and the organization-level list
 * is enabled, else the organization-level list when enabled, else none. So an organization-level
 * list the plan adds switches the key's own list on, and removing it switches it off.
 */
import type { PolicyRecord } from "../../policy/engine";
import type { Session } from "./client";
import { sameKey, type DeployingUser } from "./lockout";
import { lockoutCensusOf } from "./lockout-census";
import { unlessNotFound } from "./lookups";
import { before } from "./shared-reads";
import { containsUnknown } from "./values";

/** One resource of the plan, as its `check` saw it. */
export interface PlannedObject {
  readonly kind: string;
  /** The resource's name in the program. */
  readonly name: string;
  readonly inputs: Record<string, unknown>;
  /** The inputs of the previous run (empty for a resource the plan creates). */
  readonly olds: Record<string, unknown>;
  /** The activity kinds this plan's own step submits for it (its create, update or replace); none when the plan leaves it as it is. */
  readonly kinds?: readonly string[];
}

/** An IP allowlist after the plan, and what put it there. */
export interface AllowlistAfter {
  readonly rules: ReadonlyArray<{ cidr: string }>;
  /** Organization-level lists only; a key's own list is on whenever the organization-level one is. */
  readonly enabled: boolean;
  /** `IpAllowlist "name"` when the plan declares it; undefined for a list that exists and the plan leaves alone. */
  readonly declaredBy?: string;
}

/** A policy after the plan, with the resource that declares it when the plan does. */
export interface PolicyAfter extends PolicyRecord {
  readonly declaredBy?: string;
}

/** What an object the stack manages is called on the service, when it exists already. */
export interface ManagedObject extends PlannedObject {
  /** The object's id on the service (undefined for one the plan creates). */
  readonly id?: string;
}

/** The organization after the plan, as far as the deploying credential's access goes. */
export interface OrganizationAfterPlan {
  readonly policies: readonly PolicyAfter[];
  /** The public key of the deploying API key. */
  readonly deployerKey: string;
  /** The deploying user, with the tags it holds after the plan. */
  readonly deployer: DeployingUser;
  readonly organizationList?: AllowlistAfter;
  /** The deploying key's own list. */
  readonly keyList?: AllowlistAfter;
  readonly rootQuorum: { readonly userIds: readonly string[]; readonly threshold: number; readonly declaredBy?: string };
  /** The objects the stack manages after the plan, in the program's order. */
  readonly managed: readonly ManagedObject[];
}

/** The IP allowlist that applies to the deploying key, and which one it is, under the service's activation rule. */
export function allowlistInForce(org: Pick<OrganizationAfterPlan, "organizationList" | "keyList">): { which: "key" | "organization"; list: AllowlistAfter } | undefined {
  const organizationOn = org.organizationList !== undefined && org.organizationList.enabled;
  if (organizationOn && org.keyList !== undefined) return { which: "key", list: org.keyList };
  if (organizationOn) return { which: "organization", list: org.organizationList! };
  return undefined;
}

/** The organization-level IP allowlist and the deploying key's own, where they exist. */
export interface AllowlistsToday {
  readonly organization?: AllowlistAfter;
  readonly key?: AllowlistAfter;
}

/** The allowlists that exist before the plan: the organization-level one and the deploying key's own, read once per run. */
export function allowlistsToday(session: Session): Promise<AllowlistsToday> {
  const cache = lockoutCensusOf<AllowlistsToday>(session.context).allowlistsBefore;
  const cacheKey = `${session.organizationId}|${session.credentialPublicKey.toLowerCase()}`;
  let reading = cache.get(cacheKey);
  if (reading === undefined) {
    reading = (async () => {
      const read = (publicKey?: string) => unlessNotFound(async () => (await session.client.getIpAllowlist(publicKey === undefined ? {} : { publicKey })).allowlist);
      const [organization, key] = await Promise.all([read(), read(session.credentialPublicKey)]);
      return {
        organization: organization === undefined ? undefined : { rules: organization.rules, enabled: organization.enabled !== false },
        key: key === undefined ? undefined : { rules: key.rules, enabled: true },
      };
    })();
    reading.catch(() => cache.delete(cacheKey));
    cache.set(cacheKey, reading);
  }
  return reading;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const label = (o: PlannedObject) => `${o.kind} ${JSON.stringify(o.name)}`;

/** The names and ids the object went by before this plan (its old and new name, its importId), to find it among today's objects. */
function identities(o: PlannedObject, nameField: string): { names: Set<string>; importId?: string } {
  const names = new Set([str(o.olds[nameField]), str(o.inputs[nameField])].filter((n): n is string => n !== undefined));
  return { names, importId: str(o.inputs.importId) ?? str(o.olds.importId) };
}

const POLICY_FIELDS = ["policyName", "effect", "condition", "consensus", "time"] as const;
/** The inputs of each kind that decide access; while one is unknown (preview of a value the plan computes), the organization after the plan is not known yet. */
const DECIDING_INPUTS: Readonly<Record<string, readonly string[]>> = {
  Policy: POLICY_FIELDS,
  UserTag: ["userTagName", "userIds"],
  RootQuorum: ["userIds", "threshold"],
  IpAllowlist: ["publicKey", "enabled", "rules"],
};

/**
 * The organization after `planned` is applied, for `deployer` signing with `session`'s key;
 * undefined while an input that decides access is unknown (it is decided at `up`).
 */
export async function organizationAfterPlan(
  session: Session,
  deployer: DeployingUser,
  planned: readonly PlannedObject[],
  deletingAllowlist = false,
): Promise<OrganizationAfterPlan | undefined> {
  if (planned.some((o) => (DECIDING_INPUTS[o.kind] ?? []).some((f) => containsUnknown(o.inputs[f])))) return undefined;
  const today = await organizationToday(session, deployer, [], deletingAllowlist || planned.some((o) => o.kind === "IpAllowlist"));
  const tagsToday = await before.userTags(session);
  let policies: PolicyAfter[] = [...today.policies];
  const tags = new Set(deployer.userTags);
  let { rootQuorum, organizationList, keyList } = today;
  const managed: ManagedObject[] = [];

  for (const o of planned) {
    if (o.kind === "Policy") {
      const { names, importId } = identities(o, "policyName");
      const earlier = policies.find((p) => p.policyId === importId || names.has(p.policyName ?? ""));
      policies = policies.filter((p) => p !== earlier);
      const id = earlier?.policyId;
      policies.push({
        policyId: id ?? `planned:${o.name}`,
        policyName: o.inputs.policyName as string,
        effect: o.inputs.effect as string,
        condition: str(o.inputs.condition) ?? null,
        consensus: str(o.inputs.consensus) ?? null,
        time: str(o.inputs.time) ?? null,
        declaredBy: label(o),
      });
      managed.push({ ...o, id });
    } else if (o.kind === "UserTag") {
      const { names, importId } = identities(o, "userTagName");
      const earlier = tagsToday.find((t) => t.tagId === importId || names.has(t.tagName));
      // A tag the plan creates has no id yet: no policy of the organization can name it.
      const tagId = earlier?.tagId ?? `planned:${o.name}`;
      const members = Array.isArray(o.inputs.userIds) ? (o.inputs.userIds as string[]) : [];
      if (members.includes(deployer.userId)) tags.add(tagId);
      else tags.delete(tagId);
      managed.push({ ...o, id: earlier?.tagId });
    } else if (o.kind === "RootQuorum") {
      rootQuorum = {
        userIds: (o.inputs.userIds as string[] | undefined) ?? rootQuorum.userIds,
        threshold: (o.inputs.threshold as number | undefined) ?? rootQuorum.threshold,
        declaredBy: label(o),
      };
      managed.push(o);
    } else if (o.kind === "IpAllowlist") {
      const publicKey = o.inputs.publicKey;
      const list = { rules: (o.inputs.rules as Array<{ cidr: string }>) ?? [], enabled: publicKey === undefined ? o.inputs.enabled !== false : true, declaredBy: label(o) };
      if (publicKey === undefined) organizationList = list;
      else if (sameKey(publicKey, session.credentialPublicKey)) keyList = list;
      managed.push({ ...o, id: str(publicKey) ?? "organization" });
    } else {
      managed.push({ ...o, id: str(o.inputs.importId) });
    }
  }
  return { policies, deployerKey: session.credentialPublicKey, deployer: { ...deployer, userTags: [...tags] }, organizationList, keyList, rootQuorum, managed };
}

/**
 * The organization as it is before the plan, with `managed` as the objects asked about: what the
 * deploying credential could not do already is not the plan's doing.
 */
export async function organizationToday(
  session: Session,
  deployer: DeployingUser,
  managed: readonly ManagedObject[],
  readAllowlists = managed.some((o) => o.kind === "IpAllowlist"),
): Promise<OrganizationAfterPlan> {
  // A plan that neither declares nor deletes an IP allowlist leaves the lists as they are, and the
  // key has just been let in by them: they decide nothing here, so they are not read (two
  // requests a run, at the plan's rate).
  const lists = readAllowlists ? allowlistsToday(session) : Promise.resolve<AllowlistsToday>({});
  const [policies, { organizationData }, today] = await Promise.all([before.policies(session), before.organization(session), lists]);
  const quorum = organizationData.rootQuorum as { userIds?: string[]; threshold?: number } | undefined;
  return {
    policies: policies.map((p) => ({
      policyId: p.policyId,
      policyName: p.policyName,
      effect: p.effect,
      condition: p.condition || null,
      consensus: p.consensus || null,
      time: (p as { time?: string }).time || null,
    })),
    deployerKey: session.credentialPublicKey,
    deployer,
    organizationList: today.organization,
    keyList: today.key,
    rootQuorum: { userIds: quorum?.userIds ?? [], threshold: quorum?.threshold ?? 1 },
    managed,
  };
}

/** The organization once `object` is deleted (a step of a destroy, or a delete the plan makes). */
export function withoutObject(org: OrganizationAfterPlan, object: ManagedObject): OrganizationAfterPlan {
  const managed = org.managed.filter((m) => m !== object);
  if (object.kind === "Policy") {
    return { ...org, managed, policies: org.policies.filter((p) => (object.id === undefined ? p.declaredBy !== label(object) : p.policyId !== object.id)) };
  }
  if (object.kind === "UserTag") {
    const tagId = object.id ?? `planned:${object.name}`;
    return { ...org, managed, deployer: { ...org.deployer, userTags: org.deployer.userTags.filter((t) => t !== tagId) } };
  }
  if (object.kind === "IpAllowlist") {
    const publicKey = object.inputs.publicKey;
    if (publicKey === undefined) return { ...org, managed, organizationList: undefined };
    if (org.keyList !== undefined && sameKey(publicKey, org.deployerKey)) return { ...org, managed, keyList: undefined };
  }
  return { ...org, managed };
}
