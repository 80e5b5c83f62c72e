/**
 * @module client/http-pool
 * Sends one POST and reads its whole answer, through a process-wide keep-alive connection
 * pool of `node:http` / `node:https` (the default), or through a given `fetch`.
 *
 * Why not the global `fetch`: each call sets up a Request, a Headers object, a body stream
 * and an AbortController, which costs more than the request itself at a few hundred requests
 * per second. The pool keeps connections open between requests and does none of that.
 * Redirects are never followed: they would resend the stamped body somewhere else.
 */
import * as http from "node:http";
import * as https from "node:https";

/** A whole answer: status, headers and the body as text. */
export interface HttpAnswer {
  status: number;
  statusText: string;
  /** A response header (lower-case name), or undefined when absent. */
  header(name: string): string | undefined;
  text: string;
}

/** Thrown (as is) when an attempt runs out of time; the caller turns it into its own error. */
export const TIMED_OUT: unique symbol = Symbol("timed out");

/**
 * Thrown when nothing of the answer arrived within the first-byte time: `connected` says whether
 * the connection was made (the server accepted it and stayed silent) or not even that
 * (undefined when the sender cannot tell).
 */
export class NoFirstByte {
  constructor(
    readonly connected: boolean | undefined,
    readonly afterMs: number,
  ) {}
}

/** Connections kept per host; more requests than this wait for a free one. */
const MAX_SOCKETS_PER_HOST = 64;

const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS_PER_HOST }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS_PER_HOST }),
};

/**
 * POSTs `body` to `url` on a pooled keep-alive connection and reads the answer within
 * `timeoutMs` (the body included); the status line must arrive within `firstByteMs` (connecting
 * included) when that is shorter.
 * @throws {typeof TIMED_OUT} when the time runs out; {@link NoFirstByte} when nothing arrived
 * within `firstByteMs`; a network error (with its `code`) otherwise.
 */
export function poolPost(url: string, headers: Record<string, string>, body: string, timeoutMs: number, firstByteMs = Infinity): Promise<HttpAnswer> {
  const target = new URL(url);
  const transport = target.protocol === "https:" ? https : http;
  const agent = target.protocol === "https:" ? agents["https:"] : agents["http:"];
  const payload = Buffer.from(body, "utf8");
  return new Promise<HttpAnswer>((resolve, reject) => {
    let timedOut = false;
    let failure: unknown = TIMED_OUT;
    let connected = false;
    const request = transport.request(
      target,
      { method: "POST", agent, headers: { ...headers, "Content-Length": String(payload.length) } },
      (response) => {
        clearTimeout(firstByteTimer);
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", (error) => reject(timedOut ? failure : error));
        response.on("end", () => {
          clearTimeout(timer);
          const raw = response.headers;
          resolve({
            status: response.statusCode ?? 0,
            statusText: response.statusMessage ?? "",
            header: (name) => {
              const value = raw[name.toLowerCase()];
              return Array.isArray(value) ? value.join(", ") : value;
            },
            text: Buffer.concat(chunks).toString("utf8"),
          });
        });
      },
    );
    const timer = setTimeout(() => {
      timedOut = true;
      clearTimeout(firstByteTimer);
      request.destroy();
    }, timeoutMs);
    const firstByteTimer =
      firstByteMs < timeoutMs
        ? setTimeout(() => {
            timedOut = true;
            failure = new NoFirstByte(connected, firstByteMs);
            clearTimeout(timer);
            request.destroy();
          }, firstByteMs)
        : undefined;
    request.on("socket", (socket) => {
      // A pooled socket is already connected; a new one says so when it is.
      if (!socket.connecting) connected = true;
      else socket.once("connect", () => (connected = true));
    });
    request.on("error", (error) => {
      clearTimeout(timer);
      clearTimeout(firstByteTimer);
      reject(timedOut ? failure : error);
    });
    request.end(payload);
  });
}

/** The same as {@link poolPost}, through `fetchImpl` (which does not say when it connected). */
export async function fetchPost(fetchImpl: typeof fetch, url: string, headers: Record<string, string>, body: string, timeoutMs: number, firstByteMs = Infinity): Promise<HttpAnswer> {
  const controller = new AbortController();
  let failure: unknown = TIMED_OUT;
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const firstByteTimer =
    firstByteMs < timeoutMs
      ? setTimeout(() => {
          failure = new NoFirstByte(undefined, firstByteMs);
          controller.abort();
        }, firstByteMs)
      : undefined;
  try {
    const response = await fetchImpl(url, { method: "POST", headers, body, signal: controller.signal, redirect: "error" });
    clearTimeout(firstByteTimer);
    const text = await response.text();
    return { status: response.status, statusText: response.statusText, header: (name) => response.headers.get(name) ?? undefined, text };
  } catch (error) {
    if (controller.signal.aborted) throw failure;
    throw error;
  } finally {
    clearTimeout(timer);
    clearTimeout(firstByteTimer);
  }
}
