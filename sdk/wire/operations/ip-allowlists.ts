/**
 * @module wire/operations/ip-allowlists
 * IP allowlists (spec 4.4 remove_ip_allowlist).
 */
import { z } from "zod";
import { defineActivity } from "../define";
import { Id, opt } from "../shared";

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

export const ipAllowlistOperations = { removeIpAllowlist };
