/**
 * @module cli/gitops
 * `keyform gitops preview|up|drift|compare|comment`: keyform in a platform team's pipeline.
 * Each of preview, up and drift writes `<out>/<operation>.md` (the pull request comment) and
 * `<out>/<operation>.json`, prints the Markdown, and exits 0 (success; for drift: none), 1
 * (errors, or a failed access gate) or 3 (drift). Settings come from the stack config and the
 * KEYFORM_* environment, exactly as for `pulumi up`. The operations load @pulumi/pulumi (the
 * package's peer dependency) only when they run, so the other commands work without it.
 */
import * as fs from "node:fs";
import { Command, Option } from "commander";
import type { Operation } from "../gitops/run";

/** The GitOps modules, loaded when a command runs (they need @pulumi/pulumi). */
function loadGitops(): typeof import("../gitops") {
  try {
    return require("../gitops") as typeof import("../gitops");
  } catch (error) {
    if ((error as { code?: string }).code === "MODULE_NOT_FOUND" && String((error as Error).message).includes("@pulumi/pulumi")) {
      throw new Error("keyform gitops needs @pulumi/pulumi, keyform's peer dependency: npm install @pulumi/pulumi");
    }
    throw error;
  }
}

const DESCRIPTIONS: Record<Operation, string> = {
  preview:
    "read the live organization, then plan: the changes with each field's before and after, the policy lint warnings, and who gains or loses access when a policy changes; fails when the plan would lock the deploying credentials out",
  up: "clear what a killed run left pending, read the live organization, preview, and apply only when the preview passes: what was changed by hand is set back to the code",
  drift: "refresh-only preview: did someone change the organization by hand? (exit 3 on drift)",
};

interface OperationOptions {
  stack: string;
  out: string;
  workDir: string;
  pulumi?: string;
  refresh: boolean;
  newAccess: boolean;
  breakGlass?: string;
}

function operationCommand(operation: Operation): Command {
  const command = new Command(operation)
    .description(DESCRIPTIONS[operation])
    .requiredOption("-s, --stack <name>", "the stack")
    .option("-o, --out <dir>", "folder of the reports (<operation>.md and <operation>.json)", "keyform-reports")
    .option("-C, --work-dir <dir>", "the Pulumi project folder (holds Pulumi.yaml)", ".")
    .option("--pulumi <bin dir>", "folder holding the pulumi CLI and its plugins (default: pulumi on PATH)");
  if (operation !== "drift") command.option("--no-refresh", "plan from the recorded state only, without reading the live organization first");
  if (operation === "preview") {
    command
      .option("--no-new-access", "fail when a policy change gives anyone access, or when the access diff is not proved")
      .option("--break-glass <tag>", "fail when this tag's users lose their policy-management access");
  }
  command.addHelpText("after", "\nExit codes: 0 success" + (operation === "drift" ? " and no drift, 3 drift" : "") + ", 1 errors.");
  return command.action(async (opts: OperationOptions) => {
    const { openGitopsStack } = loadGitops();
    const { exitCodeOf, runOperation } = loadGitops();
    const { reportMarkdown, writeReport } = loadGitops();
    const stack = await openGitopsStack({ stackName: opts.stack, workDir: opts.workDir, ...(opts.pulumi ? { pulumiBin: opts.pulumi } : {}) });
    const gate = { noNewAccess: opts.newAccess === false, ...(opts.breakGlass ? { breakGlassTag: opts.breakGlass } : {}) };
    const report = await runOperation(operation, stack, { refresh: opts.refresh !== false, gate });
    process.stdout.write(writeReport(opts.out, operation, report, reportMarkdown(report)));
    process.exitCode = exitCodeOf(operation, report);
  });
}

interface CompareOptions {
  stack: string[];
  out: string;
  workDir: string;
}

function compareCommand(): Command {
  return new Command("compare")
    .description(
      "put two stacks' live organizations side by side: the objects that differ (matched by name) with their differing fields, and who may do in one what they may not in the other (users matched by name); differences the stacks' keyform-gitops:expectedDifferences config declares are left out",
    )
    .requiredOption("-s, --stack <name>", "a stack (give two: --stack staging --stack prod)", (value: string, previous: string[] = []) => [...previous, value])
    .option("-o, --out <dir>", "folder of the report (compare.md and compare.json)", "keyform-reports")
    .option("-C, --work-dir <dir>", "the Pulumi project folder (holds Pulumi.yaml)", ".")
    .option("--pulumi <bin dir>", "folder holding the pulumi CLI (default: pulumi on PATH)")
    .addHelpText("after", "\nExit codes: 0 the same, 3 they differ, 1 errors.")
    .action(async (opts: CompareOptions & { pulumi?: string }) => {
      if (opts.stack.length !== 2) throw new Error(`--stack: give exactly two stacks to compare (got ${opts.stack.length})`);
      const { compareStacks } = loadGitops();
      const { writeReport } = loadGitops();
      const result = await compareStacks(opts.stack[0]!, opts.stack[1]!, { workDir: opts.workDir, ...(opts.pulumi ? { pulumiBin: opts.pulumi } : {}) });
      process.stdout.write(writeReport(opts.out, "compare", result.report, result.markdown));
      process.exitCode = result.exitCode;
    });
}

interface CommentOptions {
  forge: "github" | "gitlab";
  bodyFile: string;
  key: string;
  number?: string;
  apiUrl?: string;
  project?: string;
  tokenEnv?: string;
}

function commentCommand(): Command {
  return new Command("comment")
    .description("create, or update, the one pull request comment (GitHub) or merge request note (GitLab) of a stack with a report")
    .addOption(new Option("--forge <forge>", "where the pull or merge request is").choices(["github", "gitlab"]).makeOptionMandatory())
    .requiredOption("-b, --body-file <file>", "the Markdown to post (e.g. keyform-reports/preview.md)")
    .requiredOption("-k, --key <key>", "what tells this comment apart (the stack's name): one comment per key")
    .option("--number <n>", "the pull request number or merge request iid (default: from the CI environment)")
    .option("--api-url <url>", "the API root (default GITHUB_API_URL, or CI_API_V4_URL)")
    .option("--project <project>", "owner/name (GitHub) or project id (GitLab) (default GITHUB_REPOSITORY, or CI_PROJECT_ID)")
    .option("--token-env <name>", "the environment variable holding the token (default GITHUB_TOKEN, or GITLAB_NOTE_TOKEN)")
    .action(async (opts: CommentOptions) => {
      const { postComment, targetFromEnvironment } = loadGitops();
      const given = { ...(opts.number ? { number: opts.number } : {}), ...(opts.apiUrl ? { apiUrl: opts.apiUrl } : {}), ...(opts.project ? { project: opts.project } : {}) };
      const target = targetFromEnvironment(opts.forge, opts.key, given, process.env, opts.tokenEnv);
      const result = await postComment(target, fs.readFileSync(opts.bodyFile, "utf8"));
      process.stdout.write(`keyform gitops comment: ${result.action} comment ${result.id} on ${target.project}#${target.number}\n`);
    });
}

/** The `gitops` command. */
export function gitopsCommand(): Command {
  const gitops = new Command("gitops").description("keyform in a CI pipeline: preview on a pull request, up on merge, scheduled drift checks, stack comparison, and the pull request comment");
  for (const operation of ["preview", "up", "drift"] as const) gitops.addCommand(operationCommand(operation));
  gitops.addCommand(compareCommand());
  gitops.addCommand(commentCommand());
  return gitops;
}
