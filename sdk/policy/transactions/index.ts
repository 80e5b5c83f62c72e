/**
 * @module policy/transactions
 * The chain keywords of a signing request, read from its payload as the service does (docs
 * `features/policies/language.mdx`): `eth.tx` and `solana.tx` from the unsigned transaction of
 * sign_transaction, `eth.eip_712` and `eth.eip_7702_authorization` from a sign_raw_payload
 * whose encoding carries them.
 */
import { AbiError, contractCallFacts, parseAbi } from "./abi";
import { decodeEthereumTransaction, ethereumTransactionFacts, TransactionDecodeError, type EthereumTransaction } from "./ethereum";
import { authorizationFacts, parseAuthorization, parseTypedData, typedDataFacts } from "./eip712";
import { decodeSolanaTransaction, solanaTransactionFacts } from "./solana";

export { TransactionDecodeError } from "./ethereum";

/** The ABI text of the organization's Ethereum smart contract interface for a contract address, if one was uploaded. */
export type EthereumAbiLookup = (address: string) => string | undefined;

/** `eth.tx` of a decoded transaction: its fields, and the ABI-based ones when `abiFor` knows its `to`. */
function ethereumKeyword(tx: EthereumTransaction, from: string, abiFor: EthereumAbiLookup | undefined): Record<string, unknown> {
  const facts = ethereumTransactionFacts(tx, from);
  const abi = tx.to ? abiFor?.(tx.to) : undefined;
  if (abi === undefined) return facts;
  try {
    return { ...facts, ...contractCallFacts(parseAbi(abi), tx.data) };
  } catch (error) {
    // An ABI keyform cannot read gives no ABI-based fields; the transaction's own still count.
    if (error instanceof AbiError) return facts;
    throw error;
  }
}

/**
 * The chain keywords (`eth`, `solana`) of an activity of `type` with `parameters`, signed by
 * the key whose Ethereum address is `ethereumAddress` (when it has one); `abiFor` gives the ABI
 * uploaded for a contract, for `eth.tx.function_name` and the other ABI-based fields. A payload
 * that does not decode gives none: the request is refused anyway when the signer reads it.
 */
export function payloadKeywords(type: string, parameters: unknown, ethereumAddress = "", abiFor?: EthereumAbiLookup): Record<string, unknown> {
  const p = (typeof parameters === "object" && parameters !== null ? parameters : {}) as Record<string, unknown>;
  try {
    if (type === "ACTIVITY_TYPE_SIGN_TRANSACTION_V2" && typeof p.unsignedTransaction === "string") {
      if (p.type === "TRANSACTION_TYPE_ETHEREUM") return { eth: { tx: ethereumKeyword(decodeEthereumTransaction(p.unsignedTransaction), ethereumAddress, abiFor) } };
      if (p.type === "TRANSACTION_TYPE_SOLANA") return { solana: { tx: solanaTransactionFacts(decodeSolanaTransaction(p.unsignedTransaction)) } };
    }
    if (type === "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2" && typeof p.payload === "string") {
      if (p.encoding === "PAYLOAD_ENCODING_EIP712") return { eth: { eip_712: typedDataFacts(parseTypedData(p.payload)) } };
      if (p.encoding === "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION") return { eth: { eip_7702_authorization: authorizationFacts(parseAuthorization(p.payload)) } };
    }
  } catch (error) {
    if (error instanceof TransactionDecodeError) return {};
    throw error;
  }
  return {};
}
