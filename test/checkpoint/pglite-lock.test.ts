import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PGliteCheckpointer } from "../../src/checkpoint/index.js";
import { DataDirectoryLockedError } from "../../src/errors/index.js";

const run = promisify(execFile);
const fixture = new URL("./fixtures/open-data-dir.ts", import.meta.url).pathname;
const cwd = new URL("../..", import.meta.url).pathname;
const nodeArgs = (dataDir: string, mode: string) => [
  "--conditions=source",
  "--import",
  "tsx",
  fixture,
  dataDir,
  mode,
];

interface Report {
  pid: number;
  opened: boolean;
  code?: string;
  ownerPid?: number;
  checkpointId?: string;
}

/** Runs the fixture to its end in a fresh process and returns its report. */
async function inChild(dataDir: string, mode: "try" | "exit"): Promise<Report> {
  const { stdout } = await run(process.execPath, nodeArgs(dataDir, mode), { cwd });
  return JSON.parse(stdout);
}

/** Starts a process that opens the directory and keeps it; resolves once it has. */
function holdInChild(dataDir: string): Promise<{ child: ChildProcess; report: Report }> {
  const child = spawn(process.execPath, nodeArgs(dataDir, "hold"), { cwd });
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve({ child, report: JSON.parse(out) });
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on("exit", (code) => reject(new Error(`child exited (${code}) before opening: ${err}`)));
  });
}

// One data directory for the file: creating a PGlite database costs seconds, reopening less.
let dataDir: string;
const lockFile = () => join(dataDir, "stateweaver.lock");
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "stateweaver-lock-"));
  const create = new PGliteCheckpointer(dataDir);
  await create.getLatest("warm-up");
  await create.close();
}, 60_000);
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe("one process owns a PGlite data directory", () => {
  it("a second store on the directory, here or in another process, gets DataDirectoryLockedError until the owner closes", async () => {
    const owner = new PGliteCheckpointer(dataDir);
    await owner.getLatest("x");
    expect(JSON.parse(readFileSync(lockFile(), "utf8")).pid).toBe(process.pid);

    // The same directory spelled differently is still the same directory.
    const second = new PGliteCheckpointer(join(dataDir, "."));
    const error = await second.getLatest("x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataDirectoryLockedError);
    expect(error).toMatchObject({
      code: "DATA_DIRECTORY_LOCKED",
      dataDir: join(dataDir, "."),
      ownerPid: process.pid,
    });
    expect((error as Error).message).toContain("one process owns a data directory");
    expect((error as Error).message).toContain("PostgresCheckpointer");

    expect(await inChild(dataDir, "try")).toMatchObject({
      opened: false,
      code: "DATA_DIRECTORY_LOCKED",
      ownerPid: process.pid,
    });

    await owner.close();
    expect(existsSync(lockFile())).toBe(false);
    // The refused store starts on its next call, now that the directory is free.
    expect(await second.getLatest("x")).toBeUndefined();
    await second.close();
  }, 60_000);

  it("a process that exits without close() leaves the directory free", async () => {
    const report = await inChild(dataDir, "exit");
    expect(report.opened).toBe(true);
    expect(existsSync(lockFile())).toBe(false);
    const store = new PGliteCheckpointer(dataDir);
    try {
      expect((await store.getLatest("from-child"))?.checkpoint.id).toBe(report.checkpointId);
    } finally {
      await store.close();
    }
  }, 60_000);

  it("the lock of an owner killed with SIGKILL is taken over", async () => {
    const { child, report } = await holdInChild(dataDir);
    const store = new PGliteCheckpointer(dataDir);
    try {
      await expect(store.getLatest("from-child")).rejects.toMatchObject({
        code: "DATA_DIRECTORY_LOCKED",
        ownerPid: child.pid,
      });
      const exited = new Promise((resolve) => child.on("exit", resolve));
      child.kill("SIGKILL");
      await exited;
      // The killed owner left its lock file behind; its pid is gone, so it is stale.
      expect(JSON.parse(readFileSync(lockFile(), "utf8")).pid).toBe(child.pid);
      expect((await store.getLatest("from-child"))?.checkpoint.id).toBe(report.checkpointId);
      expect(JSON.parse(readFileSync(lockFile(), "utf8")).pid).toBe(process.pid);
    } finally {
      child.kill("SIGKILL");
      await store.close();
    }
  }, 60_000);
});
