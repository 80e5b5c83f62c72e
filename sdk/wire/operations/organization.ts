/**
 * @module wire/operations/organization
 * The caller's identity and the organization as a whole (docs/service-facts.md#39-organization-and-identity).
 */
import { z } from "zod";
import { defineActivity, defineQuery } from "../define";
import { Id, opt } from "../shared";
import { Invitation } from "./invitations";
import { Policy } from "./policies";
import { PrivateKey } from "./private-keys";
import { SmartContractInterfaceReference } from "./smart-contract-interfaces";
import { Tag } from "./user-tags";
import { User } from "./users";
import { Wallet } from "./wallets";

/** The root quorum: how many of which users must approve (`externaldatav1Quorum`). */
export const Quorum = z.object({ threshold: z.number().int(), userIds: z.array(z.string()) });
export type Quorum = z.infer<typeof Quorum>;

/** An organization feature flag (`v1Feature`). */
export const Feature = z.object({ name: opt(z.string()), value: opt(z.string()) });
export type Feature = z.infer<typeof Feature>;

/** docs/service-facts.md#39-organization-and-identity / `v1OrganizationData`: every field is optional. */
export const OrganizationData = z.object({
  organizationId: opt(z.string()),
  name: opt(z.string()),
  users: opt(z.array(User)),
  policies: opt(z.array(Policy)),
  privateKeys: opt(z.array(PrivateKey)),
  /** The only place invitations can be read. */
  invitations: opt(z.array(Invitation)),
  tags: opt(z.array(Tag)),
  rootQuorum: opt(Quorum),
  features: opt(z.array(Feature)),
  wallets: opt(z.array(Wallet)),
  smartContractInterfaceReferences: opt(z.array(SmartContractInterfaceReference)),
});
export type OrganizationData = z.infer<typeof OrganizationData>;

export const whoami = defineQuery("whoami", {
  request: z.object({ organizationId: Id }),
  response: z.object({
    organizationId: z.string(),
    organizationName: z.string(),
    userId: z.string(),
    /** Lowercase `username`, unlike `userName` elsewhere. */
    username: z.string(),
  }),
});

export const getOrganization = defineQuery("get_organization", {
  request: z.object({ organizationId: Id }),
  response: z.object({ organizationData: OrganizationData }),
});

/**
 * Sets the threshold and members of the root quorum (`ACTIVITY_TYPE_UPDATE_ROOT_QUORUM`). The
 * service requires the current root quorum to approve it; the result object is empty
 * (`v1UpdateRootQuorumResult` has no fields).
 */
export const updateRootQuorum = defineActivity("update_root_quorum", {
  type: "ACTIVITY_TYPE_UPDATE_ROOT_QUORUM",
  intentKey: "updateRootQuorumIntent",
  resultKey: "updateRootQuorumResult",
  parameters: z.object({
    /** Unique approvals needed to reach quorum (int32). */
    threshold: z.number().int(),
    /** Users who make up the quorum. */
    userIds: z.array(Id),
  }),
  result: z.object({}),
});

export const organizationOperations = { whoami, getOrganization, updateRootQuorum };
