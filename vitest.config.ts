import { configDefaults, defineConfig } from "vitest/config";

/** Tests that build and install the package: heavy on CPU and disk, so they run after the rest. */
const packaging = "test/package/**/*.test.ts";
/** The inbox in a real Chromium: run with `npm run test:e2e` (not part of `npm test`). */
const browser = "test/e2e/**/*.test.ts";
/** Real workers against a PostgreSQL of their own that fails under them: `npm run test:faults`. */
const faults = "test/faults/**/*.test.ts";

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    // In CI the results also go to a file, so .ci/run can print one closing tally (the
    // browser tests run separately and name their own file).
    reporters: process.env.CI
      ? [
          "default",
          ["json", { outputFile: process.env.VITEST_RESULTS ?? ".tmp/vitest-results.json" }],
        ]
      : ["default"],
    // A console.warn or console.error (XState's dev warnings included) fails the test that printed it.
    setupFiles: ["test/setup/fail-on-warnings.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts", "machines/**/*.test.ts"],
          exclude: [...configDefaults.exclude, packaging, browser, faults],
        },
      },
      {
        extends: true,
        test: { name: "faults", include: [faults], fileParallelism: false, testTimeout: 360_000 },
      },
      {
        extends: true,
        test: { name: "package", include: [packaging], sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: [browser],
          // Builds the inbox once into .tmp/e2e-inbox, so the tests run the current sources.
          globalSetup: ["test/e2e/build-inbox.ts"],
          // One browser at a time: the machine is small and each file starts its own server.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
