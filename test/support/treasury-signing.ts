/**
 * The example organization's treasury signing policy, exercised end to end on an organization
 * the example program brought up: its treasury member (not root) gets an API key and signs
 * through the service's own viem signer (@turnkey/viem, unchanged). A payment to the payee is
 * signed; one to another address is refused; one above the limit waits for an admin, shows in
 * the dashboard's feed with why it waits, and is signed once the admin approves it through the
 * dashboard's vote endpoint.
 */
import { ApiKeyStamper as TurnkeyApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeyClient } from "@turnkey/http";
import { createAccount } from "@turnkey/viem";
import { expect } from "vitest";
import { parseEther, recoverTransactionAddress, serializeTransaction, type Hex } from "viem";
import { KeyformClient } from "../../sdk/client/client";
import { DASHBOARD_API } from "../../sdk/emulator/dashboard/paths";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { generateApiKeyPair } from "../../sdk/protocol/keys";

/** What the check needs of the organization: a root client, the names' ids, the treasury's address and payee. */
export interface TreasuryOrganization {
  baseUrl: string;
  organizationId: string;
  root: KeyformClient;
  treasuryMemberId: string;
  adminId: string;
  treasuryEthAddress: string;
  payee: string;
}

const payment = (to: string, value: bigint) =>
  ({ type: "eip1559", chainId: 8453, nonce: 0, to: to as Hex, value, gas: 21000n, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000n }) as const;

/** Runs the three payments and checks each outcome. */
export async function checkTreasurySigning(org: TreasuryOrganization): Promise<void> {
  const key = generateApiKeyPair();
  await org.root.createApiKeys({ userId: org.treasuryMemberId, apiKeys: [{ apiKeyName: "treasury-signing-check", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }] });
  const http = new TurnkeyClient({ baseUrl: org.baseUrl }, new TurnkeyApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }));
  const account = await createAccount({ client: http, organizationId: org.organizationId, signWith: org.treasuryEthAddress });

  // Within the limit, to the payee: signed at once.
  const signed = await account.signTransaction(payment(org.payee, parseEther("0.5")));
  expect(await recoverTransactionAddress({ serializedTransaction: signed as `0x02${string}` })).toBe(org.treasuryEthAddress);

  // To another address: refused.
  await expect(account.signTransaction(payment("0x2222222222222222222222222222222222222222", 1n))).rejects.toThrow(/sufficient permissions/);

  // Above the limit: held for an admin.
  const member = new KeyformClient({
    baseUrl: org.baseUrl,
    organizationId: org.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }),
    retry: { maxRetries: 0 },
  });
  const unsignedTransaction = serializeTransaction(payment(org.payee, parseEther("2"))).slice(2);
  const held = await member.submitActivity("signTransaction", { signWith: org.treasuryEthAddress, unsignedTransaction, type: "TRANSACTION_TYPE_ETHEREUM" }, { allowIncomplete: true });
  expect(held.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");

  const feed = async () => (await (await fetch(`${org.baseUrl}${DASHBOARD_API}/organizations/${org.organizationId}/activities`)).json()) as any[];
  const waiting = (await feed()).find((a) => a.id === held.id);
  expect(waiting.waiting).toMatchObject({ heldBy: "policy consensus", approvals: 1 });
  expect(waiting.waiting.reason).toMatch(/Treasury signing needs admin approvals/);
  expect(waiting.waiting.voters.map((v: { id: string }) => v.id)).toContain(org.adminId);
  expect(waiting.signing).toMatch(new RegExp(`^Ethereum TYPE_2 transaction on chain 8453: 2000000000000000000 wei to ${org.payee}`));

  // The admin approves in the dashboard: the activity runs and the transaction is signed.
  const vote = await fetch(`${org.baseUrl}${DASHBOARD_API}/organizations/${org.organizationId}/votes`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-keyform-dashboard": "1" },
    body: JSON.stringify({ fingerprint: held.fingerprint, userId: org.adminId, approve: true }),
  });
  expect(vote.status).toBe(200);
  const done = (await org.root.getActivity({ activityId: held.id })).activity;
  expect(done.status).toBe("ACTIVITY_STATUS_COMPLETED");
  const result = `0x${(done.result as { signTransactionResult: { signedTransaction: string } }).signTransactionResult.signedTransaction}`;
  expect(await recoverTransactionAddress({ serializedTransaction: result as `0x02${string}` })).toBe(org.treasuryEthAddress);
}
