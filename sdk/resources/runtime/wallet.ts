/**
 * @module resources/runtime/wallet
 * Wallet: an HD wallet with its accounts. Only the name changes in place (`update_wallet`);
 * accounts and mnemonic length are fixed at creation here, so a change replaces the wallet.
 * Deletion (`delete_wallets`) happens only with `deleteWithoutExport: true` (see
 * `key-material.ts`). The service never returns the mnemonic length: it is kept from the inputs.
 */
import { ADDRESS_FORMATS, type AddressFormat, type Curve, type PathFormat } from "../../wire/enums";
import type { Wallet, WalletAccount } from "../../wire/operations/wallets";
import { operations } from "../../wire/registry";
import { schemaFailures } from "./check";
import type { Session } from "./client";
import type { InputsOf, OutputsOf, ResourceDescription } from "./describe";
import type { ListObjects } from "./listing";
import { createActivity } from "./earlier-activity";
import { defineResource } from "./define";
import { makeHandler } from "./framework";
import { carriedDeletionChoice, deleteWithoutExportDescription, sameDeletionChoice } from "./key-material";
import { unlessNotFound } from "./lookups";
import { collections } from "./shared-reads";
import { canonicalJson, compact, containsUnknown } from "./values";

interface LiveWallet {
  wallet: Wallet;
  accounts: WalletAccount[];
}

/** The declared part of an account, for comparison (order matters: it is the derivation order). */
const accountKey = (a: Partial<WalletAccountInput>) => [a.curve, a.pathFormat, a.path, a.addressFormat, a.name ?? null];

async function fetchWallet(session: Session, id: string): Promise<LiveWallet | undefined> {
  const wallet = await unlessNotFound(async () => (await session.client.getWallet({ walletId: id })).wallet);
  if (wallet === undefined) return undefined;
  const accounts: WalletAccount[] = [];
  let after: string | undefined;
  // Paginated (at most 100 a page): read every page.
  for (;;) {
    const page = await session.client.listWalletAccounts({ walletId: id, paginationOptions: compact({ limit: "100", after }) });
    accounts.push(...page.accounts);
    if (page.accounts.length < 100) break;
    after = page.accounts[page.accounts.length - 1]!.walletAccountId;
  }
  return { wallet, accounts };
}

function createParameters(inputs: WalletInputs) {
  return compact({
    walletName: inputs.walletName,
    accounts: inputs.accounts.map((a) =>
      compact({ curve: a.curve as Curve, pathFormat: a.pathFormat as PathFormat, path: a.path, addressFormat: a.addressFormat as AddressFormat, name: a.name }),
    ),
    mnemonicLength: inputs.mnemonicLength,
  });
}

const ACCOUNT = {
  type: "object",
  properties: {
    curve: { type: "string", enum: ["CURVE_SECP256K1", "CURVE_ED25519"], description: "The account's curve.", required: true },
    pathFormat: { type: "string", enum: ["PATH_FORMAT_BIP32"], description: "The derivation path format; default `PATH_FORMAT_BIP32`." },
    path: { type: "string", description: "The derivation path, e.g. `m/44'/60'/0'/0/0`.", required: true },
    addressFormat: { type: "string", enum: ADDRESS_FORMATS, description: "The address format, e.g. `ADDRESS_FORMAT_ETHEREUM`, `ADDRESS_FORMAT_SOLANA`.", required: true },
    name: { type: "string", description: "The account's name (unique in the organization)." },
  },
} as const;

const describe = {
  description:
    "An HD wallet and its accounts (`create_wallet`). Renaming changes it in place (`update_wallet`); a change of accounts or " +
    "mnemonic length replaces it. Key material is never deleted by accident: without `deleteWithoutExport: true` the wallet is " +
    "retained on destroy and replacement (the new one then needs a new `walletName`).",
  example: {
    name: "treasury",
    inputs: {
      walletName: "treasury",
      accounts: [{"curve": "CURVE_SECP256K1", "path": "m/44'/60'/0'/0/0", "addressFormat": "ADDRESS_FORMAT_ETHEREUM"}, {"curve": "CURVE_ED25519", "path": "m/44'/501'/0'/0'", "addressFormat": "ADDRESS_FORMAT_SOLANA"}],
    },
  },
  guide: [
    "**Key material is never deleted by accident**: unless `deleteWithoutExport: true`, destroy and",
    "replacement leave the wallet in the organization, in every language (the TypeScript class sets",
    "`retainOnDelete`, the provider plugin does not delete), and a replacement then needs a new",
    "`walletName`: names are unique. With `deleteWithoutExport: true`, destroy calls `delete_wallets`",
    "with that flag.",
  ].join("\n"),
  importIdMeaning: "the wallet's id, `walletId`",
  retainedUnless: "deleteWithoutExport",
  inputs: {
    walletName: { type: "string", description: "The wallet's name, unique in the organization.", required: true, defaultsToResourceName: true },
    accounts: { type: "array", items: ACCOUNT, description: "The accounts to derive, in order.", required: true, replaceOnChange: true },
    mnemonicLength: { type: "integer", description: "Words of the generated mnemonic: 12 (default), 15, 18, 21 or 24.", replaceOnChange: true },
    deleteWithoutExport: { ...deleteWithoutExportDescription("wallet"), default: false },
  },
  outputs: {
    walletId: { type: "string", description: "The wallet's id." },
    walletName: { type: "string", description: "The name as the service holds it." },
    accounts: {
      type: "array",
      description: "The wallet's accounts with their ids and addresses, in creation order.",
      items: {
        type: "object",
        properties: {
          ...ACCOUNT.properties,
          walletAccountId: { type: "string", description: "The account's id.", required: true },
          address: { type: "string", description: "The account's address.", required: true },
        },
      },
    },
    addresses: { type: "array", items: { type: "string" }, description: "The accounts' addresses, in creation order." },
    mnemonicLength: { type: "integer", description: "The mnemonic length the wallet was created with (as declared).", optional: true },
    exported: { type: "boolean", description: "Whether the wallet has been exported." },
    deleteWithoutExport: deleteWithoutExportDescription("wallet"),
  },
} as const satisfies ResourceDescription;

/** Normalized inputs of a Wallet. */
export type WalletInputs = InputsOf<typeof describe>;
/** Outputs of a Wallet. */
export type WalletOutputs = OutputsOf<typeof describe>;
/** One account to derive. */
export type WalletAccountInput = WalletInputs["accounts"][number];

/** Every wallet of the organization. */
const listWallets: ListObjects = async (session) => (await collections.wallets(session)).wallets.map((w) => ({ id: w.walletId, label: w.walletName }));

export const walletSpec = defineResource<WalletInputs, WalletOutputs, LiveWallet>({
  kind: "Wallet",
  describe,
  list: listWallets,
  idProperty: "walletId",
  equal: {
    accounts: (a, b) => canonicalJson(((a ?? []) as WalletAccountInput[]).map(accountKey)) === canonicalJson(((b ?? []) as WalletAccountInput[]).map(accountKey)),
    // Not returned by the service: unknown after an import, and then not a difference.
    mnemonicLength: (a, b) => a === undefined || (a ?? 12) === (b ?? 12),
    deleteWithoutExport: sameDeletionChoice,
  },
  normalize(inputs) {
    const accounts: unknown = inputs.accounts ?? [];
    return {
      ...inputs,
      accounts:
        Array.isArray(accounts) && !containsUnknown(accounts)
          ? (accounts as WalletAccountInput[]).map((a) => compact({ curve: a.curve, pathFormat: a.pathFormat ?? "PATH_FORMAT_BIP32", path: a.path, addressFormat: a.addressFormat, name: a.name ?? undefined }))
          : (accounts as WalletAccountInput[]),
    };
  },
  validate(inputs) {
    return schemaFailures(operations.createWallet.parameters, createParameters(inputs), inputs as unknown as Record<string, unknown>);
  },
  label: (inputs) => JSON.stringify(inputs.walletName ?? ""),
  // The name is unique: a replacement that keeps it has to remove the old wallet first (which a
  // retained wallet does not: the new one then fails naming the name, instead of taking it over).
  deleteBeforeReplace: (olds, news) => olds.walletName === news.walletName,
  fetch: (session, id) => fetchWallet(session, id),
  flatten: (live, carry) =>
    compact({
      walletId: live.wallet.walletId,
      walletName: live.wallet.walletName,
      accounts: live.accounts.map((a) =>
        // create_wallet accepts only the curves the description lists, so an account has one of them.
        compact({ curve: a.curve as WalletAccountInput["curve"], pathFormat: a.pathFormat, path: a.path, addressFormat: a.addressFormat, name: a.name, walletAccountId: a.walletAccountId, address: a.address }),
      ),
      addresses: live.accounts.map((a) => a.address),
      mnemonicLength: carry.mnemonicLength,
      exported: live.wallet.exported,
      deleteWithoutExport: carry.deleteWithoutExport ?? false,
    }),
  carriedInputs: (inputs) => compact({ ...carriedDeletionChoice(inputs), mnemonicLength: inputs.mnemonicLength }),
  createActivity: createActivity({
    operation: "createWallet",
    parameters: createParameters,
    createdId: (result) => result.walletId,
  }),
  async findExisting(session, inputs) {
    // Wallet names are unique in an organization.
    const { wallets } = await collections.wallets(session);
    const wallet = wallets.find((w) => w.walletName === inputs.walletName);
    const live = wallet === undefined ? undefined : await fetchWallet(session, wallet.walletId);
    return live === undefined ? undefined : { id: live.wallet.walletId, live };
  },
  async create(session, inputs) {
    const { walletId } = await session.client.createWallet(createParameters(inputs));
    return { id: walletId };
  },
  async update(session, id, live, inputs) {
    if (inputs.walletName !== live.wallet.walletName) await session.client.updateWallet({ walletId: id, walletName: inputs.walletName });
  },
  async remove(session, id, props) {
    await session.client.deleteWallets({ walletIds: [id], deleteWithoutExport: props.deleteWithoutExport === true });
  },
  batch: {
    // One activity per deleteWithoutExport choice; at most the organization's 100 wallets.
    remove: {
      max: 100,
      group: (item) => String(item.props.deleteWithoutExport === true),
      async submit(session, items) {
        await session.client.deleteWallets({ walletIds: items.map((item) => item.id), deleteWithoutExport: items[0]!.props.deleteWithoutExport === true });
        return items.map(() => undefined);
      },
    },
  },
});

/** The runtime handler the Wallet provider code in state delegates to. */
export const walletHandler = makeHandler(walletSpec);
