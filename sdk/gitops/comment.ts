/**
 * @module gitops/comment
 * One pull request comment (GitHub) or merge request note (GitLab) per stack, created by the
 * first run and updated by every later one, so a pull request never collects a comment per
 * push. The comment carries a hidden marker naming the stack; the poster lists the existing
 * comments (every page), updates the one holding the marker, or creates it.
 *
 * GitHub REST: `GET/POST /repos/{repo}/issues/{number}/comments`, `PATCH
 * /repos/{repo}/issues/comments/{id}`, with `Authorization: Bearer <GITHUB_TOKEN>`.
 * GitLab REST: `GET/POST /projects/{id}/merge_requests/{iid}/notes`, `PUT
 * .../notes/{note_id}`, with `PRIVATE-TOKEN: <token>`.
 */
import * as fs from "node:fs";

export type Forge = "github" | "gitlab";

export interface CommentTarget {
  readonly forge: Forge;
  /** GitHub: the API root (GITHUB_API_URL); GitLab: the v4 API root (CI_API_V4_URL). */
  readonly apiUrl: string;
  /** GitHub: `owner/name` (GITHUB_REPOSITORY); GitLab: the project id (CI_PROJECT_ID). */
  readonly project: string;
  /** The pull request number or the merge request iid. */
  readonly number: string;
  readonly token: string;
  /** Told apart from other comments by this (the stack's name): one comment per stack. */
  readonly key: string;
}

/** What the poster did. */
export interface CommentResult {
  readonly action: "created" | "updated";
  readonly id: number;
}

/** The hidden line that marks keyform's comment for `key`. */
export function commentMarker(key: string): string {
  return `<!-- keyform-gitops: ${key.replace(/-->/gu, "")} -->`;
}

interface Comment {
  id: number;
  body?: string;
}

/** Creates or updates the one comment for `target.key` with `body`. */
export async function postComment(target: CommentTarget, body: string): Promise<CommentResult> {
  const marker = commentMarker(target.key);
  const text = `${marker}\n${body}`;
  const api = target.apiUrl.replace(/\/+$/u, "");
  const list =
    target.forge === "github"
      ? `${api}/repos/${target.project}/issues/${target.number}/comments`
      : `${api}/projects/${encodeURIComponent(target.project)}/merge_requests/${target.number}/notes`;
  const existing = (await listAll(target, list)).find((c) => c.body?.startsWith(marker));
  if (existing !== undefined) {
    const url = target.forge === "github" ? `${api}/repos/${target.project}/issues/comments/${existing.id}` : `${list}/${existing.id}`;
    await request(target, target.forge === "github" ? "PATCH" : "PUT", url, { body: text });
    return { action: "updated", id: existing.id };
  }
  const created = (await request(target, "POST", list, { body: text })) as Comment;
  return { action: "created", id: created.id };
}

/** Every comment, page by page (100 a page), until a short page. */
async function listAll(target: CommentTarget, url: string): Promise<Comment[]> {
  const all: Comment[] = [];
  for (let page = 1; ; page++) {
    const batch = (await request(target, "GET", `${url}?per_page=100&page=${page}`)) as Comment[];
    if (!Array.isArray(batch)) throw new Error(`${target.forge}: listing the comments of ${target.project}#${target.number} did not return a list`);
    all.push(...batch);
    if (batch.length < 100) return all;
  }
}

async function request(target: CommentTarget, method: string, url: string, body?: object): Promise<unknown> {
  const auth: Record<string, string> = target.forge === "github" ? { authorization: `Bearer ${target.token}`, accept: "application/vnd.github+json" } : { "private-token": target.token };
  const response = await fetch(url, {
    method,
    headers: { ...auth, ...(body ? { "content-type": "application/json" } : {}), "user-agent": "keyform-gitops" },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) {
    // The token never appears in the message; the forge's answer says what is wrong.
    throw new Error(`${target.forge}: ${method} ${new URL(url).pathname} answered ${response.status}: ${text.slice(0, 300)}`);
  }
  return text === "" ? undefined : (JSON.parse(text) as unknown);
}

/**
 * The target from a CI job's environment: GitHub Actions (GITHUB_API_URL, GITHUB_REPOSITORY, the
 * pull request of GITHUB_EVENT_PATH, GITHUB_TOKEN) or GitLab CI (CI_API_V4_URL, CI_PROJECT_ID,
 * CI_MERGE_REQUEST_IID, the token in `tokenVariable`, default GITLAB_NOTE_TOKEN). `given` wins
 * over the environment; a missing piece is an error that names its variable.
 */
export function targetFromEnvironment(forge: Forge, key: string, given: Partial<CommentTarget> = {}, env: NodeJS.ProcessEnv = process.env, tokenVariable?: string): CommentTarget {
  const need = (value: string | undefined, name: string): string => {
    if (value === undefined || value === "") throw new Error(`keyform gitops comment: ${name} is not set (${forge})`);
    return value;
  };
  if (forge === "github") {
    const tokenName = tokenVariable ?? "GITHUB_TOKEN";
    return {
      forge,
      key,
      apiUrl: given.apiUrl ?? env.GITHUB_API_URL ?? "https://api.github.com",
      project: need(given.project ?? env.GITHUB_REPOSITORY, "GITHUB_REPOSITORY"),
      number: need(given.number ?? pullRequestNumber(env.GITHUB_EVENT_PATH), "the pull request number (--number, or GITHUB_EVENT_PATH of a pull_request event)"),
      token: need(given.token ?? env[tokenName], tokenName),
    };
  }
  const tokenName = tokenVariable ?? "GITLAB_NOTE_TOKEN";
  return {
    forge,
    key,
    apiUrl: need(given.apiUrl ?? env.CI_API_V4_URL, "CI_API_V4_URL"),
    project: need(given.project ?? env.CI_PROJECT_ID, "CI_PROJECT_ID"),
    number: need(given.number ?? env.CI_MERGE_REQUEST_IID, "CI_MERGE_REQUEST_IID (--number)"),
    token: need(given.token ?? env[tokenName], tokenName),
  };
}

/** The pull request number of a GitHub event payload, if it is a pull request's. */
function pullRequestNumber(eventPath: string | undefined): string | undefined {
  if (eventPath === undefined || !fs.existsSync(eventPath)) return undefined;
  const event = JSON.parse(fs.readFileSync(eventPath, "utf8")) as { pull_request?: { number?: number }; number?: number };
  const number = event.pull_request?.number ?? event.number;
  return number === undefined ? undefined : String(number);
}
