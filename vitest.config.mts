import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { EngineFirstSequencer } from "./test/support/engine-first-sequencer";
import { FileTimingsReporter } from "./test/support/file-timings-reporter";

export default defineConfig({
  // The emulator imports the layers below it as `keyform/<layer>/<module>` (the package's own
  // name, so the published keyform-emulator finds them in keyform); tests load the sources.
  resolve: {
    alias: [
      { find: /^keyform\/emulator-contract$/, replacement: fileURLToPath(new URL("./sdk/emulator-contract.ts", import.meta.url)) },
      { find: /^keyform\/(wire|protocol|crypto|policy)$/, replacement: fileURLToPath(new URL("./sdk/$1/index.ts", import.meta.url)) },
      { find: /^keyform\/(wire|protocol|crypto|policy)\/(.+)$/, replacement: fileURLToPath(new URL("./sdk/$1/$2", import.meta.url)) },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    // Engine runs start the Pulumi CLI and plugin processes; give them room.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // A late acknowledgement of a progress report on a loaded machine is not a failure of the
    // run (see the file for why that is safe).
    setupFiles: ["test/support/late-task-acks.ts"],
    // The emulator of the tests enforces no rate limit, so the provider need not pace itself
    // (the default keeps to the hosted service's 10 requests per second). Pacing is proven on
    // its own in test/client/rate-limit.test.ts, which sets its settings explicitly.
    env: { KEYFORM_MAX_REQUESTS_PER_SECOND: process.env.KEYFORM_MAX_REQUESTS_PER_SECOND ?? "0" },
    // Test files run in separate processes; engine tests are heavy, so parallelism is capped
    // at the machine's two cores unless KEYFORM_TEST_FORKS says otherwise.
    pool: "forks",
    poolOptions: { forks: { maxForks: testForks(), minForks: 1 } },
    // The long engine files start first, so they do not run alone at the end (see the file).
    sequence: { sequencer: EngineFirstSequencer },
    // CI logs name every test with its result; locally the compact reporter is enough. The
    // JSON report lets scripts/test close with a plain "N passed, N failed" line, the file
    // timings with the table of the files by duration.
    reporters: [process.env.CI ? "verbose" : "default", ["json", { outputFile: ".keyform/test-report.json" }], new FileTimingsReporter()],
  },
});

/** How many test files run at a time: KEYFORM_TEST_FORKS, a positive whole number, else 2. */
function testForks(): number {
  const setting = process.env.KEYFORM_TEST_FORKS;
  if (setting === undefined || setting === "") return 2;
  const forks = Number(setting);
  if (!Number.isInteger(forks) || forks < 1) throw new Error(`KEYFORM_TEST_FORKS must be a positive whole number, got ${JSON.stringify(setting)}`);
  return forks;
}
