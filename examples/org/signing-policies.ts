/**
 * The treasury's signing policies as text, from the ids they name and the stack settings: the
 * program declares them (index.ts), and tests decide transactions under the very same text.
 *
 * Signing activities are `PRIVATE_KEY` / `SIGN` whatever key signs (the docs' "Activity types
 * by resource and action"); `wallet.id` narrows them to the treasury wallet and `eth.tx` (the
 * decoded unsigned transaction) to the one payee, whose address the policy engine compares in
 * lowercase.
 */

/** What the treasury policies refer to. */
export interface TreasuryPolicyInputs {
  /** The admins tag id, the treasury tag id and the treasury wallet id. */
  adminsTagId: string;
  treasuryTagId: string;
  walletId: string;
  /** The one address the treasury pays (lowercase `0x` hex). */
  payee: string;
  /** Payments above this many wei need admin approvals. */
  limitWei: string;
  /** How many admins approve a large payment. */
  approvals: number | string;
}

/** A policy's text fields. */
export interface PolicyText {
  policyName: string;
  effect: "EFFECT_ALLOW";
  condition: string;
  consensus: string;
}

/** Signing with the treasury wallet, to the payee. */
function treasuryPayment(i: TreasuryPolicyInputs): string {
  return `activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN' && wallet.id == '${i.walletId}' && eth.tx.to == '${i.payee}'`;
}

/** The policies' names, known before any id is. */
export const TREASURY_PAYMENTS = "Treasury pays its payee";
export const TREASURY_QUORUM = "Treasury signing needs admin approvals";

/** A treasury member pays the payee up to the limit alone. */
export function treasuryPaymentsPolicy(i: TreasuryPolicyInputs): PolicyText {
  return {
    policyName: TREASURY_PAYMENTS,
    effect: "EFFECT_ALLOW",
    condition: `${treasuryPayment(i)} && eth.tx.value <= ${i.limitWei}`,
    consensus: `approvers.any(user, user.tags.contains('${i.treasuryTagId}'))`,
  };
}

/** Above the limit, the payment waits for admin approvals. */
export function treasuryQuorumPolicy(i: TreasuryPolicyInputs): PolicyText {
  return {
    policyName: TREASURY_QUORUM,
    effect: "EFFECT_ALLOW",
    condition: `${treasuryPayment(i)} && eth.tx.value > ${i.limitWei}`,
    consensus: `approvers.filter(user, user.tags.contains('${i.adminsTagId}')).count() >= ${i.approvals}`,
  };
}

/** The example's export policy. */
export const DENY_EXPORTS = { policyName: "Nobody exports keys", effect: "EFFECT_DENY", condition: "activity.action == 'EXPORT'" } as const;
