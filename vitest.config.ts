import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    // In CI the results also go to a file, so .ci/run can print one closing tally.
    reporters: process.env.CI
      ? ["default", ["json", { outputFile: ".tmp/vitest-results.json" }]]
      : ["default"],
    include: ["test/**/*.test.ts", "machines/**/*.test.ts"],
    // A console.warn or console.error (XState's dev warnings included) fails the test that printed it.
    setupFiles: ["test/setup/fail-on-warnings.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
