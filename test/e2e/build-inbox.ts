/**
 * Vitest global setup for the e2e project: builds the inbox from the current sources into
 * .tmp/e2e-inbox (the tests serve that folder), so a stale dist/ cannot pass for them.
 */
import { fileURLToPath } from "node:url";
import { build } from "vite";

export const E2E_INBOX = fileURLToPath(new URL("../../.tmp/e2e-inbox", import.meta.url));

export default async function buildInbox(): Promise<void> {
  await build({
    configFile: fileURLToPath(new URL("../../src/inbox/web/vite.config.ts", import.meta.url)),
    build: { outDir: E2E_INBOX, emptyOutDir: true },
    mode: "production",
    logLevel: "error",
  });
}
