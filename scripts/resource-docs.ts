/**
 * @module scripts/resource-docs
 * The documentation written from the registry: the resource table of README.md (between the
 * `generated:resources` markers), and the Pulumi Registry pages `docs/_index.md` and
 * `docs/installation-configuration.md` (resources, data functions and settings from their
 * descriptions). `npm run gen:resources` writes them with the classes; the drift test compares.
 */
import { SETTINGS_DESCRIPTION } from "../sdk/plugin/config";
import { PLUGIN_DOWNLOAD_URL, resourceToken } from "../sdk/plugin/schema";
import { registeredSpecs } from "../sdk/resources/runtime";
import { changeRules, type ResourceDescription } from "../sdk/resources/runtime/describe";
import { DATA_FUNCTIONS } from "../sdk/resources/runtime/queries";
import { SETTING_ENV, type SettingName } from "../sdk/resources/runtime/settings";

const START = "<!-- generated:resources (npm run gen:resources) -->";
const END = "<!-- /generated:resources -->";

/** The first sentence of a description. */
const firstSentence = (text: string) => text.split(/(?<=\.)\s/)[0]!;

/** The inputs of `kind` by what a change of them does ({@link changeRules}), as code spans. */
function changes(kind: string, description: ResourceDescription): { inPlace: string; replace: string; failsPlan: string } {
  const rules = changeRules(kind, description);
  const list = (names: string[]) => names.map((name) => `\`${name}\``).join(", ") || "–";
  return { inPlace: list(rules["in place"]), replace: list(rules.replace), failsPlan: list(rules["fails the plan"]) };
}

/** The resource table: one row per registered resource. */
export function resourceTable(): string {
  const rows = registeredSpecs().map((spec) => {
    const { inPlace, replace, failsPlan } = changes(spec.kind, spec.describe);
    const adopt = spec.describe.importId === false ? "created by taking it over" : `\`importId\`: ${spec.describe.importIdMeaning ?? "its id"}`;
    return `| [\`${spec.kind}\`](#${spec.kind.toLowerCase()}) | ${firstSentence(spec.describe.description)} | ${inPlace} | ${replace} | ${failsPlan} | ${adopt} |`;
  });
  return [
    START,
    "| class | what it manages | changes in place | a change replaces it | a change fails the plan | adopting an existing one |",
    "|---|---|---|---|---|---|",
    ...rows,
    END,
  ].join("\n");
}

/** `readme` with its generated resource table brought up to date. */
export function withResourceTable(readme: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${START} … ${END} section`);
  return readme.slice(0, start) + resourceTable() + readme.slice(end + END.length);
}

/** `docs/_index.md`: the package overview of the Pulumi Registry. */
export function registryIndex(): string {
  const specs = registeredSpecs();
  return [
    "---",
    "title: keyform",
    "meta_desc: Organization configuration as code for the organization, wallet and authentication service, with a local emulator.",
    "layout: package",
    "---",
    "",
    "The keyform provider declares the configuration of an organization of the organization, wallet and authentication",
    "service as code: users, the root quorum, user tags, policies, API keys, invitations, IP allowlists, webhooks, wallets,",
    "private keys, session profiles, smart contract interfaces and Earn wrapper state. `pulumi up` makes the organization match",
    "the program, `pulumi preview` shows what would change, `pulumi refresh` sees changes made outside Pulumi.",
    "",
    "## Example",
    "",
    "```typescript",
    'import * as keyform from "keyform";',
    "",
    'const alice = new keyform.User("alice", { userEmail: "alice@example.com" });',
    'const admins = new keyform.UserTag("admins", { userIds: [alice.userId] });',
    'new keyform.Policy("deny-exports", { policyName: "Nobody exports keys", effect: "EFFECT_DENY", condition: "activity.action == \'EXPORT\'" });',
    "```",
    "",
    "```yaml",
    "resources:",
    "  alice:",
    "    type: keyform:index:User",
    "    properties: { userName: alice, userEmail: alice@example.com }",
    "  admins:",
    "    type: keyform:index:UserTag",
    '    properties: { userTagName: admins, userIds: ["${alice.userId}"] }',
    "```",
    "",
    "## Resources",
    "",
    ...specs.map((spec) => `- \`${resourceToken(spec.kind)}\`: ${firstSentence(spec.describe.description)}`),
    "",
    "## Functions",
    "",
    ...DATA_FUNCTIONS.map((fn) => `- \`keyform:index:${fn.name}\`: ${fn.description}`),
    "",
    "An existing organization becomes a program with `keyform export --format typescript|yaml`: every object adopted,",
    "the first `pulumi up` changes nothing.",
    "",
  ].join("\n");
}

/** `docs/installation-configuration.md`: installing the provider and its settings. */
export function registryInstallation(version: string): string {
  const settings = Object.entries(SETTINGS_DESCRIPTION) as Array<[SettingName, { description: string; secret?: boolean }]>;
  return [
    "---",
    "title: keyform Installation & Configuration",
    "meta_desc: How to install the keyform provider and configure its access to an organization.",
    "layout: package",
    "---",
    "",
    "## Installation",
    "",
    "- TypeScript/JavaScript: `npm install keyform @pulumi/pulumi` (the classes are Pulumi dynamic resources: no plugin needed).",
    "- Pulumi YAML and every other language use the resource provider plugin `pulumi-resource-keyform`, which the npm",
    "  package carries (it needs Node.js 20 or later). Install the package in the project folder and name its `bin`",
    "  folder in the `packages` section of `Pulumi.yaml`; the engine then runs the plugin from there, with no plugin",
    "  install:",
    "",
    "```sh",
    "npm install keyform",
    "```",
    "",
    "```yaml",
    "packages:",
    "  keyform: ./node_modules/keyform/bin",
    "```",
    "",
    "  Or install the plugin once for every project of the machine:",
    "",
    "```sh",
    `pulumi plugin install resource keyform ${version} --file node_modules/keyform/bin/pulumi-resource-keyform`,
    "```",
    "",
    "  `pulumi package add ./node_modules/keyform/bin/pulumi-resource-keyform` writes the `packages` entry itself",
    "  (`keyform: keyform@<version>`, which runs the installed plugin of that version) and generates the package's SDK.",
    "",
    `  The schema names \`${PLUGIN_DOWNLOAD_URL}\` as the plugin's download location (GitHub release assets`,
    "  `pulumi-resource-keyform-v<version>-<os>-<arch>.tar.gz`).",
    "- Go, Python: generate the SDKs from the plugin's schema with `bash scripts/gen-sdks <dir>` in a checkout.",
    "",
    "## Configuration",
    "",
    "Stack config first, the environment second; nothing is stored in state.",
    "",
    "| setting | environment | description |",
    "|---|---|---|",
    ...settings.map(([name, s]) => `| \`keyform:${name}\`${s.secret ? " (secret)" : ""} | \`${SETTING_ENV[name]}\` | ${s.description} |`),
    "",
    "```sh",
    "pulumi config set keyform:organizationId <organization id>",
    "pulumi config set keyform:apiPublicKey <public key hex>",
    "pulumi config set --secret keyform:apiPrivateKey <private key hex>",
    "```",
    "",
    "For a local organization, `keyform serve --port 8090 --data .keyform/emulator` runs the emulator and",
    "`keyform env --data .keyform/emulator --format pulumi` prints these commands for it.",
    "",
  ].join("\n");
}

/** Every generated documentation file, by path relative to the repository root. */
export function generatedDocFiles(root: string): Record<string, string> {
  const fs = require("node:fs") as typeof import("node:fs");
  const path = require("node:path") as typeof import("node:path");
  const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
  return {
    "README.md": withResourceTable(fs.readFileSync(path.join(root, "README.md"), "utf8")),
    "docs/_index.md": registryIndex(),
    "docs/installation-configuration.md": registryInstallation(version),
  };
}
