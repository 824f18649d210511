// `stateweaver worker` as its user runs it: started from a config file, stopped with SIGTERM.
// It serves no HTTP, so it builds no generative UI: the same config file as `serve`, `ui`
// entries and all, starts a worker, even one whose component would not bundle.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
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

/** A worker process from the sources, resolved once it says it is executing runs of `ops`. */
async function startWorker(config: string) {
  const child = spawn(process.execPath, [...WORKER_BIN.sources, "worker", "--config", config], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: pgUrl!, STATEWEAVER_TABLE_PREFIX: tablePrefix },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const said = { stdout: "", stderr: "" };
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    said.stdout += text;
  });
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    said.stderr += text;
  });
  const exited = new Promise<number | null>((done) => child.once("exit", done));
  try {
    await new Promise<void>((ready, failed) => {
      const check = setInterval(() => {
        if (said.stdout.includes("stateweaver worker executing runs of ops")) {
          clearInterval(check);
          ready();
        }
      }, 50);
      exited.then((code) => {
        clearInterval(check);
        failed(new Error(`the worker exited (${code}) before it was ready: ${said.stderr}`));
      });
    });
  } catch (error) {
    child.kill("SIGTERM");
    throw error;
  }
  return { child, exited, said };
}

async function writeConfig(extra: Record<string, unknown> = {}) {
  dir = await mkdtemp(join(tmpdir(), "stateweaver-worker-ui-"));
  const config = join(dir, "stateweaver.json");
  await writeFile(config, JSON.stringify({ graphs: { ops: `${graphs}:ops` }, ...extra }));
  return config;
}

it.skipIf(!pgUrl)(
  "a worker starts from a config with ui entries, bundling none of them, and stops cleanly",
  async () => {
    const config = await writeConfig({ ui: { ops: "./ui.tsx" } });
    // `serve` refuses this component (test/cli/serve-generative-ui.test.ts); a worker never reads it.
    await writeFile(join(dir!, "ui.tsx"), "export default { card: <div> };\n");
    const { child, exited, said } = await startWorker(config);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(said.stderr).toBe("");
  },
  60_000,
);

// graphile-worker shuts a pool down on any schema's breaking-migration notice (the channel is
// not per schema) and sets `process.exitCode` to 57 as it does; the worker replaces the pool,
// and a clean stop afterwards must still say so to whatever supervises the process.
it.skipIf(!pgUrl)(
  "a worker stopped with SIGTERM exits 0 after graphile-worker heard another schema's breaking migration",
  async () => {
    const { child, exited, said } = await startWorker(await writeConfig());
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    try {
      await client.query("select pg_notify('worker:migrate', $1)", [
        JSON.stringify({ migrationNumber: 999_999, breaking: true }),
      ]);
    } finally {
      await client.end();
    }
    // Its pool stops and is replaced (a second later); the process stays up through it.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(child.exitCode).toBe(null);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(said.stderr).toBe("");
  },
  60_000,
);
