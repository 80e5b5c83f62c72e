/**
 * @module wire/operations/ip-allowlists
 * IP allowlists (spec 4.4 remove_ip_allowlist; `v1SetIpAllowlistIntent`, `v1GetIpAllowlistRequest`
 * and `v1IpAllowlist` of the official types for set and get). An organization has at most one
 * organization-level allowlist and one per API key; set replaces an allowlist's rules whole.
 */
import { z } from "zod";
import { defineActivity, defineQuery } from "../define";
import { Id, opt, optId } from "../shared";

/** What the service does when it cannot evaluate a request's address. */
export const IpAllowlistEvaluationError = z.enum(["ALLOW", "DENY"]);
export type IpAllowlistEvaluationError = z.infer<typeof IpAllowlistEvaluationError>;

/** One rule to set (`v1IpAllowlistIntentRule`). */
export const IpAllowlistRuleParams = z.object({
  /** An IPv4 or IPv6 CIDR block (`10.0.0.0/8`, `2001:db8::/32`) or a single address. */
  cidr: Id,
  label: opt(z.string()),
});
export type IpAllowlistRuleParams = z.infer<typeof IpAllowlistRuleParams>;

/** One stored rule (`v1IpAllowlistRule`); `createdAt` is epoch milliseconds as a string. */
export const IpAllowlistRule = z.object({ cidr: z.string(), label: opt(z.string()), createdAt: opt(z.string()) });
export type IpAllowlistRule = z.infer<typeof IpAllowlistRule>;

/** `v1IpAllowlist`: `enabled` only for the organization-level allowlist. */
export const IpAllowlist = z.object({
  organizationId: z.string(),
  rules: z.array(IpAllowlistRule),
  publicKey: opt(z.string()),
  enabled: opt(z.boolean()),
  onEvaluationError: opt(z.string()),
});
export type IpAllowlist = z.infer<typeof IpAllowlist>;

export const setIpAllowlist = defineActivity("set_ip_allowlist", {
  type: "ACTIVITY_TYPE_SET_IP_ALLOWLIST",
  intentKey: "setIpAllowlistIntent",
  resultKey: "setIpAllowlistResult",
  parameters: z.object({
    /** Absent: the organization-level allowlist. Set: that API key's own allowlist. */
    publicKey: opt(Id),
    /** Organization-level only. */
    enabled: opt(z.boolean()),
    rules: opt(z.array(IpAllowlistRuleParams)),
    onEvaluationError: opt(IpAllowlistEvaluationError),
  }),
  result: z.object({}),
});

export const getIpAllowlist = defineQuery("get_ip_allowlist", {
  request: z.object({ organizationId: Id, publicKey: optId() }),
  response: z.object({ allowlist: IpAllowlist }),
});

export const removeIpAllowlist = defineActivity("remove_ip_allowlist", {
  type: "ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST",
  intentKey: "removeIpAllowlistIntent",
  resultKey: "removeIpAllowlistResult",
  parameters: z.object({
    /**
     * Absent or null: the organization-level allowlist and its rules are removed. Set: only
     * that API key's allowlist. "" is rejected rather than read as absent, so that a blank
     * key can never widen the removal to the whole organization.
     */
    publicKey: opt(Id),
  }),
  result: z.object({}),
});

export const ipAllowlistOperations = { setIpAllowlist, getIpAllowlist, removeIpAllowlist };
