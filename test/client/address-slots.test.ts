/**
 * The machine-wide book of request starts (`address-slots.ts`): processes that book starts for
 * one service at the same time get starts an interval apart, as the service's per-address limit
 * needs; a lock left by a killed process does not stop the others.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addressSlotsFor } from "../../sdk/client/address-slots";
import { ServicePace } from "../../sdk/client/service-pace";

const compiled = path.resolve(__dirname, "../../dist/sdk/client/address-slots.js");
let folder: string;

beforeEach(() => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-slots-"));
});

afterEach(() => {
  fs.rmSync(folder, { recursive: true, force: true });
});

/** Starts a process that books `count` starts `intervalMs` apart for `baseUrl`; resolves with them. */
function bookingProcess(baseUrl: string, count: number, intervalMs: number): Promise<number[]> {
  const script = `
    const { addressSlotsFor } = require(${JSON.stringify(compiled)});
    const slots = addressSlotsFor(${JSON.stringify(baseUrl)}, ${JSON.stringify(folder)});
    (async () => {
      const starts = [];
      for (let i = 0; i < ${count}; i++) {
        const start = await slots.book(Date.now(), ${intervalMs});
        starts.push(start);
        const wait = start - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      process.stdout.write(JSON.stringify(starts));
    })();
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve(JSON.parse(out) as number[]) : reject(new Error(`booking process exited ${String(code)}`))));
  });
}

describe("address slots", () => {
  it("spaces the starts of concurrent processes by the interval", { timeout: 60_000 }, async () => {
    const interval = 40;
    const all = (await Promise.all([1, 2, 3].map(() => bookingProcess("http://127.0.0.1:9/", 8, interval)))).flat().sort((a, b) => a - b);
    expect(all).toHaveLength(24);
    for (let i = 1; i < all.length; i++) expect(all[i]! - all[i - 1]!, `starts ${i - 1} and ${i}`).toBeGreaterThanOrEqual(interval - 1);
  });

  it("keeps one book per service: another base URL is not delayed", async () => {
    const one = addressSlotsFor("http://127.0.0.1:1/", folder)!;
    const other = addressSlotsFor("http://127.0.0.1:2", folder)!;
    const now = Date.now();
    await one.book(now, 10_000);
    expect(await other.book(now, 10_000)).toBe(now);
    expect(await one.book(now, 10_000)).toBeGreaterThanOrEqual(now + 10_000);
  });

  it("takes over a lock left by a killed process", async () => {
    const slots = addressSlotsFor("http://127.0.0.1:3/", folder)!;
    const file = fs.readdirSync(folder).length === 0 ? undefined : fs.readdirSync(folder)[0];
    expect(file).toBeUndefined();
    await slots.book(Date.now(), 0);
    const [bookFile] = fs.readdirSync(folder);
    const lock = path.join(folder, `${bookFile!}.lock`);
    fs.writeFileSync(lock, "");
    const old = new Date(Date.now() - 10_000);
    fs.utimesSync(lock, old, old);
    const now = Date.now();
    expect(await slots.book(now, 50)).toBeGreaterThanOrEqual(now);
    expect(fs.existsSync(lock)).toBe(false);
  });

  it("a request that wakes late for its booked start books again, rather than land in the next process's second", async () => {
    const slots = addressSlotsFor("http://127.0.0.1:4/", folder)!;
    const pace = new ServicePace(0, slots);
    pace.observe(undefined, "1", "1"); // the free plan: 1 request/s, starts 1.1 s apart
    // Another process's booking: this process's start in the book is 200 ms away.
    const now = Date.now();
    await slots.book(now - 900, 1_100);
    // The event loop starved past that start (a loaded machine): the timer wakes ~450 ms late.
    setTimeout(() => {
      const until = Date.now() + 600;
      while (Date.now() < until);
    }, 50);
    await pace.acquire();
    // Sent at the wake, it would come within a second of the start booked after the missed one.
    expect(Date.now()).toBeGreaterThanOrEqual(now + 200 + 1_100);
  });
});

