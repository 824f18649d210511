import { configDefaults, defineConfig } from "vitest/config";

/** Tests that build and install the package: heavy on CPU and disk, so they run after the rest. */
const packaging = "test/package/**/*.test.ts";

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    // In CI the results also go to a file, so .ci/run can print one closing tally.
    reporters: process.env.CI
      ? ["default", ["json", { outputFile: ".tmp/vitest-results.json" }]]
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
          exclude: [...configDefaults.exclude, packaging],
        },
      },
      {
        extends: true,
        test: { name: "package", include: [packaging], sequence: { groupOrder: 1 } },
      },
    ],
  },
});
