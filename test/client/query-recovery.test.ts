/**
 * A query that ends without an answer is asked again, like a submit's resend: unit tests of
 * `queryWithRecovery` with a call that fails a set number of times.
 */
import { describe, expect, it } from "vitest";
import { ApiError, ConnectionError, NotFoundError } from "../../sdk/client/errors";
import { QUERY_RECOVERY_CALLS, queryWithRecovery } from "../../sdk/client/query-recovery";

function failing(times: number, failure: () => unknown): { call: () => Promise<string>; calls: () => number } {
  let n = 0;
  return {
    call: async () => {
      n++;
      if (n <= times) throw failure();
      return "answer";
    },
    calls: () => n,
  };
}

const reset = () => new ConnectionError({ operation: "getOrganization" }, "ECONNRESET", new Error("reset"));
const unavailable = () => ApiError.from(503, JSON.stringify({ code: 14, message: "unavailable", details: [] }), { operation: "getOrganization" });

describe("queryWithRecovery", () => {
  it("asks again after calls that ended without an answer, up to QUERY_RECOVERY_CALLS more", async () => {
    for (const failure of [reset, unavailable]) {
      const probe = failing(QUERY_RECOVERY_CALLS, failure);
      await expect(queryWithRecovery(probe.call, Infinity, { pauseMs: 1 })).resolves.toBe("answer");
      expect(probe.calls()).toBe(QUERY_RECOVERY_CALLS + 1);
    }
  });

  it("gives up with the last failure once the extra calls are used", async () => {
    const probe = failing(QUERY_RECOVERY_CALLS + 1, reset);
    await expect(queryWithRecovery(probe.call, Infinity, { pauseMs: 1 })).rejects.toBeInstanceOf(ConnectionError);
    expect(probe.calls()).toBe(QUERY_RECOVERY_CALLS + 1);
  });

  it("does not ask again after a definite answer (404)", async () => {
    const probe = failing(1, () => ApiError.from(404, JSON.stringify({ code: 5, message: "not found", details: [] }), { operation: "getUser" }));
    await expect(queryWithRecovery(probe.call, Infinity, { pauseMs: 1 })).rejects.toBeInstanceOf(NotFoundError);
    expect(probe.calls()).toBe(1);
  });

  it("does not wait past the deadline", async () => {
    const probe = failing(5, reset);
    await expect(queryWithRecovery(probe.call, Date.now() + 50, { pauseMs: 1000 })).rejects.toBeInstanceOf(ConnectionError);
    expect(probe.calls()).toBe(1);
  });
});
