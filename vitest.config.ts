import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    include: ["test/**/*.test.ts", "machines/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
