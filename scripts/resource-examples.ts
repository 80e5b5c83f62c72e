/**
 * @module scripts/resource-examples
 * The example of each resource in the README, as the exporter's object model
 * ({@link ExportedResource}): one list of objects per resource class, the objects it refers to
 * first. `resource-docs.ts` renders each list with the exporter's own TypeScript and YAML
 * renderers, so both examples of a section declare the same objects, written the way
 * `keyform export` writes a program. `test/resources/readme-examples.test.ts` holds each
 * example to its resource's description.
 */
import { ExportReference, type ExportedResource } from "../sdk/cli/export-model";

const ref = (resource: string, output: string) => new ExportReference(resource, output);

const alice: ExportedResource = { className: "User", name: "alice", inputs: { userName: "alice", userEmail: "alice@example.com" } };
const bot: ExportedResource = { className: "User", name: "ci-bot", inputs: { userName: "ci-bot" } };
const admins: ExportedResource = { className: "UserTag", name: "admins", inputs: { userTagName: "admins", userIds: [ref("alice", "userId")] } };
const signer: ExportedResource = {
  className: "PrivateKey",
  name: "signer",
  inputs: { privateKeyName: "signer", curve: "CURVE_SECP256K1", addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] },
};
const ciKey: ExportedResource = { className: "ApiKey", name: "ci", inputs: { userId: ref("ci-bot", "userId"), apiKeyName: "ci", curveType: "API_KEY_CURVE_P256" } };

/** Each resource class's example objects; the last one is the class's own. */
export const RESOURCE_EXAMPLES: Readonly<Record<string, readonly ExportedResource[]>> = {
  UserTag: [alice, admins],
  Policy: [
    {
      className: "Policy",
      name: "treasury-quorum",
      inputs: {
        policyName: "Treasury signing needs two admins",
        effect: "EFFECT_ALLOW",
        condition: "activity.action == 'SIGN'",
        consensus: "approvers.count() >= 2",
        notes: "managed by keyform",
      },
    },
  ],
  ApiKey: [bot, ciKey],
  Invitation: [
    alice,
    admins,
    {
      className: "Invitation",
      name: "invite-carol",
      inputs: {
        receiverUserName: "carol",
        receiverUserEmail: "carol@example.com",
        receiverUserTags: [ref("admins", "userTagId")],
        accessType: "ACCESS_TYPE_ALL",
        senderUserId: ref("alice", "userId"),
      },
    },
  ],
  SmartContractInterface: [
    {
      className: "SmartContractInterface",
      name: "usdc",
      inputs: {
        smartContractAddress: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48",
        smartContractInterface: [{ type: "function", name: "transfer", stateMutability: "nonpayable", inputs: [{ name: "to", type: "address" }, { name: "amount", type: "uint256" }], outputs: [{ name: "", type: "bool" }] }],
        type: "ETHEREUM",
        label: "USDC",
      },
    },
  ],
  EarnWrapperState: [
    { className: "EarnWrapperState", name: "pause-deposits", inputs: { wrapperAddress: "0x2a1530C4C41db0B0b2bB646CB5Eb1A67b7158667", depositsDisabled: true } },
  ],
  User: [
    {
      className: "User",
      name: "alice",
      inputs: {
        userName: "alice",
        userEmail: "alice@example.com",
        oauthProviders: [{ providerName: "google", oidcClaims: { iss: "https://accounts.google.com", sub: "1234567890", aud: "keyform-example" } }],
      },
    },
  ],
  RootQuorum: [alice, { className: "RootQuorum", name: "root-quorum", inputs: { threshold: 1, userIds: [ref("alice", "userId")] } }],
  WebhookEndpoint: [
    {
      className: "WebhookEndpoint",
      name: "activity-feed",
      inputs: { url: "https://hooks.example.com/keyform", name: "activity-feed", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] },
    },
  ],
  IpAllowlist: [
    bot,
    ciKey,
    { className: "IpAllowlist", name: "ci-ips", inputs: { publicKey: ref("ci", "publicKey"), rules: [{ cidr: "203.0.113.0/24", label: "CI" }] } },
  ],
  Wallet: [
    {
      className: "Wallet",
      name: "treasury",
      inputs: {
        walletName: "treasury",
        accounts: [
          { curve: "CURVE_SECP256K1", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" },
          { curve: "CURVE_ED25519", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" },
        ],
      },
    },
  ],
  PrivateKey: [signer],
  PrivateKeyTag: [signer, { className: "PrivateKeyTag", name: "hot-keys", inputs: { privateKeyTagName: "hot-keys", privateKeyIds: [ref("signer", "privateKeyId")] } }],
  SessionProfile: [
    {
      className: "SessionProfile",
      name: "wallet-only-v1",
      inputs: { sessionProfileName: "wallet-only-v1", scope: "activity.resource == 'WALLET'", expirationSeconds: "900" },
    },
  ],
};
