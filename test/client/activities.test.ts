/**
 * Activities over real HTTP: the envelope, local validation, polling of PENDING activities,
 * consensus (fail at once, or wait for approval), FAILED and REJECTED, idempotent retries.
 */
import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { z } from "zod";
import {
  ActivityFailedError,
  ActivityPollTimeoutError,
  ActivityRejectedError,
  BadRequestError,
  ConsensusNeededError,
  KeyformClient,
  RequestValidationError,
  ResponseValidationError,
  type ClientLogEvent,
} from "../../sdk/client";
import { operations } from "../../sdk/wire/registry";
import { activity, json, newStamper, ORGANIZATION_ID, startServer, type RecordedRequest, type TestServer } from "./helpers";

let server: TestServer;
const { stamper } = newStamper();

function client(options: Partial<ConstructorParameters<typeof KeyformClient>[0]> = {}) {
  return new KeyformClient({
    baseUrl: server.url,
    organizationId: ORGANIZATION_ID,
    stamper,
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    poll: { intervalMs: 20, timeoutMs: 2_000 },
    ...options,
  });
}

function fingerprintOf(req: RecordedRequest): string {
  return `sha256:${createHash("sha256").update(req.body).digest("hex")}`;
}

/**
 * A small activity service: a submit creates an activity in `initialStatus` (keyed by the
 * body's fingerprint, so a resubmission returns the same one); `get_activity` answers from
 * `statusOnPoll(n)` for the n-th poll.
 */
function activityService(
  initialStatus: string,
  statusOnPoll: (poll: number) => string = () => initialStatus,
  extra: Record<string, unknown> = {},
) {
  const byFingerprint = new Map<string, Record<string, unknown>>();
  let polls = 0;
  server.handle((req, res) => {
    if (req.path.startsWith("/public/v1/submit/")) {
      const fingerprint = fingerprintOf(req);
      let existing = byFingerprint.get(fingerprint);
      if (!existing) {
        existing = activity({ id: `act-${byFingerprint.size + 1}`, status: initialStatus, fingerprint, ...extra });
        byFingerprint.set(fingerprint, existing);
      }
      return json(res, 200, { activity: existing });
    }
    if (req.path === "/public/v1/query/get_activity") {
      const found = [...byFingerprint.values()].find((a) => a["id"] === req.json.activityId);
      if (!found) return json(res, 404, { code: 5, message: "activity not found", details: [] });
      found["status"] = statusOnPoll(++polls);
      return json(res, 200, { activity: found });
    }
    json(res, 404, { code: 5, message: "unknown path", details: [] });
  });
  return { byFingerprint, polls: () => polls };
}

beforeEach(async () => {
  server = await startServer();
});
afterEach(async () => {
  await server.close();
});

describe("submit", () => {
  it("sends the envelope and returns the parsed result of a COMPLETED activity", async () => {
    activityService("ACTIVITY_STATUS_COMPLETED");
    const before = Date.now();
    const result = await client().createUserTag({ userTagName: "ops", userIds: [] }, { generateAppProofs: true });

    expect(result).toEqual({ userTagId: "tag-1", userIds: [] });
    const [req] = server.requests;
    expect(req!.path).toBe("/public/v1/submit/create_user_tag");
    expect(Object.keys(req!.json)).toEqual(["type", "timestampMs", "organizationId", "parameters", "generateAppProofs"]);
    expect(req!.json).toMatchObject({
      type: "ACTIVITY_TYPE_CREATE_USER_TAG",
      organizationId: ORGANIZATION_ID,
      parameters: { userTagName: "ops", userIds: [] },
      generateAppProofs: true,
    });
    expect(req!.json.timestampMs).toMatch(/^\d+$/);
    expect(Number(req!.json.timestampMs)).toBeGreaterThanOrEqual(before);
  });

  it("uses the per-call organizationId and timestampMs, and leaves out generateAppProofs when unset", async () => {
    activityService("ACTIVITY_STATUS_COMPLETED");
    await client().createUserTag({ userTagName: "ops", userIds: [] }, { organizationId: "sub-org", timestampMs: 1700000000123 });
    expect(server.requests[0]!.json).toEqual({
      type: "ACTIVITY_TYPE_CREATE_USER_TAG",
      timestampMs: "1700000000123",
      organizationId: "sub-org",
      parameters: { userTagName: "ops", userIds: [] },
    });
  });

  it("a retried submit is answered with the same activity (same fingerprint)", async () => {
    const service = activityService("ACTIVITY_STATUS_COMPLETED");
    let failures = 0;
    // First attempt: the service records the activity, but the answer is lost (503).
    server.handle((req, res, index) => {
      if (index === 0) {
        failures++;
        const fingerprint = fingerprintOf(req);
        service.byFingerprint.set(fingerprint, activity({ id: "act-first", fingerprint }));
        return json(res, 503, { code: 14, message: "unavailable", details: [] });
      }
      const fingerprint = fingerprintOf(req);
      return json(res, 200, { activity: service.byFingerprint.get(fingerprint) ?? activity({ id: "act-duplicate" }) });
    });
    const activityObject = await client().submitActivity("createUserTag", { userTagName: "ops", userIds: [] });
    expect(failures).toBe(1);
    expect(activityObject.id).toBe("act-first");
    expect(service.byFingerprint.size).toBe(1);
  });

  it("submitActivity returns the raw activity", async () => {
    activityService("ACTIVITY_STATUS_COMPLETED");
    const raw = await client().submitActivity("createUserTag", { userTagName: "ops", userIds: [] });
    expect(raw.id).toBe("act-1");
    expect(raw.fingerprint).toBe(fingerprintOf(server.requests[0]!));
    expect(raw.result).toEqual({ createUserTagResult: { userTagId: "tag-1", userIds: [] } });
  });

  it("parses each answer once: the result is checked in the same pass as the activity", async () => {
    // updateUserTag with a counting copy of its result schema, as an operation of its own: the
    // client builds each operation's answer schema once, keyed by the operation, and a file run
    // before this one in the same process may have built updateUserTag's.
    const registry = operations as Record<string, unknown>;
    const def = operations.updateUserTag as { result: z.ZodType };
    let checks = 0;
    const counted = def.result.check(() => void checks++);
    const separateParses = vi.spyOn(counted, "safeParse");
    registry.updateUserTag = { ...def, result: counted };
    try {
      const done = { updateUserTagResult: { userTagId: "tag-1" } };
      const answer = (status: string, result: object) =>
        activity({ status, type: "ACTIVITY_TYPE_UPDATE_USER_TAG", intent: {}, result });
      let polls = 0;
      server.handle((req, res) => {
        if (req.path.startsWith("/public/v1/submit/")) return json(res, 200, { activity: answer("ACTIVITY_STATUS_PENDING", {}) });
        return json(res, 200, { activity: ++polls < 2 ? answer("ACTIVITY_STATUS_PENDING", {}) : answer("ACTIVITY_STATUS_COMPLETED", done) });
      });
      const result = await client().updateUserTag({ userTagId: "tag-1", addUserIds: [], removeUserIds: [] });
      expect(result).toEqual({ userTagId: "tag-1" });
      // Three answers (submit, two polls), the last one with the result: checked once, and not
      // parsed again on its own after the answer's parse.
      expect(server.requests.length).toBe(3);
      expect(checks).toBe(1);
      expect(separateParses).not.toHaveBeenCalled();
    } finally {
      registry.updateUserTag = def;
    }
  });

  it("names the result field when the result object is malformed", async () => {
    server.handle((_req, res) => json(res, 200, { activity: activity({ result: { createUserTagResult: { userIds: [] } } }) }));
    const error = (await client()
      .createUserTag({ userTagName: "ops", userIds: [] })
      .catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.fields).toEqual(["activity.result.createUserTagResult.userTagId"]);
    expect(error.activityId).toBe("act-1");
  });
});

describe("local validation", () => {
  it("rejects bad parameters naming the field, without sending anything", async () => {
    const error = (await client()
      // @ts-expect-error userTagName is missing: the point of the test
      .createUserTag({ userIds: ["u-1"] })
      .catch((e: unknown) => e)) as RequestValidationError;
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.local).toBe(true);
    expect(error.fields).toEqual(["parameters.userTagName"]);
    expect(error.message).toContain("parameters.userTagName");
    expect(error.operation).toBe("createUserTag");
    expect(server.requests).toHaveLength(0);
  });

  it("rejects a wrong type deep inside parameters and an empty organizationId", async () => {
    // @ts-expect-error userIds must be strings
    const deep = await client().createUserTag({ userTagName: "ops", userIds: [7] }).catch((e: unknown) => e);
    expect((deep as RequestValidationError).fields).toEqual(["parameters.userIds.0"]);
    const org = await client()
      .createUserTag({ userTagName: "ops", userIds: [] }, { organizationId: "" })
      .catch((e: unknown) => e);
    expect((org as RequestValidationError).fields).toEqual(["organizationId"]);
    // queries are checked too
    // @ts-expect-error activityId is required
    const query = await client().getActivity({}).catch((e: unknown) => e);
    expect((query as RequestValidationError).fields).toEqual(["activityId"]);
    expect(server.requests).toHaveLength(0);
  });
});

describe("polling", () => {
  it("polls get_activity through PENDING until COMPLETED", async () => {
    const service = activityService("ACTIVITY_STATUS_PENDING", (poll) => (poll < 3 ? "ACTIVITY_STATUS_PENDING" : "ACTIVITY_STATUS_COMPLETED"));
    const events: ClientLogEvent[] = [];
    const result = await client({ logger: (e) => events.push(e) }).createUserTag({ userTagName: "ops", userIds: [] });

    expect(result.userTagId).toBe("tag-1");
    expect(service.polls()).toBe(3);
    const polls = server.requests.slice(1);
    expect(polls.map((r) => r.path)).toEqual(Array(3).fill("/public/v1/query/get_activity"));
    expect(polls[0]!.json).toEqual({ organizationId: ORGANIZATION_ID, activityId: "act-1" });
    expect(polls[0]!.headers["x-stamp"]).toBeTruthy();
    expect(events.filter((e) => e.type === "activity.poll").map((e) => (e as { status: string }).status)).toEqual([
      "ACTIVITY_STATUS_PENDING",
      "ACTIVITY_STATUS_PENDING",
      "ACTIVITY_STATUS_COMPLETED",
    ]);
  });

  it("gives up with ActivityPollTimeoutError when the activity stays PENDING", async () => {
    activityService("ACTIVITY_STATUS_CREATED");
    const error = (await client({ poll: { intervalMs: 20, timeoutMs: 150 } })
      .createUserTag({ userTagName: "ops", userIds: [] })
      .catch((e: unknown) => e)) as ActivityPollTimeoutError;
    expect(error).toBeInstanceOf(ActivityPollTimeoutError);
    expect(error.activityId).toBe("act-1");
    expect(error.activityStatus).toBe("ACTIVITY_STATUS_CREATED");
    expect(server.requests.length).toBeGreaterThan(2);
    expect(server.requests.length).toBeLessThan(20);
  });
});

describe("consensus", () => {
  it("throws ConsensusNeededError at once, naming the activity id and fingerprint", async () => {
    activityService("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    const error = (await client()
      .createUserTag({ userTagName: "ops", userIds: [] })
      .catch((e: unknown) => e)) as ConsensusNeededError;
    expect(error).toBeInstanceOf(ConsensusNeededError);
    const fingerprint = fingerprintOf(server.requests[0]!);
    expect(error.activityId).toBe("act-1");
    expect(error.fingerprint).toBe(fingerprint);
    expect(error.message).toContain("act-1");
    expect(error.message).toContain(fingerprint);
    expect(server.requests).toHaveLength(1);
  });

  it("with consensus.waitMs, waits until the approvals complete the activity", async () => {
    const approvedAt = Date.now() + 300;
    activityService("ACTIVITY_STATUS_CONSENSUS_NEEDED", () =>
      Date.now() < approvedAt ? "ACTIVITY_STATUS_CONSENSUS_NEEDED" : "ACTIVITY_STATUS_COMPLETED",
    );
    const result = await client({ consensus: { waitMs: 5_000 }, poll: { intervalMs: 50 } }).createUserTag({ userTagName: "ops", userIds: [] });
    expect(result.userTagId).toBe("tag-1");
    expect(Date.now()).toBeGreaterThanOrEqual(approvedAt);
    expect(server.requests.length).toBeGreaterThan(2);
  });

  it("with consensus.waitMs, throws ConsensusNeededError when the wait ends", async () => {
    activityService("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    const started = Date.now();
    const error = (await client({ consensus: { waitMs: 200 }, poll: { intervalMs: 40 } })
      .createUserTag({ userTagName: "ops", userIds: [] })
      .catch((e: unknown) => e)) as ConsensusNeededError;
    expect(error).toBeInstanceOf(ConsensusNeededError);
    expect(error.fingerprint).toBe(fingerprintOf(server.requests[0]!));
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    // The wait ended at waitMs, not at the poll timeout (2 s, some 50 polls at 40 ms): the submit
    // and at most one poll per interval, whatever the machine's load (a slow machine polls less).
    expect(server.requests.length).toBeLessThanOrEqual(1 + Math.ceil(200 / 40) + 1);
  });

  it("with consensus.waitMs, a rejection by the approvers throws ActivityRejectedError", async () => {
    activityService("ACTIVITY_STATUS_CONSENSUS_NEEDED", (poll) => (poll < 2 ? "ACTIVITY_STATUS_CONSENSUS_NEEDED" : "ACTIVITY_STATUS_REJECTED"));
    await expect(
      client({ consensus: { waitMs: 5_000 } }).createUserTag({ userTagName: "ops", userIds: [] }),
    ).rejects.toBeInstanceOf(ActivityRejectedError);
  });
});

describe("failed and rejected", () => {
  it("FAILED throws ActivityFailedError with the service's failure message", async () => {
    activityService("ACTIVITY_STATUS_PENDING", () => "ACTIVITY_STATUS_FAILED", {
      failure: { code: 3, message: "user tag name already exists", details: [] },
    });
    const error = (await client()
      .createUserTag({ userTagName: "ops", userIds: [] })
      .catch((e: unknown) => e)) as ActivityFailedError;
    expect(error).toBeInstanceOf(ActivityFailedError);
    expect(error.failureMessage).toBe("user tag name already exists");
    expect(error.failureCode).toBe(3);
    expect(error.message).toContain("user tag name already exists");
    expect(error.activityId).toBe("act-1");
    expect(error.fingerprint).toBe(fingerprintOf(server.requests[0]!));
    expect(error.operation).toBe("createUserTag");
  });

  it("REJECTED throws ActivityRejectedError", async () => {
    activityService("ACTIVITY_STATUS_REJECTED");
    const error = (await client()
      .createUserTag({ userTagName: "ops", userIds: [] })
      .catch((e: unknown) => e)) as ActivityRejectedError;
    expect(error).toBeInstanceOf(ActivityRejectedError);
    expect(error.activityId).toBe("act-1");
    expect(error.message).toContain("rejected");
  });

  it("submitActivity with allowIncomplete returns a FAILED activity instead of throwing", async () => {
    activityService("ACTIVITY_STATUS_FAILED", undefined, { failure: { code: 9, message: "nope" } });
    const raw = await client().submitActivity("createUserTag", { userTagName: "ops", userIds: [] }, { allowIncomplete: true });
    expect(raw.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(raw.failure?.message).toBe("nope");
  });
});
