#!/usr/bin/env node
/**
 * @module cli/main
 * The `keyform` command line: a registry of commands, one module each.
 */
import { Command } from "commander";
import { doctorCommand } from "./doctor";
import { envCommand } from "./env";
import { exportCommand } from "./export";
import { gitopsCommand } from "./gitops";
import { policyCommand } from "./policy";
import { serveCommand } from "./serve";
import { packageVersion } from "./version";

/** The commands, in the order `keyform --help` lists them. */
const COMMANDS: ReadonlyArray<() => Command> = [serveCommand, envCommand, doctorCommand, exportCommand, policyCommand, gitopsCommand];

/** Builds the command tree (exported for tests). */
export function buildProgram(): Command {
  const program = new Command("keyform")
    .description("Organization configuration as code: emulator and tools")
    .version(packageVersion(), "-V, --version", "print keyform's version")
    .showHelpAfterError();
  for (const command of COMMANDS) program.addCommand(command());
  return program;
}

if (require.main === module) {
  buildProgram()
    .parseAsync(process.argv)
    .catch((error: unknown) => {
      process.stderr.write(`keyform: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    });
}
