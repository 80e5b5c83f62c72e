/**
 * @module scripts/resource-docs
 * The documentation written from the registry: the resource table of README.md (between the
 * `generated:resources` markers), every resource's own section (between the
 * `generated:resource-sections` markers: heading, example, inputs, change rules, guide), and the Pulumi Registry pages `docs/_index.md` and
 * `docs/installation-configuration.md` (resources, data functions and settings from their
 * descriptions). `npm run gen:resources` writes them with the classes; the drift test compares.
 */

import { settingDocumentation } from "../sdk/plugin/config";
import { PLUGIN_DOWNLOAD_URL, resourceToken } from "../sdk/plugin/schema";
import { registeredSpecs } from "../sdk/resources/runtime";
import { exampleProgram } from "../sdk/resources/runtime/example";
import { RENDERERS } from "../sdk/resources/runtime/program-render";
import { allInputs, changeBehaviour, changeRules, type ResourceDescription } from "../sdk/resources/runtime/describe";
import { DATA_FUNCTIONS, dataFunctionSchemas } from "../sdk/resources/runtime/queries";
import { isSecretSetting, SETTING_NAMES, settingSpec } from "../sdk/resources/runtime/settings";
import { operations } from "../sdk/wire/registry";

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

/** `readme` with the section between `start` and `end` (markers included) replaced by `section`. */
function withSection(readme: string, start: string, end: string, section: string): string {
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) throw new Error(`README.md has no ${start} … ${end} section`);
  return readme.slice(0, from) + section + readme.slice(to + end.length);
}

/** `readme` with its generated resource table brought up to date. */
export function withResourceTable(readme: string): string {
  return withSection(readme, START, END, resourceTable());
}

const SETTINGS_START = "<!-- generated:settings (npm run gen:resources) -->";
const SETTINGS_END = "<!-- /generated:settings -->";

/** The settings table of the README: one row per entry of the settings table. */
export function settingsTable(): string {
  const rows = SETTING_NAMES.map((name) => {
    const spec = settingSpec(name);
    const fallback = spec.default === undefined ? "–" : `\`${String(spec.default)}\``;
    return `| \`keyform:${name}\`${isSecretSetting(name) ? " (secret)" : ""} | \`${spec.env}\` | ${fallback} | ${spec.description} |`;
  });
  return [SETTINGS_START, "| stack config | environment | default | meaning |", "|---|---|---|---|", ...rows, SETTINGS_END].join("\n");
}

const DATA_START = "<!-- generated:data-functions (npm run gen:resources) -->";
const DATA_END = "<!-- /generated:data-functions -->";

/** The argument list of a data function as the README shows it: `{ userId, walletId? }`. */
function argumentList(fn: (typeof DATA_FUNCTIONS)[number]): string {
  const shape = (dataFunctionSchemas(fn).request as unknown as { shape: Record<string, { safeParse(v: unknown): { success: boolean } }> }).shape;
  const names = Object.entries(shape)
    .filter(([name]) => name !== "organizationId")
    .map(([name, field]) => (field.safeParse(undefined).success ? `${name}?` : name));
  return names.length === 0 ? "" : `{ ${names.join(", ")} }`;
}

/** The data function table of the README: one row per entry of the data function table. */
export function dataFunctionTable(): string {
  const rows = DATA_FUNCTIONS.map((fn) => {
    const wire = (operations[fn.query] as { path: string }).path.split("/").pop();
    const call = `${fn.name}(${argumentList(fn)})`;
    return `| \`${call}\` | \`${wire}\` | ${fn.description} |`;
  });
  return [DATA_START, "| function | query | what it returns |", "|---|---|---|", ...rows, DATA_END].join("\n");
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
    ...SETTING_NAMES.map((name) => `| \`keyform:${name}\`${isSecretSetting(name) ? " (secret)" : ""} | \`${settingSpec(name).env}\` | ${settingDocumentation(name)} |`),
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

const SECTIONS_START = "<!-- generated:resource-sections (npm run gen:resources) -->";
const SECTIONS_END = "<!-- /generated:resource-sections -->";

/** `text` fit for a Markdown table cell. */
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The inputs of `description` as a table, optional ones marked `?`. */
function inputTable(description: ResourceDescription): string[] {
  const rows = Object.entries(description.inputs).map(([name, property]) => {
    const optional = property.required !== true || property.defaultsToResourceName === true;
    const notes = [
      ...(property.defaultsToResourceName === true && !/default/i.test(property.description) ? ["Default: the resource name."] : []),
      ...(property.secret === true ? ["A secret."] : []),
    ];
    return `| \`${name}${optional ? "?" : ""}\` | ${cell([property.description, ...notes].join(" "))} |`;
  });
  return ["| input | meaning |", "|---|---|", ...rows];
}

/**
 * Resource `kind`'s README section, all from its description: the heading, the description, its
 * example as TypeScript and as Pulumi YAML (both written by the exporter's renderers from the
 * same objects, `exampleProgram`), its inputs and outputs, which changes replace it, and its guide.
 */
export function resourceSection(kind: string, description: ResourceDescription): string {
  const example = exampleProgram(kind, registeredSpecs());
  return [
    `### ${kind}`,
    "",
    description.description,
    "",
    "```ts",
    RENDERERS.typescript!.declarations(example).trimEnd(),
    "```",
    "",
    "```yaml",
    RENDERERS.yaml!.declarations(example).trimEnd(),
    "```",
    "",
    ...inputTable(description),
    "",
    `Outputs: ${Object.keys(description.outputs).map((name) => `\`${name}\``).join(", ")}.`,
    "",
    changeBehaviour(kind, description),
    ...(description.guide === undefined ? [] : ["", description.guide]),
  ].join("\n");
}

/** The README's per-resource sections: one per registered resource, in registration order. */
export function resourceSections(): string {
  return [SECTIONS_START, ...registeredSpecs().map((spec) => resourceSection(spec.kind, spec.describe) + "\n"), SECTIONS_END].join("\n");
}

/** `readme` with every resource's section brought up to date. */
export function withResourceSections(readme: string): string {
  return withSection(readme, SECTIONS_START, SECTIONS_END, resourceSections());
}

/** `readme` with every generated section brought up to date. */
export function withGeneratedSections(readme: string): string {
  const withSettings = withSection(withResourceSections(withResourceTable(readme)), SETTINGS_START, SETTINGS_END, settingsTable());
  return withSection(withSettings, DATA_START, DATA_END, dataFunctionTable());
}

/** Every generated documentation file, by path relative to the repository root. */
export function generatedDocFiles(root: string): Record<string, string> {
  const fs = require("node:fs") as typeof import("node:fs");
  const path = require("node:path") as typeof import("node:path");
  const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
  return {
    "README.md": withGeneratedSections(fs.readFileSync(path.join(root, "README.md"), "utf8")),
    "docs/_index.md": registryIndex(),
    "docs/installation-configuration.md": registryInstallation(version),
  };
}
