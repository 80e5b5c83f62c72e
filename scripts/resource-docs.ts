/**
 * @module scripts/resource-docs
 * The documentation written from the registry: the resource table of README.md (between the
 * `generated:resource-summary` markers) and, in the Pulumi Registry's layout, the overview
 * `docs/_index.md` (resources, data functions, the guides), `docs/installation-configuration.md`
 * (installing, and the settings from their descriptions), one page per resource
 * (`docs/resources/<kind>.md`: description, example, inputs, change rules, guide), the resource
 * table of `docs/resources.md` (between the `generated:resources` markers) and the data function
 * table of `docs/data-functions.md` (between the `generated:data-functions` markers).
 * `npm run gen:resources` writes them with the classes; the drift test compares.
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

/** Where resource `kind`'s page lives, relative to the repository root. */
export const resourcePagePath = (kind: string) => `docs/resources/${kind.toLowerCase()}.md`;

/** The resource table of `docs/resources.md`: one row per registered resource, linking its page. */
export function resourceTable(): string {
  const rows = registeredSpecs().map((spec) => {
    const { inPlace, replace, failsPlan } = changes(spec.kind, spec.describe);
    const adopt = spec.describe.importId === false ? "created by taking it over" : `\`importId\`: ${spec.describe.importIdMeaning ?? "its id"}`;
    return `| [\`${spec.kind}\`](${resourcePagePath(spec.kind).slice("docs/".length)}) | ${firstSentence(spec.describe.description)} | ${inPlace} | ${replace} | ${failsPlan} | ${adopt} |`;
  });
  return [
    START,
    "| class | what it manages | changes in place | a change replaces it | a change fails the plan | adopting an existing one |",
    "|---|---|---|---|---|---|",
    ...rows,
    END,
  ].join("\n");
}

const SUMMARY_START = "<!-- generated:resource-summary (npm run gen:resources) -->";
const SUMMARY_END = "<!-- /generated:resource-summary -->";

/** The short resource table of README.md: each resource's page and what it manages. */
export function resourceSummary(): string {
  const rows = registeredSpecs().map((spec) => `| [\`${spec.kind}\`](${resourcePagePath(spec.kind)}) | ${firstSentence(spec.describe.description)} |`);
  return [SUMMARY_START, "| resource | what it manages |", "|---|---|", ...rows, SUMMARY_END].join("\n");
}

/** `page` (named `file` in errors) with the section between `start` and `end` (markers included) replaced by `section`. */
function withSection(file: string, page: string, start: string, end: string, section: string): string {
  const from = page.indexOf(start);
  const to = page.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${file} has no ${start} … ${end} section`);
  return page.slice(0, from) + section + page.slice(to + end.length);
}

const DATA_START = "<!-- generated:data-functions (npm run gen:resources) -->";
const DATA_END = "<!-- /generated:data-functions -->";

/** The argument list of a data function as the docs show it: `{ userId, walletId? }`. */
function argumentList(fn: (typeof DATA_FUNCTIONS)[number]): string {
  const shape = (dataFunctionSchemas(fn).request as unknown as { shape: Record<string, { safeParse(v: unknown): { success: boolean } }> }).shape;
  const names = Object.entries(shape)
    .filter(([name]) => name !== "organizationId")
    .map(([name, field]) => (field.safeParse(undefined).success ? `${name}?` : name));
  return names.length === 0 ? "" : `{ ${names.join(", ")} }`;
}

/** The data function table of `docs/data-functions.md`: one row per entry of the data function table. */
export function dataFunctionTable(): string {
  const rows = DATA_FUNCTIONS.map((fn) => {
    const wire = (operations[fn.query] as { path: string }).path.split("/").pop();
    const call = `${fn.name}(${argumentList(fn)})`;
    return `| \`${call}\` | \`${wire}\` | ${fn.description} |`;
  });
  return [DATA_START, "| function | query | what it returns |", "|---|---|---|", ...rows, DATA_END].join("\n");
}

/** A page of docs/ the overview lists: its file (and anchor) relative to docs/, and what it covers. */
export interface Guide {
  readonly page: string;
  readonly title: string;
}

/**
 * The pages of docs/ in the overview's order. The overview lists those that exist when it is
 * generated, so a page added to docs/ appears once it is named here and `npm run gen:resources` runs.
 */
export const GUIDES: readonly Guide[] = [
  { page: "installation-configuration.md", title: "Installation and configuration: the packages, the plugin, the settings" },
  { page: "resources.md", title: "Resources: what each manages, update or replace, adopting existing objects, preview, refresh, destroy" },
  { page: "data-functions.md", title: "Data functions" },
  { page: "plugin.md", title: "Pulumi YAML, Python, Go and `pulumi import`: the provider plugin" },
  { page: "settings.md", title: "Settings: the rate limit, plural activities, proving the settings, the organization an object lives in" },
  { page: "diagnostics-and-settings.md", title: "Diagnostics: warnings on both doors, failing fast, the default pace" },
  { page: "reliability.md", title: "Reliability: lost answers, killed runs, approvals, exactly once" },
  { page: "lockout.md", title: "No self-lockout" },
  { page: "client.md", title: "The client" },
  { page: "signing.md", title: "Signing in the emulator: raw payloads, transactions, exports, under policy" },
  { page: "emulator.md", title: "The emulator" },
  { page: "emulator.md#the-dashboard", title: "The dashboard" },
  { page: "policies.md", title: "Policies: checks, evaluation, policy tests and access review" },
  { page: "policy-review.md", title: "Policy review" },
  { page: "gitops.md", title: "GitOps: `keyform gitops` and the CI kit" },
  { page: "example-organization.md", title: "The example organization and the GitOps runner" },
  { page: "cli.md", title: "The keyform command" },
  { page: "packages.md", title: "Packages" },
  { page: "performance.md", title: "Performance: benchmarks and measured figures" },
  { page: "development.md", title: "Developing keyform: tests, Node.js lines, the Pulumi CLI" },
  { page: "testing.md", title: "Testing: the guarantees and the tests that prove them, where the time goes" },
  { page: "service-facts.md", title: "Service facts keyform relies on, with their sources" },
  { page: "architecture.md", title: "Architecture" },
];

/** `docs/_index.md`: the package overview of the Pulumi Registry, listing `guides`. */
export function registryIndex(guides: readonly Guide[] = []): string {
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
    ...specs.map((spec) => `- [\`${resourceToken(spec.kind)}\`](${resourcePagePath(spec.kind).slice("docs/".length)}): ${firstSentence(spec.describe.description)}`),
    "",
    "## Functions",
    "",
    ...DATA_FUNCTIONS.map((fn) => `- \`keyform:index:${fn.name}\`: ${fn.description}`),
    "",
    "An existing organization becomes a program with `keyform export --format typescript|yaml`: every object adopted,",
    "the first `pulumi up` changes nothing.",
    ...(guides.length === 0 ? [] : ["", "## Guides", "", ...guides.map((guide) => `- [${guide.title}](${guide.page})`)]),
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
    "  package carries (it needs Node.js 20.17 or later). Install the package in the project folder and name its `bin`",
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
    "How the provider reads and proves them, its pace under the service's rate limit and its plural activities:",
    "[Settings](settings.md).",
    "",
  ].join("\n");
}

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
 * Resource `kind`'s page, all from its description: the title and type token, the description,
 * its example as TypeScript and as Pulumi YAML (both written by the exporter's renderers from the
 * same objects, `exampleProgram`), its inputs and outputs, which changes replace it, and its guide
 * (written relative to `docs/resources/`).
 */
export function resourcePage(kind: string, description: ResourceDescription): string {
  const example = exampleProgram(kind, registeredSpecs());
  return [
    `# ${kind}`,
    "",
    `\`${resourceToken(kind)}\` (TypeScript: \`keyform.${kind}\`). [All resources](../resources.md).`,
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
    "",
  ].join("\n");
}

/** Every resource's page, by path relative to the repository root, in registration order. */
export function resourcePages(): Record<string, string> {
  return Object.fromEntries(registeredSpecs().map((spec) => [resourcePagePath(spec.kind), resourcePage(spec.kind, spec.describe)]));
}

/** Every generated documentation file, by path relative to the repository root. */
export function generatedDocFiles(root: string): Record<string, string> {
  const fs = require("node:fs") as typeof import("node:fs");
  const path = require("node:path") as typeof import("node:path");
  const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");
  const { version } = JSON.parse(read("package.json")) as { version: string };
  const guides = GUIDES.filter((guide) => fs.existsSync(path.join(root, "docs", guide.page.replace(/#.*/, ""))));
  return {
    "README.md": withSection("README.md", read("README.md"), SUMMARY_START, SUMMARY_END, resourceSummary()),
    "docs/_index.md": registryIndex(guides),
    "docs/installation-configuration.md": registryInstallation(version),
    "docs/resources.md": withSection("docs/resources.md", read("docs/resources.md"), START, END, resourceTable()),
    "docs/data-functions.md": withSection("docs/data-functions.md", read("docs/data-functions.md"), DATA_START, DATA_END, dataFunctionTable()),
    ...resourcePages(),
  };
}
