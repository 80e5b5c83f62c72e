/**
 * @module resources/runtime/reachability
 * Whether the service's address can be reached at all: its host name resolves and its port
 * accepts a TCP connection. The settings check (`verify.ts`) asks this before its first request.
 *
 * Why: the client retries a connection that failed before anything was sent (a refused port,
 * a host that does not resolve), with backoff, within `keyform:timeoutMs`: right for a server
 * that restarts in the middle of a run, but for a base URL that is simply wrong it made a
 * preview fail after 35-40 s. An address that refuses or does not resolve when the run starts is
 * a setting to fix, reported at once. The probe opens a connection and closes it: it sends no
 * request, so it costs nothing of the plan's rate.
 */
import * as net from "node:net";

/**
 * Codes of a connection that certainly cannot work as configured: nothing listens, the host
 * name does not resolve (EAI_AGAIN is what a resolver without an answer says, e.g. offline), or
 * no route leads to it.
 */
const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/** Why an address cannot be reached, in words, by code. */
const REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "refuses connections",
  ENOTFOUND: "has a host name that does not resolve",
  EAI_AGAIN: "has a host name that does not resolve",
  EHOSTUNREACH: "has a host no route leads to",
  ENETUNREACH: "is on a network no route leads to",
};

/** An address that cannot be reached: the error code and what it means. */
export interface Unreachable {
  readonly code: string;
  readonly reason: string;
}

/**
 * Connects to the host and port of `baseUrl` and closes the connection.
 * @param waitMs how long to wait for an outcome; a connection still pending then (a filtered
 * port, a slow network) is not judged here: the request that follows has its own first-byte time.
 * @returns why the address cannot be reached, or undefined when it accepted the connection or
 * could not be judged.
 */
export function probeAddress(baseUrl: string, waitMs: number): Promise<Unreachable | undefined> {
  const url = new URL(baseUrl);
  const port = url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  // URL keeps the brackets of an IPv6 literal; net.connect wants the bare address.
  const host = url.hostname.replace(/^\[(.*)\]$/u, "$1");
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (outcome: Unreachable | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => done(undefined), waitMs);
    socket.once("connect", () => done(undefined));
    socket.once("error", (error: NodeJS.ErrnoException) => {
      const code = error.code;
      done(code !== undefined && UNREACHABLE.has(code) ? { code, reason: REASONS[code]! } : undefined);
    });
  });
}
