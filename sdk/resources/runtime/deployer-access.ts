/**
 * @module resources/runtime/deployer-access
 * Lockout-freedom as one proof over the organization after the plan (`org-after-plan.ts`): the
 * deploying API key, from the address the service sees it at, can still
 *
 * 1. read: the IP allowlist in force for the key after the plan (the service's activation rule)
 *    lets that address in;
 * 2. carry out this plan: each request this plan's own steps submit that applying it again does
 *    not (a create, both halves of a replace; `needed-activities.ts`) is allowed in the
 *    organization the plan leaves (the engine's order of the steps is not known here);
 * 3. apply this plan again: each request keyform submits to put an object of the plan back
 *    (`deployer-requests.ts`) is allowed to the deploying user alone;
 * 4. destroy everything the stack manages: each delete, in {@link destroyOrder}, is allowed in
 *    the organization the earlier deletes leave (deleting an organization-level allowlist
 *    switches per-key lists off; deleting a policy or a tag takes what it granted with it).
 *
 * Each request is decided by the evaluator the emulator enforces (`simulate` of `sdk/policy`),
 * with the deploying user's tags after the plan as approver and its API key as credential; a
 * user who alone is the root quorum (threshold 1) bypasses policies, a member of a larger quorum
 * runs only what a policy allows, and so does a user the quorum after the plan leaves out. A
 * refused request is the witness: its type, parameters and the evaluator's outcome. Whatever
 * is blocked, a plan gets one refusal: the first blocked request with its witness, then the
 * others by name. The deploying key and user themselves are left out of the destroy:
 * keyform refuses to delete them (`lockout.ts`). Only what the plan takes away is refused: a
 * request the organization refuses today already (every write of a root quorum above threshold
 * 1, say) is the same before and after, and not the plan's doing.
 */
import { simulate } from "../../policy/simulate";
import type { CheckFailure } from "./check";
import type { Session } from "./client";
import type { RunContext } from "./run-types";
import { lockoutCensusOf } from "./lockout-census";
import { allowedBy, callerAddress, deployingUser, OPT_OUT, sameKey } from "./lockout";
import { applyRequests, deleteRequests, stepRequests, type DeployerRequest } from "./deployer-requests";
import { allowlistInForce, organizationAfterPlan, organizationToday, withoutObject, type ManagedObject, type OrganizationAfterPlan, type PlannedObject } from "./org-after-plan";
import { ProviderError } from "./errors";
import type { Settings } from "./settings";
import { before } from "./shared-reads";

/** What the deploying credential must still be able to do. */
export type Goal = "read" | "carry out this plan" | "apply this plan again" | "destroy what this stack manages";

/** One thing the deploying credential could not do after the plan, with a request that shows it. */
export interface Blocked {
  readonly goal: Goal;
  /** The activity type (or, for a read, the query) that would be refused. */
  readonly activity: string;
  /** The resource it is for (`Policy "admins"`), if any. */
  readonly object?: string;
  /** The request and the service's answer to it. */
  readonly witness: string;
}

/** The answer for one request: allowed, or why not. */
function decideRequest(org: OrganizationAfterPlan, publicKey: string, credentialType: string, req: DeployerRequest): { allowed: true } | { allowed: false; outcome: string } {
  const { deployer, rootQuorum } = org;
  const member = rootQuorum.userIds.includes(deployer.userId);
  if (member && rootQuorum.threshold <= 1) return { allowed: true };
  const decision = simulate(org.policies, {
    type: req.type,
    parameters: req.parameters,
    approvers: [{ id: deployer.userId, tags: deployer.userTags, email: deployer.userEmail, alias: deployer.userName }],
    credentials: [{ type: credentialType, user_id: deployer.userId, public_key: publicKey }],
    ownCredentials: !member && req.ownCredentials === true,
  });
  if (decision.outcome === "OUTCOME_ALLOW") return { allowed: true };
  // A root quorum the plan declares is what put the user where it stands: say so.
  const by = rootQuorum.declaredBy === undefined ? "" : ` of ${rootQuorum.declaredBy}`;
  if (member) return { allowed: false, outcome: `${decision.outcome}: it would wait for the root quorum${by} (threshold ${rootQuorum.threshold}) (${decision.reason})` };
  const answer = decision.outcome === "OUTCOME_REQUIRES_CONSENSUS" ? "it would wait for approvals" : "403 code 7";
  const outside = by === "" ? "" : `; the root quorum${by} leaves the user out`;
  return { allowed: false, outcome: `${decision.outcome}: ${answer} (${decision.reason})${outside}` };
}

/** Why the key cannot reach the service at all after `org`, if it cannot. */
function readBlocked(org: OrganizationAfterPlan, address: string | undefined): string | undefined {
  const inForce = allowlistInForce(org);
  if (inForce === undefined) return undefined;
  const which = inForce.which === "key" ? "the IP allowlist of the API key keyform signs with" : "the organization-level IP allowlist";
  const by = inForce.list.declaredBy === undefined ? "" : ` (the list is declared by ${inForce.list.declaredBy})`;
  const switched =
    inForce.which === "key" && org.organizationList?.declaredBy !== undefined
      ? `; it is in force because ${org.organizationList.declaredBy}, the enabled organization-level list, switches per-key lists on`
      : "";
  if (address === undefined) {
    return `${which} cannot be proved to let keyform in: the service did not say which address it sees this client from (no x-rate-limit-request-remote-addr)${by}${switched}`;
  }
  if (allowedBy(inForce.list.rules, address)) return undefined;
  return `${which} leaves out ${address}, the address the service sees keyform's requests from: every request, a query like get_organization included, would be refused with 403 code 7${by}${switched}`;
}

const describeRequest = (req: DeployerRequest, org: OrganizationAfterPlan) =>
  `${req.type} ${JSON.stringify(req.parameters)} submitted by user ${JSON.stringify(org.deployer.userName)} (${org.deployer.userId}) alone`;

/**
 * Everything the deploying credential could not do once `org` is in place, from `address`:
 * the read first (when it fails, nothing else is asked), then each request of the plan's own
 * steps, then each request to apply the plan again, then the destroy in {@link destroyOrder}. With `only` (`Policy "x"`), the
 * requests of that object alone are decided (the destroy still steps through the others).
 */
export function blockedAfterPlan(org: OrganizationAfterPlan, publicKey: string, credentialType: string, address: string | undefined, only?: string): Blocked[] {
  const read = readBlocked(org, address);
  if (read !== undefined) return [{ goal: "read", activity: "get_organization", witness: read }];
  const blocked: Blocked[] = [];
  const label = (o: ManagedObject) => `${o.kind} ${JSON.stringify(o.name)}`;
  const own = (o: ManagedObject) =>
    (o.kind === "ApiKey" && sameKey(o.inputs.publicKey, publicKey)) ||
    (o.kind === "User" && o.id === org.deployer.userId);
  const asked = (o: ManagedObject) => only === undefined || label(o) === only;
  for (const object of org.managed.filter(asked)) {
    // A step that sends what applying the plan again sends (an update) is asked once, as the latter:
    // the step itself goes out before the plan takes effect.
    const again = new Set(applyRequests(object, org.deployer.userId).map((r) => r.type));
    for (const req of stepRequests(object, object.kinds ?? [], org.deployer.userId)) {
      if (again.has(req.type)) continue;
      const answer = decideRequest(org, publicKey, credentialType, req);
      if (!answer.allowed) blocked.push({ goal: "carry out this plan", activity: req.type, object: label(object), witness: `${describeRequest(req, org)}: ${answer.outcome}` });
    }
  }
  for (const object of org.managed.filter(asked)) {
    for (const req of applyRequests(object, org.deployer.userId)) {
      const answer = decideRequest(org, publicKey, credentialType, req);
      if (!answer.allowed) blocked.push({ goal: "apply this plan again", activity: req.type, object: label(object), witness: `${describeRequest(req, org)}: ${answer.outcome}` });
    }
  }
  let state = org;
  for (const object of destroyOrder(org.managed)) {
    if (own(object) || !asked(object)) {
      state = withoutObject(state, object);
      continue;
    }
    const stepRead = readBlocked(state, address);
    if (stepRead !== undefined) {
      blocked.push({ goal: "destroy what this stack manages", activity: "get_organization", object: label(object), witness: `once the deletes before it are done, ${stepRead}` });
      break;
    }
    const refused = deleteRequests(object, org.deployer.userId).flatMap((req) => {
      const answer = decideRequest(state, publicKey, credentialType, req);
      return answer.allowed ? [] : [{ goal: "destroy what this stack manages" as const, activity: req.type, object: label(object), witness: `${describeRequest(req, state)}: ${answer.outcome}` }];
    });
    blocked.push(...refused);
    // A refused delete leaves its object (and what it grants) in place for the deletes after it.
    if (refused.length === 0) state = withoutObject(state, object);
  }
  return blocked;
}

/** Where a delete goes in {@link destroyOrder}: first what only ever opens access, last what grants it. */
function destroyRank(o: ManagedObject): number {
  if (o.kind === "IpAllowlist") return 0;
  if (o.kind === "Policy") return o.inputs.effect === "EFFECT_DENY" ? 2 : 4;
  if (o.kind === "UserTag") return 3;
  return 1;
}

/**
 * The order the proof plays a destroy in, and the one a stack should give its resources
 * (`dependsOn`) when its own policies are what let the deployer delete the rest: IP allowlists
 * (removing one never shuts a key out), the other objects, DENY policies, user tags, and ALLOW
 * policies last (an ALLOW may grant its own delete). Within each group, by resource name.
 */
export function destroyOrder(managed: readonly ManagedObject[]): ManagedObject[] {
  return [...managed].sort((a, b) => destroyRank(a) - destroyRank(b) || a.name.localeCompare(b.name));
}

const blockedActivity = (b: Blocked) => (b.object === undefined ? b.activity : `${b.activity} for ${b.object}`);

/**
 * The one refusal for everything `blocked` holds: the first blocked request, its goal and its
 * witness; then the others, by goal and activity.
 */
export function refusalOf(blocked: readonly Blocked[], organizationId: string): string {
  const [first, ...rest] = blocked;
  if (first === undefined) throw new Error("refusalOf: nothing is blocked");
  const also = rest.length === 0 ? "" : ` Also refused: ${rest.map((b) => `${b.goal}: ${blockedActivity(b)}`).join("; ")}.`;
  return (
    `after this plan the deploying API key could not ${first.goal} in organization ${organizationId}: ${blockedActivity(first)} would be refused. ` +
    `Witness: ${first.witness}.${also} Change the plan so it keeps that access, or ${OPT_OUT}`
  );
}

/** The kinds whose objects decide access: a change to one of them asks the whole proof again. */
const ACCESS_KINDS = new Set(["Policy", "UserTag", "RootQuorum", "IpAllowlist"]);

/** One resource's part in the plan, for the proof. */
export interface PlannedStepOf extends PlannedObject {
  readonly urn: string;
  /** Whether the plan creates or changes it. */
  readonly changed: boolean;
  /** The property a failure is reported on. */
  readonly property: string;
}

/** The plan so far of one organization, by URN (`lockout-census.ts`). */
function plannedSoFar(context: RunContext, organizationId: string): Map<string, PlannedStepOf> {
  const all = lockoutCensusOf(context).plannedObjects;
  let inner = all.get(organizationId) as Map<string, PlannedStepOf> | undefined;
  if (inner === undefined) all.set(organizationId, (inner = new Map()));
  return inner;
}

/**
 * Adds one checked resource to the plan and, once the plan changes something that decides
 * access, proves the deploying credential keeps it. A resource that decides access reports
 * everything blocked; any other resource what is blocked for itself. None with `allowLockout`.
 */
export async function deployerAccessFailures(session: Session, planned: PlannedStepOf, settings: Settings): Promise<CheckFailure[]> {
  if (settings.allowLockout) return [];
  const plan = plannedSoFar(session.context, session.organizationId);
  plan.set(planned.urn, planned);
  if (![...plan.values()].some((p) => p.changed && ACCESS_KINDS.has(p.kind))) return [];
  const decidesAccess = ACCESS_KINDS.has(planned.kind) && planned.changed;
  const only = decidesAccess ? undefined : `${planned.kind} ${JSON.stringify(planned.name)}`;
  const around = await blockedAround(session, [...plan.values()], only);
  if (around === "user not visible") {
    if (!decidesAccess) return [];
    return [{ property: planned.property, reason: `not proved that the deploying API key keeps its access after this plan: the user it belongs to is not visible to it; ${OPT_OUT}` }];
  }
  const blocked = takenAway(around);
  // The read concerns the whole plan: the resource that decides access reports it.
  const reported = decidesAccess ? blocked : blocked.filter((b) => b.goal !== "read");
  return reported.length === 0 ? [] : [{ property: planned.property, reason: refusalOf(reported, session.organizationId) }];
}

/**
 * What the deploying credential of `session` could not do once `planned` is applied (`[]`: it
 * keeps its access); `[]` too while an input that decides access is unknown (decided at `up`).
 */
export async function blockedForPlan(session: Session, planned: readonly PlannedObject[], only?: string): Promise<Blocked[] | "user not visible"> {
  const found = await blockedAround(session, planned, only);
  return found === "user not visible" ? found : found.after;
}

/** What is blocked after the plan, and what of that was blocked before it already (the same requests in today's organization). */
async function blockedAround(session: Session, planned: readonly PlannedObject[], only?: string): Promise<{ after: Blocked[]; today: Blocked[] } | "user not visible"> {
  const user = await deployingUser(session);
  if (user === undefined) return "user not visible";
  const org = await organizationAfterPlan(session, user, planned);
  if (org === undefined) return { after: [], today: [] };
  const credentialType = await credentialTypeOf(session);
  const address = await callerAddress(session);
  const after = blockedAfterPlan(org, session.credentialPublicKey, credentialType, address, only);
  if (after.length === 0) return { after, today: [] };
  // org.managed holds every planned object, so today's lists are read exactly when the plan's are.
  const today = blockedAfterPlan(await organizationToday(session, user, org.managed), session.credentialPublicKey, credentialType, address, only);
  return { after, today };
}

const sameBlock = (a: Blocked, b: Blocked) => a.goal === b.goal && a.object === b.object && a.activity === b.activity;

/** What the plan takes away: blocked after it, not blocked before it. */
const takenAway = (around: { after: Blocked[]; today: Blocked[] }) => around.after.filter((b) => !around.today.some((t) => sameBlock(t, b)));

/** The credential type of the deploying API key, as policies see it (`credentials.type`). */
async function credentialTypeOf(session: Session): Promise<string> {
  const users = await before.users(session);
  for (const u of users) {
    const key = u.apiKeys.find((k) => sameKey(k.credential.publicKey, session.credentialPublicKey));
    if (key !== undefined) return key.credential.type;
  }
  return "CREDENTIAL_TYPE_API_KEY_P256";
}

/** An object a plan deletes because the program no longer declares it: its kind, its id and its recorded outputs. */
export interface DeletedObject {
  readonly kind: string;
  readonly id: string;
  readonly props: Record<string, unknown>;
}

/** Whether deleting an object of `kind` can take access away (a Policy, UserTag, RootQuorum or IpAllowlist). */
export const isAccessKind = (kind: string): boolean => ACCESS_KINDS.has(kind);

/**
 * What deleting `deleted` (objects removed from the program) takes from the deploying credential
 * of `session`, in the organization the rest of the plan (`kept`) leaves: blocked without them,
 * and not blocked with them. `[]` while an input that decides access is unknown, or when the
 * deploying user is not visible to its key.
 */
export async function blockedByDeletes(session: Session, kept: readonly PlannedObject[], deleted: readonly DeletedObject[]): Promise<Blocked[]> {
  const deleting = deleted.filter((d) => ACCESS_KINDS.has(d.kind));
  if (deleting.length === 0) return [];
  const user = await deployingUser(session);
  if (user === undefined) return [];
  // Deleting a key's own list hands the key to the organization's list: both are read then.
  const org = await organizationAfterPlan(session, user, kept, deleting.some((d) => d.kind === "IpAllowlist"));
  if (org === undefined) return [];
  const without = deleting.reduce((state, d) => withoutObject(state, { kind: d.kind, name: d.id, inputs: d.props, olds: {}, id: d.id }), org);
  const credentialType = await credentialTypeOf(session);
  const address = await callerAddress(session);
  const after = blockedAfterPlan(without, session.credentialPublicKey, credentialType, address);
  if (after.length === 0) return [];
  // What the organization with the objects already refused is not these deletes' doing.
  return takenAway({ after, today: blockedAfterPlan(org, session.credentialPublicKey, credentialType, address) });
}

/**
 * Refuses, at `up` and before anything is sent, a delete of an object that decides access (a
 * resource removed from the program: the engine plans that delete without asking the provider at
 * preview) when the organization after the plan, without the object, locks the deploying
 * credential out. A destroy runs no check, so it has no plan here and is not refused.
 * @throws {ProviderError} naming the object, the blocking activity and its witness.
 */
export async function refuseAccessLosingDelete(session: Session, kind: string, id: string, props: Record<string, unknown>, settings: Settings): Promise<void> {
  if (settings.allowLockout || !ACCESS_KINDS.has(kind)) return;
  const plan = [...plannedSoFar(session.context, session.organizationId).values()];
  if (plan.length === 0) return;
  const blocked = await blockedByDeletes(session, plan, [{ kind, id, props }]);
  if (blocked.length === 0) return;
  throw new ProviderError(`${kind} ${id}: this plan deletes it (it is no longer in the program), and ${refusalOf(blocked, session.organizationId)}`);
}
