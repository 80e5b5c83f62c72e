import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Engine runs start the Pulumi CLI and plugin processes; give them room.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Test files run in separate processes; engine tests are heavy, so cap parallelism
    // at the machine's two cores.
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // CI logs name every test with its result; locally the compact reporter is enough. The
    // JSON report lets scripts/test close with a plain "N passed, N failed" line.
    reporters: [process.env.CI ? "verbose" : "default", ["json", { outputFile: ".keyform/test-report.json" }]],
  },
});
