/**
 * @module gitops
 * keyform in a CI pipeline: the operations behind `keyform gitops`, their reports, the
 * comparison of two stacks and the pull request comment. Needs @pulumi/pulumi (the Automation API).
 */
export { runOperation, exitCodeOf, DRIFT_EXIT_CODE, OPERATIONS, type Operation, type GitopsReport, type RunOptions, type Recovery } from "./run";
export { openGitopsStack, type GitopsStackOptions } from "./stack";
export { reportMarkdown, writeReport } from "./report";
export { compareStacks, EXPECTED_DIFFERENCES } from "./compare";
export { postComment, targetFromEnvironment, commentMarker, type CommentTarget, type Forge } from "./comment";
