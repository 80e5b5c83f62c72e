/**
 * The example organization as code: what a platform team declares for one organization of
 * the service. The same program serves dev, staging and prod; only the stack settings differ
 * (Pulumi.<stack>.yaml). It declares the organization's users, its root quorum, teams,
 * policies, CI keys and their IP allowlist, a webhook, the treasury wallet, invitations,
 * contract interfaces and the Earn wrapper's state.
 */
import * as pulumi from "@pulumi/pulumi";
import * as keyform from "keyform";
import erc20Abi from "./contracts/erc20.abi.json";
import payrollIdl from "./contracts/payroll.idl.json";
import { readOrgSettings } from "./settings";
import {
  DENY_EXPORTS,
  TREASURY_PAYMENTS,
  TREASURY_QUORUM,
  treasuryPaymentsPolicy,
  treasuryQuorumPolicy,
  type PolicyText,
  type TreasuryPolicyInputs,
} from "./signing-policies";

const settings = readOrgSettings();
const stack = pulumi.getStack();

// The users: people and CI bots. Their tags are the UserTags below, not theirs to set.
const people =
  settings.people ??
  [...new Set([...settings.teams.admins, ...settings.teams.treasury, ...settings.teams.engineering, settings.inviter])].map((name) => ({
    name,
    email: `${name}@example.com`,
  }));
const users = new Map<string, keyform.User>();
for (const person of people) users.set(person.name, new keyform.User(person.name, { userName: person.name, userEmail: person.email }));
for (const bot of [settings.ciBots.deployer, settings.ciBots.auditor]) {
  if (!users.has(bot)) users.set(bot, new keyform.User(bot, { userName: bot }));
}
/** The declared user `name`'s id; a name no user has fails the preview with the setting named. */
function userId(name: string, setting: string): pulumi.Output<string> {
  const user = users.get(name);
  if (!user) throw new Error(`${setting}: "${name}" is not one of the declared users (keyform-org:people)`);
  return user.userId;
}
const userIds = (names: string[], setting: string) => names.map((name) => userId(name, setting));
/** A policy's expressions as outputs: known once the ids they name are (its name and effect are known at once). */
function expressionsOf(text: pulumi.Output<PolicyText>) {
  return { effect: "EFFECT_ALLOW" as const, condition: text.condition, consensus: text.consensus };
}

// The root quorum: the user keyform runs as and the first admin, either one enough. The user
// behind keyform's API key stays a member: on the hosted service a user outside the root quorum
// acts only as policies allow, so leaving it out would lock the later steps out; and a threshold
// above 1 would make every later change wait for a second approval.
const runner = keyform.whoamiOutput();
const rootQuorum = new keyform.RootQuorum("root-quorum", {
  threshold: 1,
  userIds: [runner.userId, userId(settings.teams.admins[0]!, "teams.admins")],
});

// Teams are user tags; membership is declared here and kept in sync in place.
const admins = new keyform.UserTag("admins", { userTagName: "admins", userIds: userIds(settings.teams.admins, "teams.admins") });
const treasury = new keyform.UserTag("treasury", {
  userTagName: "treasury",
  userIds: userIds(settings.teams.treasury, "teams.treasury"),
});
const engineering = new keyform.UserTag("engineering", {
  userTagName: "engineering",
  userIds: userIds(settings.teams.engineering, "teams.engineering"),
});

// Other resources refer to a tag by its resource id rather than its `userTagId` output: the id
// stays known while a tag is updated in place, so a membership change previews as exactly that
// instead of as a replacement of everything that mentions the tag.

// The treasury wallet with an Ethereum and a Solana account. Key material is retained on
// destroy unless the stack says the organization is throwaway.
const treasuryWallet = new keyform.Wallet("treasury-wallet", {
  walletName: `treasury-${stack}`,
  accounts: [
    { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM", name: `treasury-${stack}-eth` },
    { curve: "CURVE_ED25519", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA", name: `treasury-${stack}-sol` },
  ],
  deleteWithoutExport: settings.treasuryWalletDisposable,
});

// Treasury payments: the treasury team pays its payee up to the limit; above it a quorum of
// admins approves; nothing else is signed with the treasury wallet. Exporting keys is denied to
// everyone.
const treasuryInputs: pulumi.Output<TreasuryPolicyInputs> = pulumi.all([admins.id, treasury.id, treasuryWallet.id]).apply(([adminsTagId, treasuryTagId, walletId]) => ({
  adminsTagId,
  treasuryTagId,
  walletId,
  payee: settings.treasuryPayee,
  limitWei: settings.treasuryLimitWei,
  approvals: settings.treasuryApprovals,
}));
const treasuryPayments = new keyform.Policy("treasury-payments", {
  policyName: TREASURY_PAYMENTS,
  ...expressionsOf(treasuryInputs.apply(treasuryPaymentsPolicy)),
  notes: `Managed by keyform (${stack}): the treasury pays ${settings.treasuryPayee} up to ${settings.treasuryLimitWei} wei alone.`,
});
const treasuryQuorum = new keyform.Policy("treasury-quorum", {
  policyName: TREASURY_QUORUM,
  ...expressionsOf(treasuryInputs.apply(treasuryQuorumPolicy)),
  notes: `Managed by keyform (${stack}): treasury signing requires ${settings.treasuryApprovals} admin approval(s).`,
});
const denyExports = new keyform.Policy("deny-exports", {
  ...DENY_EXPORTS,
  notes: `Managed by keyform (${stack}): exports go through a break-glass procedure, not the API.`,
});

// CI bots: one key generated by keyform (private key kept as a secret output), one
// registered from a public key the team generated elsewhere.
const deployerKey = new keyform.ApiKey("ci-deployer-key", {
  userId: userId(settings.ciBots.deployer, "ciBots.deployer"),
  apiKeyName: `ci-deployer-${stack}`,
  curveType: "API_KEY_CURVE_P256",
  expirationSeconds: settings.ciBots.keyLifetimeSeconds,
});
const auditorKey = new keyform.ApiKey("ci-auditor-key", {
  userId: userId(settings.ciBots.auditor, "ciBots.auditor"),
  apiKeyName: `ci-auditor-${stack}`,
  publicKey: settings.ciBots.auditorPublicKey,
  curveType: "API_KEY_CURVE_P256",
});

// The CI deployer key may be used only from the CI network (per-key lists apply while the
// organization-level list is enabled).
const ciKeyAllowlist = new keyform.IpAllowlist("ci-deployer-ips", {
  publicKey: deployerKey.publicKey,
  rules: settings.ciAllowedCidrs.map((cidr) => ({ cidr, label: "CI runners" })),
});

// Every activity's status changes go to the platform team's webhook receiver.
const activityWebhook = new keyform.WebhookEndpoint("activity-webhook", {
  name: `activity-updates-${stack}`,
  url: settings.webhookUrl,
  subscriptions: [{ eventType: "ACTIVITY_UPDATES" }],
});

// New engineers get an invitation that puts them in the engineering tag when accepted.
const invitations = settings.newEngineers.map(
  (engineer) =>
    new keyform.Invitation(`invite-${engineer.name}`, {
      receiverUserName: engineer.name,
      receiverUserEmail: engineer.email,
      receiverUserTags: [engineering.id],
      accessType: "ACCESS_TYPE_ALL",
      senderUserId: userId(settings.inviter, "inviter"),
    }),
);

// Contract interfaces let policies and signing screens decode calls.
const usdc = new keyform.SmartContractInterface("usdc", {
  smartContractAddress: settings.contracts.usdcAddress,
  smartContractInterface: erc20Abi,
  type: "ETHEREUM",
  label: "USDC (ERC-20)",
  notes: "Standard ERC-20 interface.",
});
const payroll = new keyform.SmartContractInterface("payroll", {
  smartContractAddress: settings.contracts.payrollProgramId,
  smartContractInterface: payrollIdl,
  type: "SOLANA",
  label: "Payroll program",
});

// The organization's Earn wrapper for its vault: deposits paused or open as declared.
const wrapperAddress = keyform
  .listEarnEnabledVaultsOutput()
  .apply(({ enabledVaults }) => {
    const vault = settings.earn.vaultAddress.toLowerCase();
    const wrapper = enabledVaults.find((v) => v.vaultAddress?.toLowerCase() === vault)?.wrapperAddress;
    if (!wrapper) throw new Error(`earn.vaultAddress: no deployed wrapper for vault ${settings.earn.vaultAddress}`);
    return wrapper;
  });
const earn = new keyform.EarnWrapperState("earn-wrapper", {
  wrapperAddress,
  depositsDisabled: settings.earn.depositsDisabled,
});

export const userIdsByName = Object.fromEntries([...users].map(([name, user]) => [name, user.userId]));
export const rootQuorumUserIds = rootQuorum.userIds;
export const ciDeployerAllowlist = ciKeyAllowlist.rules;
export const activityWebhookId = activityWebhook.endpointId;
export const treasuryAddresses = treasuryWallet.addresses;
export const userTagIds = { admins: admins.userTagId, treasury: treasury.userTagId, engineering: engineering.userTagId };
export const policyIds = { treasuryPayments: treasuryPayments.policyId, treasuryQuorum: treasuryQuorum.policyId, denyExports: denyExports.policyId };
export const ciDeployerApiKeyId = deployerKey.apiKeyId;
export const ciDeployerPublicKey = deployerKey.publicKey;
/** Secret: hand it to the CI system's secret store (`pulumi stack output --show-secrets`). */
export const ciDeployerPrivateKey = pulumi.secret(deployerKey.privateKey);
export const ciAuditorApiKeyId = auditorKey.apiKeyId;
export const invitationIds = invitations.map((i) => i.invitationId);
export const smartContractInterfaceIds = { usdc: usdc.smartContractInterfaceId, payroll: payroll.smartContractInterfaceId };
export const earnWrapper = { address: earn.wrapperAddress, depositsDisabled: earn.depositsDisabled };
