/**
 * @module emulator/dashboard/signing
 * One line saying what a signing activity signs, for the feed: the chain, the key, and the
 * decoded payload's facts a policy decides on (recipient, amount, chain id, typed data), so an
 * approver sees what they approve without reading hex.
 */
import { payloadKeywords } from "keyform/policy/transactions/index";
import type { Db } from "../store";
import { ethereumAddressOfSigner, findSigner } from "../signing/signer";
import { contractInterfaceLookup } from "../store/smart-contracts";

const SIGNING_TYPES = new Set(["ACTIVITY_TYPE_SIGN_TRANSACTION_V2", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS"]);

type Facts = Record<string, any>;

function ethereumLine(tx: Facts): string {
  const chain = tx.chain_id !== undefined ? ` on chain ${tx.chain_id}` : "";
  const call = tx.function_name ? `, calls ${tx.function_name}` : tx.data && tx.data !== "0x" ? `, calldata ${String(tx.data).slice(0, 10)}…` : "";
  return `Ethereum ${tx.type} transaction${chain}: ${tx.value} wei to ${tx.to || "(contract creation)"}${call}`;
}

function solanaLine(tx: Facts): string {
  const transfers = [...(tx.transfers as Facts[]).map((t) => `${t.amount} lamports to ${t.to}`), ...(tx.spl_transfers as Facts[]).map((t) => `${t.amount} of ${t.token_mint || "a token"} to ${t.to}`)];
  return `Solana transaction, ${(tx.instructions as unknown[]).length} instruction(s)${transfers.length ? `: ${transfers.join("; ")}` : ""}`;
}

/** What a signing activity of `type` with `parameters` signs, or undefined for other activities. */
export function signingSummary(db: Db, organizationId: string, type: string, parameters: Facts | undefined): string | undefined {
  if (!SIGNING_TYPES.has(type) || !parameters) return undefined;
  const signer = typeof parameters.signWith === "string" ? findSigner({ db, organizationId }, parameters.signWith) : undefined;
  const by = ` · key ${parameters.signWith}${signer?.account ? " (wallet account)" : signer?.privateKey ? ` (private key ${signer.privateKey.name})` : ""}`;
  const chain = payloadKeywords(type, parameters, signer ? ethereumAddressOfSigner(signer) : "", contractInterfaceLookup(db, organizationId)) as Facts;
  if (chain.eth?.tx) return ethereumLine(chain.eth.tx) + by;
  if (chain.solana?.tx) return solanaLine(chain.solana.tx) + by;
  if (chain.eth?.eip_712) return `EIP-712 ${chain.eth.eip_712.primary_type} for ${chain.eth.eip_712.domain.name ?? "(no domain name)"} ${chain.eth.eip_712.domain.verifying_contract ?? ""}`.trim() + by;
  if (chain.eth?.eip_7702_authorization) return `EIP-7702 authorization of ${chain.eth.eip_7702_authorization.address} on chain ${chain.eth.eip_7702_authorization.chain_id}` + by;
  if (type === "ACTIVITY_TYPE_SIGN_TRANSACTION_V2") return `${parameters.type} transaction (not decoded)` + by;
  const count = Array.isArray(parameters.payloads) ? parameters.payloads.length : 1;
  return `${count} raw payload(s), ${String(parameters.encoding).replace("PAYLOAD_ENCODING_", "").toLowerCase()}, ${String(parameters.hashFunction).replace("HASH_FUNCTION_", "")}` + by;
}
