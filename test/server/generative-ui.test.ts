// Generative UI as LangGraph's server serves it: the config's `ui` bundled at start, the HTML
// snippet `LoadExternalComponent` asks for, the bundle files, and what a bad component says.
import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { END, Graph, START, typedUi, type UIMessage, uiMessageReducer } from "../../src/index.js";
import {
  buildUi,
  createApp,
  loadServerConfig,
  ServerConfigError,
  type ServerOptions,
  watchUi,
} from "../../src/server/index.js";
import { questionGraph } from "./fixtures/graphs.js";
import { startServer } from "./fixtures/server.js";

const graphs = fileURLToPath(new URL("./fixtures/cli-graphs.ts", import.meta.url));
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A folder with these files in it. */
async function folder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "stateweaver-ui-"));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

const styled = {
  "card.css": ".card { color: teal; }\n",
  "ui.tsx": [
    'import "./card.css";',
    'import { useState } from "react";',
    'import { toast } from "sonner";',
    "const Card = (props: { title: string }) => {",
    "  const [open] = useState(true);",
    '  return open ? <div className="card" onClick={() => toast(props.title)}>{props.title}</div> : null;',
    "};",
    'export default { "card": Card };',
  ].join("\n"),
};

const apps: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const app of apps) await app.close();
});

/** The styled components of a folder made from `styled`, bundled with sonner shared. */
const buildStyled = (cwd: string) => buildUi({ agent: "./ui.tsx" }, { cwd, shared: ["sonner"] });

/** A server app over the given bundles, closed after the file's tests. */
function appWith(options: Partial<ServerOptions>) {
  const { app, context } = createApp({
    graphs: { question: questionGraph() },
    checkpointer: new MemoryCheckpointer(),
    concurrency: 0,
    ...options,
  });
  apps.push({
    close: async () => {
      await context.crons.stop();
      await context.runs.close();
      await context.events.close();
    },
  });
  return app;
}

describe("buildUi", () => {
  it("bundles the components with their CSS, taking React and `shared` packages from the page", async () => {
    const cwd = await folder(styled);
    const ui = await buildUi({ "my-agent": "./ui.tsx" }, { cwd, shared: ["sonner"] });
    const files = ui.get("my-agent")!;
    expect(files.map((f) => f.basename).sort()).toEqual(["entrypoint.css", "entrypoint.js"]);
    const js = new TextDecoder().decode(
      files.find((f) => f.basename === "entrypoint.js")!.contents,
    );
    expect(js).toMatch(/^var __LGUI_my_agent = /);
    for (const name of ["react", "react/jsx-runtime", "sonner"]) {
      expect(js).toContain(`globalThis[Symbol.for("LGUI_REQUIRE")]("${name}")`);
    }
    expect(js).toContain('globalThis[Symbol.for("LGUI_EXT_STORE")].respond(shadowRootId');
    const css = new TextDecoder().decode(
      files.find((f) => f.basename === "entrypoint.css")!.contents,
    );
    expect(css).toContain(".card");
  });

  it("says which file does not bundle, with esbuild's message, and what to do", async () => {
    const cwd = await folder({ "ui.tsx": 'export default { "oops": <div> };\n' });
    const failure = buildUi({ agent: "./ui.tsx" }, { cwd });
    await expect(failure).rejects.toThrow(ServerConfigError);
    await expect(failure).rejects.toThrow(
      /^ui\.agent: cannot bundle \.\/ui\.tsx: ui\.tsx:1:\d+: .*"div".*Fix the file/,
    );
  });

  it("says when an import is neither installed nor shared", async () => {
    const cwd = await folder({
      "ui.tsx": 'import { toast } from "sonner";\nexport default { toast };\n',
    });
    await expect(buildUi({ agent: "./ui.tsx" }, { cwd })).rejects.toThrow(
      /ui\.agent: cannot bundle \.\/ui\.tsx: ui\.tsx:1:\d+: Could not resolve "sonner"/,
    );
  });

  it("names a missing file and an unusable name", async () => {
    const cwd = await folder({});
    await expect(buildUi({ agent: "./nowhere.tsx" }, { cwd })).rejects.toThrow(
      `ui.agent: no file ./nowhere.tsx (relative to ${cwd})`,
    );
    await expect(buildUi({ "a b": "./nowhere.tsx" }, { cwd })).rejects.toThrow(
      'ui: "a b" is not a usable name',
    );
  });
});

/** Replace a file in one step, so a watcher never sees it half written. */
async function replaceFile(path: string, text: string) {
  await writeFile(`${path}.next`, text);
  await rename(`${path}.next`, path);
}

describe("watchUi", () => {
  it("rebuilds when the components change, and keeps serving the last good build through a broken edit", async () => {
    const cwd = await folder({ "ui.tsx": "export default { card: () => <b>first</b> };\n" });
    const errors: string[] = [];
    const watching = await watchUi(
      { agent: "./ui.tsx" },
      { cwd, onRebuildError: (error) => errors.push(error.message) },
    );
    const script = () =>
      new TextDecoder().decode(
        watching.bundles.get("agent")!.find((f) => f.basename === "entrypoint.js")!.contents,
      );
    try {
      expect(script()).toContain('"first"');
      await replaceFile(join(cwd, "ui.tsx"), "export default { card: () => <b>second</b> };\n");
      await expect.poll(script, { timeout: 15_000, interval: 100 }).toContain('"second"');
      await replaceFile(join(cwd, "ui.tsx"), "export default { card: () => <b> };\n");
      await expect.poll(() => errors.length, { timeout: 15_000, interval: 100 }).toBeGreaterThan(0);
      expect(errors[0]).toMatch(/^ui\.agent: cannot bundle \.\/ui\.tsx: ui\.tsx:1:\d+: /);
      expect(script()).toContain('"second"');
    } finally {
      await watching.close();
    }
  }, 40_000);

  it("throws as buildUi when the first build fails, watching nothing", async () => {
    const cwd = await folder({ "ui.tsx": "export default { card: <b> };\n" });
    await expect(watchUi({ agent: "./ui.tsx" }, { cwd, onRebuildError: () => {} })).rejects.toThrow(
      /^ui\.agent: cannot bundle \.\/ui\.tsx/,
    );
  });
});

describe("the /ui routes", () => {
  it("answer LangGraph's HTML for a component, and serve the bundle's files to other origins", async () => {
    const cwd = await folder(styled);
    const app = appWith({ token: "s3cret", ui: await buildStyled(cwd) });
    const res = await app.request("http://localhost:2024/ui/agent", {
      method: "POST",
      headers: {
        authorization: "Bearer s3cret",
        "content-type": "application/json",
        host: "localhost:2024",
      },
      body: JSON.stringify({ name: "card" }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await res.text()).toBe(
      [
        '<link rel="stylesheet" href="http://localhost:2024/ui/agent/entrypoint.css" />',
        `<script src="http://localhost:2024/ui/agent/entrypoint.js" onload='__LGUI_agent.render("card", "{{shadowRootId}}")'></script>`,
      ].join("\n"),
    );
    const js = await app.request("http://localhost:2024/ui/agent/entrypoint.js");
    expect(js.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(js.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    expect(await js.text()).toMatch(/^var __LGUI_agent = /);
    const css = await app.request("http://localhost:2024/ui/agent/entrypoint.css");
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);
    // Everything else keeps the strict policy.
    const ok = await app.request("http://localhost:2024/ok");
    expect(ok.headers.get("cross-origin-resource-policy")).toBe("same-origin");
  });

  it("write the component name as a JavaScript string inside the attribute, and take any other host without a scheme", async () => {
    const cwd = await folder(styled);
    const app = appWith({ token: "s3cret", ui: await buildStyled(cwd) });
    const res = await app.request("http://example.com/ui/agent", {
      method: "POST",
      headers: {
        authorization: "Bearer s3cret",
        "content-type": "application/json",
        host: "agents.example.com",
      },
      body: JSON.stringify({ name: `x'"</script><b>&` }),
    });
    // The attribute decodes to render("x'\"</script><b>&", …): the name, as a JS string.
    expect(await res.text()).toBe(
      [
        '<link rel="stylesheet" href="//agents.example.com/ui/agent/entrypoint.css" />',
        `<script src="//agents.example.com/ui/agent/entrypoint.js" onload='__LGUI_agent.render("x&#39;\\"&#60;/script&#62;&#60;b&#62;&#38;", "{{shadowRootId}}")'></script>`,
      ].join("\n"),
    );
    const badHost = await app.request("http://example.com/ui/agent", {
      method: "POST",
      headers: { authorization: "Bearer s3cret", host: 'x"><script>' },
      body: JSON.stringify({ name: "card" }),
    });
    expect(badHost.status).toBe(400);
  });

  it("keep the server's access rules: the component HTML needs the token, the files do not, and nothing else is served", async () => {
    const cwd = await folder(styled);
    const app = appWith({ token: "s3cret", ui: await buildStyled(cwd) });
    const post = (
      agent: string,
      headers: Record<string, string> = {},
      body: unknown = { name: "card" },
    ) =>
      app.request(`http://example.com/ui/${agent}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    expect((await post("agent")).status).toBe(401);
    const unknown = await post("elsewhere", { authorization: "Bearer s3cret" });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe('UI not found for agent "elsewhere"');
    const noName = await post("agent", { authorization: "Bearer s3cret" }, {});
    expect(noName.status).toBe(400);
    expect((await app.request("http://example.com/ui/agent/entrypoint.js")).status).toBe(200);
    for (const path of [
      "/ui/agent/ui.tsx",
      "/ui/agent/..%2Fui.tsx",
      "/ui/elsewhere/entrypoint.js",
    ]) {
      const res = await app.request(`http://example.com${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.text()).toBe("File not found");
    }
    expect((await app.request("http://example.com/info")).status).toBe(401);
  });

  it("say there is no UI on a server without one", async () => {
    const app = appWith({ token: "s3cret" });
    const res = await app.request("http://localhost/ui/question", {
      method: "POST",
      headers: {
        authorization: "Bearer s3cret",
        "content-type": "application/json",
        host: "localhost",
      },
      body: JSON.stringify({ name: "card" }),
    });
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('UI not found for agent "question"');
  });
});

describe("the config file's ui", () => {
  it("gives the entries, the file's folder and ui_config.shared to build; other ui_config keys are named unused", async () => {
    const dir = await folder({
      "langgraph.json": JSON.stringify({
        graphs: { ops: `${graphs}:ops` },
        ui: { ops: "./src/ui.tsx" },
        ui_config: { shared: ["sonner"], theme: "dark" },
      }),
    });
    const config = await loadServerConfig(join(dir, "langgraph.json"), undefined, {});
    expect(config.ui).toEqual({ entries: { ops: "./src/ui.tsx" }, cwd: dir, shared: ["sonner"] });
    expect(config.unused).toEqual(["ui_config.theme"]);
  });

  it("refuses a ui name that cannot be a URL segment", async () => {
    const dir = await folder({
      "stateweaver.json": JSON.stringify({ graphs: {}, ui: { "my agent": "./ui.tsx" } }),
    });
    await expect(loadServerConfig(join(dir, "stateweaver.json"), undefined, {})).rejects.toThrow(
      'ui: "my agent" is not a usable name; use letters, digits, _ and - (it is a URL segment).',
    );
  });
});

describe("a graph's UI messages through the SDK client", () => {
  it("reach the run's custom stream and the thread's ui key, and the component's HTML is served", async () => {
    const weather = new Graph<{ city: string; ui: UIMessage[] }>({ name: "weather" })
      .addReducer("ui", uiMessageReducer, { default: () => [] })
      .addNode("forecast", (state, runtime) => {
        typedUi(runtime).push({ id: "w1", name: "weather-component", props: { city: state.city } });
        return {};
      })
      .addEdge(START, "forecast")
      .addEdge("forecast", END)
      .compile();
    const running = await startServer({
      graphs: { weather },
      ui: await buildUi(
        { weather: "./ui/components.tsx" },
        { cwd: fileURLToPath(new URL("./fixtures", import.meta.url)) },
      ),
    });
    try {
      const client = new Client({ apiUrl: running.url });
      const thread = await client.threads.create();
      const events = [];
      for await (const event of client.runs.stream(thread.thread_id, "weather", {
        input: { city: "Paris" },
        streamMode: ["custom"],
      })) {
        events.push(event);
      }
      const [run] = await client.runs.list(thread.thread_id);
      const pushed = {
        type: "ui",
        id: "w1",
        name: "weather-component",
        props: { city: "Paris" },
        metadata: { run_id: run!.run_id, name: "forecast" },
      };
      expect(events.filter((e) => e.event === "custom").map((e) => e.data)).toEqual([pushed]);
      const state = await client.threads.getState<{ ui: UIMessage[] }>(thread.thread_id);
      expect(state.values.ui).toEqual([pushed]);
      expect(await client["~ui"].getComponent("weather", "weather-component")).toContain(
        `onload='__LGUI_weather.render("weather-component", "{{shadowRootId}}")'`,
      );
    } finally {
      await running.stop();
    }
  });
});
