import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AsyncTask, asyncSubagent, createAgent, HITL } from "../../src/agent/index.js";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { message, type ToolMessage } from "../../src/models/index.js";
import { gateFolder, parentModel } from "./fixtures/async-subagent-graphs.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const config = fileURLToPath(new URL("./fixtures/async-subagent-server.json", import.meta.url));

/** `stateweaver serve` in a child process (as `npm start` runs it), on its own port and data. */
async function serve(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    ["--conditions=source", "--import", "tsx", "src/cli/main.ts", "serve", "--config", config],
    {
      cwd: root,
      env: { ...process.env, DATABASE_URL: "", HOST: "127.0.0.1", PORT: "0", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let text = "";
    const take = (chunk: Buffer) => {
      text += chunk.toString();
      const at = /serving .* at (http:\/\/\S+)/.exec(text)?.[1];
      if (at) resolve(at);
    };
    child.stdout!.on("data", take);
    child.stderr!.on("data", take);
    child.once("exit", (code) => reject(new Error(`serve exited (${code}):\n${text}`)));
  });
  return { child, url };
}

describe("async subagents on a second server (stateweaver serve, reached by url)", () => {
  let server: { child: ChildProcess; url: string };
  let dataDir: string;
  let gates: Awaited<ReturnType<typeof gateFolder>>;
  let client: Client;
  const store = new MemoryCheckpointer();
  // The server wants a token: the subagent's headers carry it.
  const token = randomUUID();
  const bearer = { authorization: `Bearer ${token}` };

  beforeAll(async () => {
    gates = await gateFolder();
    dataDir = await mkdtemp(join(tmpdir(), "sw-async-serve-"));
    // A port known before the server starts: the lead it hosts reaches it by url.
    const free = createNetServer().listen(0, "127.0.0.1");
    await once(free, "listening");
    const port = (free.address() as AddressInfo).port;
    await new Promise((done) => free.close(done));
    server = await serve({
      PORT: String(port),
      ASYNC_SUBAGENT_URL: `http://127.0.0.1:${port}`,
      STATEWEAVER_DATA_DIR: dataDir,
      ASYNC_SUBAGENT_GATES: gates.dir,
      STATEWEAVER_TOKEN: token,
    });
    client = new Client({ apiUrl: server.url, defaultHeaders: bearer });
    // A fresh PGlite database and the TypeScript loader take a while on a busy machine.
  }, 120_000);
  afterAll(async () => {
    if (server) {
      const exited = new Promise((resolve) => server.child.once("exit", resolve));
      server.child.kill("SIGTERM");
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
    await gates.dispose();
  });

  const parent = (options: { interruptOn?: any; headers?: Record<string, string> } = {}) =>
    createAgent({
      name: "lead",
      model: parentModel(),
      checkpointer: store,
      interruptOn: options.interruptOn,
      subagents: [
        asyncSubagent({
          name: "researcher",
          description: "Researches a topic and reports back.",
          url: server.url,
          assistantId: "researcher",
          headers: options.headers ?? bearer,
        }),
      ],
    });
  const cfg = (threadId: string) => ({ configurable: { thread_id: threadId } });
  const tasksIn = (state: Record<string, unknown>) =>
    (state.asyncTasks ?? {}) as Record<string, AsyncTask>;
  const say = async (agent: ReturnType<typeof parent>, threadId: string, text: string) => {
    const r = await agent.invoke({ messages: [message.user(text)] }, { config: cfg(threadId) });
    expect(r.status).toBe("done");
    const tool = r.state.messages.filter((m): m is ToolMessage => m.role === "tool").at(-1)!;
    return { content: tool.content, tasks: tasksIn(r.state) };
  };
  const startedId = (content: string) => /task_id: (\S+)/.exec(content)![1]!;

  it("starts a task on the server, sees it running then done, updates it, and the ids survive a restart", async () => {
    const agent = parent();
    const threadId = randomUUID();
    const taskId = startedId((await say(agent, threadId, "start researcher: wait for r1")).content);
    await gates.entered("r1");
    expect(JSON.parse((await say(agent, threadId, `check ${taskId}`)).content)).toEqual({
      task_id: taskId,
      agent: "researcher",
      status: "running",
    });
    await gates.open("r1");
    const first = tasksIn((await agent.getState(cfg(threadId))).values)[taskId]!;
    await client.runs.join(taskId, first.runId);
    expect(JSON.parse((await say(agent, threadId, `check ${taskId}`)).content)).toMatchObject({
      status: "success",
      answer: "Report: gate r1 opened",
    });

    const updated = await say(agent, threadId, `update ${taskId}: and the moon`);
    const second = updated.tasks[taskId]!;
    expect(second.runId).not.toBe(first.runId);
    await client.runs.join(taskId, second.runId);

    // A new agent instance on the same store (a restarted process) finds the task.
    const restarted = parent();
    expect(JSON.parse((await say(restarted, threadId, `check ${taskId}`)).content)).toMatchObject({
      status: "success",
      answer: "Findings on and the moon",
    });
    expect(JSON.parse((await say(restarted, threadId, "list")).content)).toEqual([
      { task_id: taskId, agent: "researcher", status: "success" },
    ]);
    // The server's thread carries the link to the parent.
    expect((await client.threads.get(taskId)).metadata).toMatchObject({
      parent_thread_id: threadId,
      async_subagent: "researcher",
    });
  }, 120_000);

  it("a start the server refuses is answered to the model as an error, and no task is recorded", async () => {
    const agent = parent({ headers: { authorization: "Bearer wrong" } });
    const threadId = randomUUID();
    const r = await say(agent, threadId, "start researcher: anything");
    expect(r.content).toMatch(/^Error: tool "start_async_task" failed: .*401/);
    expect(r.tasks).toEqual({});
  }, 120_000);

  it("an update sent while the task works is queued behind its run on the server", async () => {
    const agent = parent();
    const threadId = randomUUID();
    const taskId = startedId((await say(agent, threadId, "start researcher: wait for r3")).content);
    await gates.entered("r3");
    const updated = await say(agent, threadId, `update ${taskId}: and the sun`);
    expect(updated.content).toBe(`Sent the update to task ${taskId}; its status is now pending.`);
    await gates.open("r3");
    await client.runs.join(taskId, updated.tasks[taskId]!.runId);
    const runs = await client.runs.list(taskId);
    expect(runs.map((r) => r.status)).toEqual(["success", "success"]);
    expect(JSON.parse((await say(agent, threadId, `check ${taskId}`)).content)).toMatchObject({
      status: "success",
      answer: "Findings on and the sun",
    });
  }, 120_000);

  it("cancels a task's run on the server", async () => {
    const agent = parent();
    const threadId = randomUUID();
    const taskId = startedId((await say(agent, threadId, "start researcher: wait for r2")).content);
    await gates.entered("r2");
    expect((await say(agent, threadId, `cancel ${taskId}`)).content).toBe(
      `Cancelled task ${taskId}.`,
    );
    const task = tasksIn((await agent.getState(cfg(threadId))).values)[taskId]!;
    expect(task.status).toBe("cancelled");
    // On the wire a cancelled run reads "interrupted", as on LangGraph's server (no "cancelled").
    expect((await client.runs.get(taskId, task.runId)).status).toBe("interrupted");
  }, 120_000);

  it("a reviewed start runs once approved, and a task paused for review is found on the server with its parent link", async () => {
    const agent = parent({ interruptOn: { start_async_task: true } });
    const threadId = randomUUID();
    const r = await agent.invoke(
      { messages: [message.user("start researcher: remove b.log")] },
      { config: cfg(threadId) },
    );
    expect(r.status).toBe("interrupted");
    const done = await agent.resumeReview([HITL.decision("approve")], { config: cfg(threadId) });
    const [task] = Object.values(tasksIn(done.state));
    await client.runs.join(task!.threadId, task!.runId);

    const waiting = await client.threads.search({ status: "interrupted", limit: 100 });
    const thread = waiting.find((t) => t.thread_id === task!.taskId);
    expect(thread?.metadata).toMatchObject({
      parent_thread_id: threadId,
      parent_tool_call_id: expect.any(String),
      async_subagent: "researcher",
    });
    const check = JSON.parse((await say(agent, threadId, `check ${task!.taskId}`)).content);
    expect(check).toMatchObject({
      status: "interrupted",
      waiting_for_review: [{ actions: [{ name: "remove_file", args: { path: "b.log" } }] }],
    });

    // Approved on the server (as its inbox does): the parent's next check sees the answer.
    const resumed = await client.runs.create(task!.threadId, "researcher", {
      command: { resume: { decisions: [{ type: "approve" }] } },
    });
    await client.runs.join(task!.threadId, resumed.run_id);
    expect(JSON.parse((await say(agent, threadId, `check ${task!.taskId}`)).content)).toMatchObject(
      { status: "success", answer: "Report: removed b.log" },
    );
  }, 120_000);

  it("a lead served by the same server starts its tasks there, and a paused task's thread links to the lead's", async () => {
    const lead = await client.threads.create();
    const values = (await client.runs.wait(lead.thread_id, "lead", {
      input: { messages: [{ type: "human", content: "start researcher: remove c.log" }] },
    })) as { messages: Array<{ content: string }> };
    const said = values.messages.at(-1)!.content;
    expect(said).toMatch(/^Tool said: Started async task on "researcher"\. task_id: /);
    const taskId = /task_id: (\S+)/.exec(said)![1]!;
    const [run] = await client.runs.list(taskId);
    await client.runs.join(taskId, run!.run_id);
    expect((await client.runs.get(taskId, run!.run_id)).status).toBe("interrupted");

    const waiting = await client.threads.search({
      status: "interrupted",
      metadata: { parent_thread_id: lead.thread_id },
    });
    expect(waiting.map((t) => t.thread_id)).toEqual([taskId]);
    // What the inbox's thread page reads: the link, and the review waiting on the task.
    const page = (await (
      await fetch(`${server.url}/inbox/threads/${taskId}`, { headers: bearer })
    ).json()) as { thread: { metadata: Record<string, unknown> }; pending: unknown[] };
    expect(page.thread.metadata).toMatchObject({
      parent_thread_id: lead.thread_id,
      async_subagent: "researcher",
    });
    expect(page.pending).toHaveLength(1);
  }, 120_000);
});
