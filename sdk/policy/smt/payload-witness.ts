/**
 * @module policy/smt/payload-witness
 * The payload of a signing witness: the solver chooses values of the `eth.tx`, `solana.tx`,
 * `eth.eip_712` and `eth.eip_7702_authorization` fields the policies read; a client submits an
 * unsigned transaction or a payload, and the service reads those fields out of it. Here the
 * solver's values become a real transaction or payload (`transactions/encode`, `eip712`), and the
 * witness's keywords become what the emulator's gate decodes from it (`payloadKeywords`, the same
 * function). A value no transaction can carry (a `to` that is not an address, a transaction type
 * the decoder does not read, a field present on a type without it) is not forced: the decoded
 * value differs, the witness's replay then decides differently, and the change it was meant to
 * show is "not proved" rather than shown with a request no client could make.
 */
import { sha256 } from "@noble/hashes/sha256";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";
import { activityKind } from "../activity";
import { CHAIN_PAYLOADS } from "../catalog";
import { payloadKeywords } from "../transactions/index";
import { authorization, claimedOf, ethereumTransaction, Fresh, solanaMessage, typedData, type PayloadSpace, type PayloadWitness } from "./payload-values";

export type { PayloadSpace, PayloadWitness } from "./payload-values";

const SIGN_TRANSACTION = new Set(["ACTIVITY_TYPE_SIGN_TRANSACTION", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"]);
const SIGN_RAW_PAYLOAD = new Set(["ACTIVITY_TYPE_SIGN_RAW_PAYLOAD", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS"]);
/** Older versions: the same parameters and payloads as the current one, read by the same decoder. */
const CURRENT: Readonly<Record<string, string>> = {
  ACTIVITY_TYPE_SIGN_TRANSACTION: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
};
const CHAIN_ROOTS = ["eth", "solana", "tron", "bitcoin", "tempo"];

/** Whether a witness of `type` carries a transaction or payload the service parses. */
export function carriesPayload(type: string): boolean {
  return SIGN_TRANSACTION.has(type) || SIGN_RAW_PAYLOAD.has(type);
}

/**
 * Whether requests of `type` may carry chain keywords that no witness here can: a
 * send-transaction type, whose request fields carrying the transaction the catalog does not
 * document, or sign_raw_payloads, from whose payloads the emulator reads no keyword.
 */
export function payloadOutOfReach(type: string): boolean {
  const kind = activityKind(type);
  if (CHAIN_PAYLOADS[kind] === undefined) return false;
  return !carriesPayload(type) || type === "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS";
}

/**
 * `witness` with a real payload: for sign_transaction an unsigned transaction (Ethereum unless
 * the claimed values are Solana's, or the policies read `eth.tx` and the model has none), for
 * sign_raw_payload(s) typed data, an authorization or a hex payload; its chain keywords are the
 * ones the emulator decodes from it. Another type comes back without chain keywords (none is
 * known to come with its requests).
 */
export function withPayload(witness: PayloadWitness, space: PayloadSpace): PayloadWitness {
  if (!carriesPayload(witness.type)) {
    // Another type (a send_transaction, of which no request is known here) carries no payload a client is known to send: no chain keyword.
    if (!CHAIN_ROOTS.some((root) => root in witness.keywords)) return witness;
    const keywords = { ...witness.keywords };
    for (const root of CHAIN_ROOTS) delete keywords[root];
    return { ...witness, keywords };
  }
  const fresh = new Fresh(space);
  const parameters = { ...witness.parameters };
  const keywords = { ...witness.keywords };
  // An older version keeps its type (a policy may tell them apart); its payload reads as the current version's.
  const type = witness.type;
  const decodedAs = CURRENT[type] ?? type;
  let from = "";
  let signer: string | undefined;
  if (SIGN_TRANSACTION.has(type)) {
    // The transaction type a policy reads is kept: a payload of another chain then decodes to nothing of the claimed one.
    const fixed = space.chosen.has("type") ? parameters.type : undefined;
    const solana =
      fixed === "TRANSACTION_TYPE_SOLANA" ||
      (fixed === undefined && (claimedOf(keywords, "solana", "tx") !== undefined || (claimedOf(keywords, "eth", "tx") === undefined && space.read.has("eth.tx") && !space.read.has("solana.tx"))));
    if (solana) {
      const built = solanaMessage(witness, space, fresh);
      Object.assign(parameters, { type: fixed ?? "TRANSACTION_TYPE_SOLANA", unsignedTransaction: built.hex });
      signer = built.signer;
    } else {
      const built = ethereumTransaction(witness, space, fresh);
      Object.assign(parameters, { type: fixed ?? "TRANSACTION_TYPE_ETHEREUM", unsignedTransaction: built.hex });
      from = built.from;
      if (from !== "") signer = from;
    }
  } else {
    const typed = claimedOf(keywords, "eth", "eip_712");
    const auth = claimedOf(keywords, "eth", "eip_7702_authorization");
    const [payload, encoding, hashFunction] = typed
      ? [typedData(typed), "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_NOT_APPLICABLE"]
      : auth
        ? [authorization(auth, fresh), "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION", "HASH_FUNCTION_NOT_APPLICABLE"]
        : [bytesToHex(sha256(utf8ToBytes("payload"))), "PAYLOAD_ENCODING_HEXADECIMAL", "HASH_FUNCTION_NO_OP"];
    Object.assign(parameters, type === "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS" ? { payloads: [payload] } : { payload });
    // An encoding or hash function a policy reads keeps the model's value (the payload then decodes as that encoding says).
    if (!space.chosen.has("encoding")) parameters.encoding = encoding;
    if (!space.chosen.has("hashFunction")) parameters.hashFunction = hashFunction;
  }
  // A made-up signing account is the one the payload is signed with.
  const account = keywords.wallet_account as { address?: unknown } | undefined;
  if (signer !== undefined && account !== undefined && account.address !== signer && typeof account.address === "string" && !space.isLiteral(account.address)) {
    keywords.wallet_account = { ...account, address: signer };
    if (parameters.signWith === account.address) parameters.signWith = signer;
  }
  // A payload a policy reads as a parameter keeps the model's value (the service decodes that one).
  for (const field of ["unsignedTransaction", "payload", "payloads"]) if (space.chosen.has(field)) parameters[field] = witness.parameters[field];
  for (const root of CHAIN_ROOTS) delete keywords[root];
  Object.assign(keywords, payloadKeywords(decodedAs, parameters, from));
  return { type, parameters, keywords };
}
