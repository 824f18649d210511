// `stateweaver worker` serves no HTTP, so it builds no generative UI: the same config file as
// `serve`, `ui` entries and all, starts a worker, even one whose component would not bundle.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import { WORKER_BIN } from "../runs/fixtures/worker-fleet.js";
import { dropDeploymentTables } from "../setup/store-tables.js";

const pgUrl = process.env.STATEWEAVER_PG_URL;
const root = fileURLToPath(new URL("../..", import.meta.url));
const graphs = fileURLToPath(new URL("../server/fixtures/cli-graphs.ts", import.meta.url));
const tablePrefix = `sw_wui_${randomUUID().slice(0, 8)}_`;
let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  if (!pgUrl) return;
  await dropDeploymentTables(pgUrl, tablePrefix);
});

it.skipIf(!pgUrl)(
  "a worker starts from a config with ui entries, bundling none of them, and stops cleanly",
  async () => {
    dir = await mkdtemp(join(tmpdir(), "stateweaver-worker-ui-"));
    // `serve` refuses this component (test/cli/serve-generative-ui.test.ts); a worker never reads it.
    await writeFile(join(dir, "ui.tsx"), "export default { card: <div> };\n");
    const config = join(dir, "stateweaver.json");
    await writeFile(
      config,
      JSON.stringify({ graphs: { ops: `${graphs}:ops` }, ui: { ops: "./ui.tsx" } }),
    );
    const child = spawn(process.execPath, [...WORKER_BIN.sources, "worker", "--config", config], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: pgUrl!, STATEWEAVER_TABLE_PREFIX: tablePrefix },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
    });
    const exited = new Promise<number | null>((done) => child.once("exit", done));
    try {
      await new Promise<void>((ready, failed) => {
        const check = setInterval(() => {
          if (stdout.includes("stateweaver worker executing runs of ops")) {
            clearInterval(check);
            ready();
          }
        }, 50);
        exited.then((code) => {
          clearInterval(check);
          failed(new Error(`the worker exited (${code}) before it was ready: ${stderr}`));
        });
      });
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    expect(stderr).toBe("");
  },
  60_000,
);
