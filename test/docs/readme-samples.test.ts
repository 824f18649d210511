/**
 * The README's TypeScript samples run as written: each `ts` block is saved as a module of
 * its own and run with Node and tsx, importing `stateweaver` as an installed package would
 * (the repository's own entry points). Samples that talk to a server get the demo server
 * from the sources, as `npm run dev` runs it (`stateweaver serve` with the repository's
 * stateweaver.json: the graph `npm start` serves from the build), on a free port and a fresh
 * data directory: the only change made to a sample is that port.
 * A block that cannot run alone (a fragment, or alternatives side by side) says so in an
 * HTML comment on the line before it: `<!-- illustrative: why -->`.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = new URL("../..", import.meta.url).pathname;
const README_URL = "http://127.0.0.1:2024";

interface Sample {
  /** The line of the opening fence, 1-based. */
  line: number;
  code: string;
  /** Why it is not run, from its `<!-- illustrative: … -->` comment. */
  illustrative: string | undefined;
}

/** Every ```ts block of a markdown text, with the marker before it, if any. */
function samplesIn(markdown: string): Sample[] {
  const lines = markdown.split("\n");
  const samples: Sample[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== "```ts") continue;
    const end = lines.indexOf("```", i + 1);
    const before = lines[i - 1] ?? "";
    samples.push({
      line: i + 1,
      code: lines.slice(i + 1, end).join("\n"),
      illustrative: /^<!-- illustrative: (.+) -->$/.exec(before)?.[1],
    });
    i = end;
  }
  return samples;
}

const readme = await readFile(join(repo, "README.md"), "utf8");
const samples = samplesIn(readme);
const runnable = samples.filter((s) => s.illustrative === undefined);

let folder: string;
let dataDir: string;
let server: ChildProcess | undefined;
let serverUrl: string | undefined;

/** `stateweaver serve` as `npm run dev` runs it, on a free port; resolves with its URL. */
function startDemoServer(): Promise<string> {
  server = spawn(
    process.execPath,
    ["--conditions=source", "--import", "tsx", "src/cli/main.ts", "serve"],
    {
      cwd: repo,
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", STATEWEAVER_DATA_DIR: dataDir },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  return new Promise((resolve, reject) => {
    let text = "";
    const take = (chunk: Buffer) => {
      text += chunk.toString();
      const url = /serving .* at (http:\/\/\S+)/.exec(text)?.[1];
      if (url) resolve(url);
    };
    server!.stdout!.on("data", take);
    server!.stderr!.on("data", take);
    server!.once("exit", () => reject(new Error(`stateweaver serve ended: ${text}`)));
  });
}

/** The ids of the demo server's threads that wait for a person. */
async function waitingThreads(): Promise<string[]> {
  const res = await fetch(`${serverUrl}/threads/search`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ status: "interrupted", limit: 1000 }),
  });
  const threads = (await res.json()) as Array<{ thread_id: string }>;
  return threads.map((t) => t.thread_id).sort();
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "sw-readme-"));
  dataDir = join(folder, "data");
  // The samples import "stateweaver" and the SDK as a user's project would.
  await mkdir(join(folder, "node_modules"));
  await symlink(repo, join(folder, "node_modules", "stateweaver"));
  for (const dependency of ["@langchain", "tsx"])
    await symlink(join(repo, "node_modules", dependency), join(folder, "node_modules", dependency));
  await writeFile(join(folder, "package.json"), JSON.stringify({ type: "module" }));
  if (runnable.some((s) => s.code.includes(README_URL))) serverUrl = await startDemoServer();
}, 120_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  await rm(folder, { recursive: true, force: true });
});

describe("the README's TypeScript samples", () => {
  it("are each run, or marked illustrative with a reason", () => {
    expect(samples.length).toBeGreaterThan(5);
    expect(runnable.map((s) => s.line).length).toBeGreaterThanOrEqual(3);
    for (const s of samples) expect(s.illustrative ?? "runs").not.toBe("");
  });

  it.each(runnable.map((s) => [s.line, s] as const))(
    "the sample at README.md line %i runs as written",
    async (line, sample) => {
      const file = join(folder, `readme-line-${line}.ts`);
      const usesServer = sample.code.includes(README_URL);
      const code = usesServer ? sample.code.replaceAll(README_URL, serverUrl!) : sample.code;
      await writeFile(file, code);
      const waitingBefore = usesServer ? await waitingThreads() : [];
      const run = spawnSync(process.execPath, ["--conditions=source", "--import", "tsx", file], {
        cwd: folder,
        encoding: "utf8",
        timeout: 60_000,
      });
      // A warning fails it too, as it fails an example: the samples show clean runs.
      expect(`${run.stderr}${run.error ?? ""}`).toBe("");
      expect(run.status).toBe(0);
      // A sample answers only the pauses it made: what waited before (the seeded demo
      // tickets) still waits.
      if (usesServer) expect(await waitingThreads()).toEqual(waitingBefore);
    },
    90_000,
  );

  it("finds a marker only on the line right before a block", () => {
    const text = [
      "<!-- illustrative: a fragment -->",
      "```ts",
      "graph.invoke(input);",
      "```",
      "<!-- illustrative: too far -->",
      "",
      "```ts",
      "console.log(1);",
      "```",
    ].join("\n");
    expect(samplesIn(text)).toEqual([
      { line: 2, code: "graph.invoke(input);", illustrative: "a fragment" },
      { line: 7, code: "console.log(1);", illustrative: undefined },
    ]);
  });
});
