/**
 * @module cli/export
 * `keyform export`: turns the live organization of the settings in effect (`KEYFORM_*`) into a
 * keyform program that adopts every object by `importId`.
 */
import * as fs from "node:fs";
import { Command, Option } from "commander";
import { ProviderContext } from "../resources/runtime/context";
import { sessionFor } from "../resources/runtime/client";
import { requireSetting } from "../resources/runtime/settings";
import { exportOrganization } from "./export-model";
import { RENDERERS } from "./export-render";

/** The `export` command. */
export function exportCommand(): Command {
  return new Command("export")
    .description("write a keyform program that adopts every object of the organization (all resource classes), but the API key it runs with and its user")
    .addOption(new Option("-f, --format <format>", "program format").choices(Object.keys(RENDERERS)).default("typescript"))
    .option("-o, --out <file>", "write the program to this file (default: standard output; index.ts or Pulumi.yaml are the usual names)")
    .action(async (opts: { format: string; out?: string }) => {
      // The exporter's own context: settings from the environment, clients of its own.
      const context = new ProviderContext(undefined, undefined);
      const settings = context.settings();
      const purpose = "keyform export";
      const organizationId = requireSetting(settings, "organizationId", purpose);
      const resources = await exportOrganization(sessionFor(context, settings, organizationId, purpose));
      const program = RENDERERS[opts.format]!.render(resources, organizationId);
      if (opts.out === undefined) process.stdout.write(program);
      else {
        fs.writeFileSync(opts.out, program);
        process.stderr.write(`keyform export: ${resources.length} resources written to ${opts.out}\n`);
      }
    });
}
