import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One PostgreSQL server of the run's own; each file takes a database of its own on it.
    // Every bot log line of the run is scanned for secrets and personal data at its end.
    globalSetup: ["test/support/postgres-setup.ts", "test/support/log-scan-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // End-to-end files share one Redis server; each file uses its own key prefix.
    fileParallelism: true,
  },
});
