import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Ledger tests fsync real files and spawn processes; the machine is shared.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
