/**
 * Builds the web inbox into dist/inbox/ (index.html + hashed files under assets/), which
 * the server serves. Everything is bundled: no CDN, no fonts, nothing fetched at run time.
 * Run with `npm run build:inbox`.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root: here,
  base: "/",
  logLevel: "warn",
  // Never the dev JSX runtime (it would follow NODE_ENV, which vitest sets to "test").
  oxc: { jsx: { runtime: "automatic", importSource: "preact", development: false } },
  build: {
    outDir: fileURLToPath(new URL("../../../dist/inbox", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    // The polyfill would be an extra script; every browser the inbox supports has modulepreload.
    modulePreload: { polyfill: false },
    // Icons and the like stay files: CSP allows data: images, but a file is simpler to audit.
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
