/**
 * @module client/address-slots
 * The service counts requests per client address, and one machine's processes share that
 * address: a Pulumi program's data functions, the provider, the GitOps runner, a script. Each
 * process paces itself (`service-pace.ts`); this small book, a file per service, spaces their
 * starts from one another too, so two processes' first requests (each sent before its process
 * has learned the plan's rate) do not land in the same second of a 1 request/s plan.
 *
 * A start is booked only when its process is about to send, so the file never runs more than
 * one interval ahead of the clock: a process killed after booking costs the others at most that.
 * The book is an aid, never a condition: when the file or its lock cannot be used, a request
 * goes on its own process's pace.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { sleep } from "./retry";

/** A lock older than this was left by a process killed while holding it (held for microseconds otherwise). */
const STALE_LOCK_MS = 2_000;
/** How long a booking waits for the lock before going on without the book. */
const LOCK_WAIT_MS = 1_000;

/** The start times booked by every process of this machine for one service. */
export class AddressSlots {
  private readonly lock: string;

  constructor(private readonly file: string) {
    this.lock = `${file}.lock`;
  }

  /**
   * Books a start at or after `earliest` and at least `intervalMs` after the start any process
   * booked before; returns it (`earliest` when the book cannot be used).
   */
  async book(earliest: number, intervalMs: number): Promise<number> {
    if (!(await this.takeLock())) return earliest;
    try {
      const next = this.readNext();
      const start = Math.max(earliest, next);
      fs.writeFileSync(this.file, String(Math.ceil(start + intervalMs)));
      return start;
    } catch {
      return earliest;
    } finally {
      fs.rmSync(this.lock, { force: true });
    }
  }

  private readNext(): number {
    try {
      const value = Number(fs.readFileSync(this.file, "utf8"));
      return Number.isFinite(value) ? value : 0;
    } catch {
      return 0;
    }
  }

  private async takeLock(): Promise<boolean> {
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        fs.closeSync(fs.openSync(this.lock, "wx"));
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") return false;
      }
      try {
        if (Date.now() - fs.statSync(this.lock).mtimeMs > STALE_LOCK_MS) fs.rmSync(this.lock, { force: true });
      } catch {
        // Released meanwhile.
      }
      if (Date.now() > deadline) return false;
      await sleep(2);
    }
  }
}

/** The book of the service at `baseUrl` (without a trailing slash), in the machine's temporary folder (or `folder`). */
export function addressSlotsFor(baseUrl: string, folder = path.join(os.tmpdir(), "keyform-pace")): AddressSlots | undefined {
  try {
    fs.mkdirSync(folder, { recursive: true });
  } catch {
    return undefined;
  }
  const name = createHash("sha256").update(baseUrl).digest("hex").slice(0, 32);
  return new AddressSlots(path.join(folder, name));
}
