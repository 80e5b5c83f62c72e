/**
 * @module policy/transactions
 * The chain keywords of a signing request, read from its payload as the service does (docs
 * `features/policies/language.mdx`): `eth.tx` and `solana.tx` from the unsigned transaction of
 * sign_transaction, `eth.eip_712` and `eth.eip_7702_authorization` from a sign_raw_payload
 * whose encoding carries them.
 */
import { hexToBytes } from "@noble/hashes/utils";
import { AbiError, contractCallFacts, parseAbi } from "./abi";
import { decodeEthereumTransaction, ethereumTransactionFacts, TransactionDecodeError, type EthereumTransaction } from "./ethereum";
import { authorizationFacts, parseAuthorization, parseTypedData, typedDataFacts } from "./eip712";
import { IdlError, parseIdl, parsedInstructionData, type Idl } from "./idl";
import { decodeSolanaTransaction, solanaTransactionFacts } from "./solana";

export { TransactionDecodeError } from "./ethereum";

/**
 * The text (ABI or IDL) of the organization's smart contract interface of `type` for a contract
 * address or program id, if one was uploaded.
 */
export type ContractInterfaceLookup = (type: "ETHEREUM" | "SOLANA", address: string) => string | undefined;

/** `eth.tx` of a decoded transaction: its fields, and the ABI-based ones when `interfaceFor` knows its `to`. */
function ethereumKeyword(tx: EthereumTransaction, from: string, interfaceFor: ContractInterfaceLookup | undefined): Record<string, unknown> {
  const facts = ethereumTransactionFacts(tx, from);
  const abi = tx.to ? interfaceFor?.("ETHEREUM", tx.to) : undefined;
  if (abi === undefined) return facts;
  try {
    return { ...facts, ...contractCallFacts(parseAbi(abi), tx.data) };
  } catch (error) {
    // An ABI keyform cannot read gives no ABI-based fields; the transaction's own still count.
    if (error instanceof AbiError) return facts;
    throw error;
  }
}

/** `solana.tx` of a decoded transaction, each instruction of a program with an uploaded IDL with its `parsed_instruction_data`. */
function solanaKeyword(facts: Record<string, unknown>, interfaceFor: ContractInterfaceLookup | undefined): Record<string, unknown> {
  if (!interfaceFor) return facts;
  const idls = new Map<string, Idl | undefined>();
  const idlOf = (program: string): Idl | undefined => {
    if (!idls.has(program)) {
      const text = interfaceFor("SOLANA", program);
      let idl: Idl | undefined;
      try {
        idl = text === undefined ? undefined : parseIdl(text);
      } catch (error) {
        // An IDL keyform cannot read gives no IDL-based fields; the instruction's own still count.
        if (!(error instanceof IdlError)) throw error;
      }
      idls.set(program, idl);
    }
    return idls.get(program);
  };
  const instructions = (facts.instructions as Record<string, unknown>[]).map((ix) => {
    const idl = idlOf(ix.program_key as string);
    const accounts = (ix.accounts as { account_key: string }[]).map((a) => a.account_key);
    const parsed = idl && parsedInstructionData(idl, hexToBytes(ix.instruction_data_hex as string), accounts);
    return parsed ? { ...ix, parsed_instruction_data: parsed } : ix;
  });
  return { ...facts, instructions };
}

/**
 * The chain keywords (`eth`, `solana`) of an activity of `type` with `parameters`, signed by
 * the key whose Ethereum address is `ethereumAddress` (when it has one); `interfaceFor` gives the
 * ABI uploaded for a contract and the IDL uploaded for a program, for `eth.tx.function_name`,
 * `parsed_instruction_data` and the other interface-based fields. A payload that does not decode
 * gives none: the request is refused anyway when the signer reads it.
 */
export function payloadKeywords(type: string, parameters: unknown, ethereumAddress = "", interfaceFor?: ContractInterfaceLookup): Record<string, unknown> {
  const p = (typeof parameters === "object" && parameters !== null ? parameters : {}) as Record<string, unknown>;
  try {
    if (type === "ACTIVITY_TYPE_SIGN_TRANSACTION_V2" && typeof p.unsignedTransaction === "string") {
      if (p.type === "TRANSACTION_TYPE_ETHEREUM") return { eth: { tx: ethereumKeyword(decodeEthereumTransaction(p.unsignedTransaction), ethereumAddress, interfaceFor) } };
      if (p.type === "TRANSACTION_TYPE_SOLANA") return { solana: { tx: solanaKeyword(solanaTransactionFacts(decodeSolanaTransaction(p.unsignedTransaction)), interfaceFor) } };
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
