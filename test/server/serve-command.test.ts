import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { dropDeploymentTables } from "../setup/store-tables.js";
import { tempDataDir } from "./fixtures/server.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const config = fileURLToPath(new URL("./fixtures/stateweaver.json", import.meta.url));

/** Run `stateweaver serve` as `npm run dev` does (sources under tsx), with `env` on top of ours. */
function serve(env: Record<string, string>, configFile = config): ChildProcess {
  return spawn(
    process.execPath,
    ["--conditions=source", "--import", "tsx", "src/cli/main.ts", "serve", "--config", configFile],
    { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
}

const outputOf = (child: ChildProcess, until: RegExp) =>
  new Promise<string>((resolve, reject) => {
    let text = "";
    const take = (chunk: Buffer) => {
      text += chunk.toString();
      if (until.test(text)) resolve(text);
    };
    child.stdout!.on("data", take);
    child.stderr!.on("data", take);
    child.once("exit", () => resolve(text));
    child.once("error", reject);
  });

describe("stateweaver serve", () => {
  it("refuses to start on 0.0.0.0 without STATEWEAVER_TOKEN, saying what to do", async () => {
    const child = serve({ HOST: "0.0.0.0", PORT: "0", STATEWEAVER_TOKEN: "" });
    const text = await outputOf(child, /\n$/);
    const code = child.exitCode ?? (await once(child, "exit"))[0];
    expect(text).toContain(
      "Refusing to listen on 0.0.0.0 without STATEWEAVER_TOKEN or an auth file: set one, or bind 127.0.0.1.",
    );
    expect(code).toBe(1);
  });

  it("refuses a blank STATEWEAVER_TOKEN before opening anything, saying what to pass", async () => {
    const child = serve({ HOST: "127.0.0.1", PORT: "0", STATEWEAVER_TOKEN: "   " });
    const text = await outputOf(child, /\n$/);
    const code = child.exitCode ?? (await once(child, "exit"))[0];
    expect(text).toContain("The server's token is empty");
    expect(code).toBe(1);
  });

  it("ends with a clear error when its port is taken, instead of hanging on the open store", async () => {
    const taken = createNetServer().listen(0, "127.0.0.1");
    await once(taken, "listening");
    const port = (taken.address() as AddressInfo).port;
    const data = await tempDataDir();
    try {
      const child = serve({
        PORT: String(port),
        STATEWEAVER_DATA_DIR: data.dir,
        HOST: "127.0.0.1",
      });
      const text = await outputOf(child, /in use.*\n/);
      const code = child.exitCode ?? (await once(child, "exit"))[0];
      expect(text).toContain(`Port ${port} on 127.0.0.1 is already in use.`);
      expect(code).toBe(1);
    } finally {
      taken.close();
      await data.dispose();
    }
  }, 90_000);

  it("serves the graphs from stateweaver.json on PGlite, seeding an empty store once", async () => {
    const data = await tempDataDir();
    const child = serve({ PORT: "0", STATEWEAVER_DATA_DIR: data.dir, HOST: "127.0.0.1" });
    try {
      const text = await outputOf(child, /serving .* at (http:\/\/\S+)/);
      const url = /at (http:\/\/\S+)/.exec(text)?.[1];
      expect(url, text).toBeDefined();
      const items = (await (await fetch(`${url}/inbox/items`)).json()) as any;
      expect(items.items).toEqual([
        expect.objectContaining({ threadId: "seeded-1", kind: "tool_review", graphId: "ops" }),
      ]);
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
      await data.dispose();
    }
    // A fresh PGlite database and the TypeScript loader take a while on a busy machine.
  }, 90_000);

  it("answers the inbox's page while the seed is still running, and prints its address after", async () => {
    const data = await tempDataDir();
    const gate = join(data.dir, "seed-may-finish");
    const project = await mkdtemp(join(tmpdir(), "stateweaver-slow-seed-"));
    await writeFile(
      join(project, "slow-seed.ts"),
      `import { existsSync } from "node:fs";
export async function seed() {
  while (!existsSync(${JSON.stringify(gate)})) await new Promise((r) => setTimeout(r, 20));
}
`,
    );
    const slowConfig = join(project, "stateweaver.json");
    await writeFile(
      slowConfig,
      JSON.stringify({
        graphs: {
          ops: `${fileURLToPath(new URL("./fixtures/cli-graphs.ts", import.meta.url))}:ops`,
        },
        seed: "./slow-seed.ts:seed",
      }),
    );
    const port = await freePort();
    const child = serve(
      { PORT: String(port), STATEWEAVER_DATA_DIR: data.dir, HOST: "127.0.0.1" },
      slowConfig,
    );
    let printed = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      printed += chunk.toString();
    });
    try {
      const page = await waitForPage(`http://127.0.0.1:${port}/`);
      expect(page.status).toBe(200);
      expect(printed).not.toMatch(/serving/);
      await writeFile(gate, "");
      await outputOf(child, /serving .* at http:/);
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
      await data.dispose();
      await rm(project, { recursive: true, force: true });
    }
  }, 90_000);
});

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const probe = createNetServer().listen(0, "127.0.0.1");
  await once(probe, "listening");
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** The first answer `url` gives, asking again while nothing listens there yet. */
async function waitForPage(url: string): Promise<Response> {
  for (;;) {
    try {
      return await fetch(url);
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

// Worker-backed: runs go to the PostgreSQL queue and `stateweaver worker` processes
// (STATEWEAVER_CONCURRENCY=0 leaves them all to workers); the HTTP side keeps the same rule.
const pgUrl = process.env.STATEWEAVER_PG_URL;
const outside = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && !a.internal && a.family === "IPv4")?.address;

describe.skipIf(!pgUrl)("stateweaver serve with its runs on PostgreSQL workers", () => {
  const workerBacked = (env: Record<string, string>, tablePrefix: string) =>
    serve({
      DATABASE_URL: pgUrl!,
      STATEWEAVER_TABLE_PREFIX: tablePrefix,
      STATEWEAVER_CONCURRENCY: "0",
      PORT: "0",
      ...env,
    });

  it("refuses to start on 0.0.0.0 without STATEWEAVER_TOKEN", async () => {
    const child = workerBacked({ HOST: "0.0.0.0", STATEWEAVER_TOKEN: "" }, "sw_unused_");
    const text = await outputOf(child, /\n$/);
    const code = child.exitCode ?? (await once(child, "exit"))[0];
    expect(text).toContain("Refusing to listen on 0.0.0.0 without STATEWEAVER_TOKEN");
    expect(code).toBe(1);
  });

  it("on 0.0.0.0 with a token, answers only callers that send it", async () => {
    const tablePrefix = `sw_tok_${randomUUID().slice(0, 8)}_`;
    const token = "worker-backed-token-1c9e";
    const child = workerBacked({ HOST: "0.0.0.0", STATEWEAVER_TOKEN: token }, tablePrefix);
    try {
      const text = await outputOf(child, /serving .* at (http:\/\/\S+)/);
      const port = /at http:\/\/\S+:(\d+)/.exec(text)?.[1];
      expect(port, text).toBeDefined();
      const base = `http://${outside ?? "127.0.0.1"}:${port}`;
      const search = (headers: Record<string, string>) =>
        fetch(`${base}/threads/search`, { method: "POST", body: "{}", headers });
      expect((await search({})).status).toBe(401);
      expect((await search({ "x-api-key": "" })).status).toBe(401);
      expect((await search({ authorization: `Bearer ${token}` })).status).toBe(200);
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
      await dropDeploymentTables(pgUrl!, tablePrefix);
    }
  }, 90_000);
});
