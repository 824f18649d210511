import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDataDir } from "./fixtures/server.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const config = fileURLToPath(new URL("./fixtures/stateweaver.json", import.meta.url));

/** Run `stateweaver serve` as `npm start` does (under tsx), with `env` on top of ours. */
function serve(env: Record<string, string>): ChildProcess {
  return spawn(
    process.execPath,
    ["--conditions=source", "--import", "tsx", "src/cli/main.ts", "serve", "--config", config],
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
});
