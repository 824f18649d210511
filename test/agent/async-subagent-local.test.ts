import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  AgentConfigError,
  type AsyncTask,
  asyncSubagent,
  createAgent,
  HITL,
  subagent,
} from "../../src/agent/index.js";
import {
  type Checkpointer,
  MemoryCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import { Command } from "../../src/index.js";
import { message, type ToolMessage } from "../../src/models/index.js";
import {
  createRuns,
  InProcessRunQueue,
  PostgresRunQueue,
  type RunQueue,
  type Runs,
} from "../../src/runs/index.js";
import { dropDeploymentTables } from "../setup/store-tables.js";
import { gateFolder, parentModel, researcher } from "./fixtures/async-subagent-graphs.js";

const pgUrl = process.env.STATEWEAVER_PG_URL;

interface Setup {
  /** A store instance on the same data (a new one stands for a restarted process). */
  checkpointer(): Checkpointer;
  queue(): Promise<RunQueue>;
  cleanup(): Promise<void>;
}

const setups: Array<[string, () => Setup, boolean]> = [
  [
    "on the in-process queue",
    () => {
      const store = new MemoryCheckpointer();
      return {
        checkpointer: () => store,
        queue: async () => new InProcessRunQueue(),
        cleanup: async () => {},
      };
    },
    true,
  ],
  [
    "on the PostgreSQL queue",
    () => {
      const tablePrefix = `sw_async_${randomUUID().slice(0, 8)}_`;
      return {
        checkpointer: () => new PostgresCheckpointer({ connectionString: pgUrl!, tablePrefix }),
        queue: () =>
          PostgresRunQueue.open({ connectionString: pgUrl!, tablePrefix, pollInterval: 200 }),
        cleanup: async () => {
          await dropDeploymentTables(pgUrl!, tablePrefix);
        },
      };
    },
    pgUrl !== undefined,
  ],
];

describe.each(setups)("async subagents %s", (_name, makeSetup, enabled) => {
  let setup: Setup;
  let runs: Runs;
  let store: Checkpointer;
  let gates: Awaited<ReturnType<typeof gateFolder>>;
  const closing: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    if (!enabled) return;
    setup = makeSetup();
    gates = await gateFolder();
    store = setup.checkpointer();
    runs = createRuns({
      graphs: [researcher({ gateDir: gates.dir, checkpointer: store })],
      queue: await setup.queue(),
    });
    await runs.work({ concurrency: 4 });
  });
  afterEach(async () => {
    for (const close of closing.splice(0)) await close();
  });
  afterAll(async () => {
    if (!enabled) return;
    await runs.close();
    await store.close?.();
    await gates.dispose();
    await setup.cleanup();
  });

  const sub = () => runs.graph("researcher")!;
  const parent = (
    options: {
      checkpointer?: Checkpointer;
      interruptOn?: any;
      updateStrategy?: "enqueue" | "interrupt";
    } = {},
  ) =>
    createAgent({
      name: "lead",
      model: parentModel(),
      checkpointer: options.checkpointer ?? store,
      interruptOn: options.interruptOn,
      subagents: [
        asyncSubagent({
          name: "researcher",
          description: "Researches a topic and reports back.",
          graph: sub(),
          updateStrategy: options.updateStrategy,
        }),
      ],
    });
  const config = (threadId: string) => ({ configurable: { thread_id: threadId } });
  /** Say `text` on the parent's thread; the tool's answer (the last tool message). */
  const say = async (agent: ReturnType<typeof parent>, threadId: string, text: string) => {
    const r = await agent.invoke({ messages: [message.user(text)] }, { config: config(threadId) });
    expect(r.status).toBe("done");
    const tool = r.state.messages.filter((m): m is ToolMessage => m.role === "tool").at(-1)!;
    return { content: tool.content, tasks: tasksIn(r.state) };
  };
  const tasksIn = (state: Record<string, unknown>) =>
    (state.asyncTasks ?? {}) as Record<string, AsyncTask>;
  const startedId = (content: string) => /task_id: (\S+)/.exec(content)![1]!;

  it.skipIf(!enabled)(
    "starts a task as a background run on its own thread, reports it running, then its answer",
    async () => {
      const agent = parent();
      const threadId = randomUUID();
      const started = await say(agent, threadId, "start researcher: wait for g1 then summarise");
      const taskId = startedId(started.content);
      const task = started.tasks[taskId]!;
      expect(task).toMatchObject({ taskId, threadId: taskId, agentName: "researcher" });
      expect(taskId).not.toBe(threadId);

      await gates.entered("g1");
      const running = JSON.parse((await say(agent, threadId, `check ${taskId}`)).content);
      expect(running).toEqual({ task_id: taskId, agent: "researcher", status: "running" });

      await gates.open("g1");
      expect((await sub().runs.join(task.runId)).status).toBe("success");
      const done = await say(agent, threadId, `check ${taskId}`);
      expect(JSON.parse(done.content)).toEqual({
        task_id: taskId,
        agent: "researcher",
        status: "success",
        answer: "Report: gate g1 opened",
      });
      expect(done.tasks[taskId]!.status).toBe("success");
      // The task's thread is linked to the parent's thread and the call that started it.
      const thread = await store.getThread(taskId);
      expect(thread?.metadata).toMatchObject({
        parent_thread_id: threadId,
        parent_tool_call_id: expect.any(String),
        async_subagent: "researcher",
      });
    },
  );

  it.skipIf(!enabled)(
    "an update is a new run on the task's thread, queued behind the run in progress",
    async () => {
      const agent = parent();
      const threadId = randomUUID();
      const taskId = startedId(
        (await say(agent, threadId, "start researcher: wait for g2 first")).content,
      );
      await gates.entered("g2");
      const updated = await say(agent, threadId, `update ${taskId}: also cover pricing`);
      expect(updated.content).toBe(`Sent the update to task ${taskId}; its status is now pending.`);
      const first = (await sub().runs.list(taskId)).at(-1)!;
      const second = updated.tasks[taskId]!;
      expect(second.runId).not.toBe(first.runId);

      await gates.open("g2");
      expect((await sub().runs.join(second.runId)).status).toBe("success");
      // Enqueued, not interrupting: the first run finished its work before the update ran.
      expect((await sub().runs.get(first.runId))?.status).toBe("success");
      const check = JSON.parse((await say(agent, threadId, `check ${taskId}`)).content);
      expect(check).toMatchObject({ status: "success", answer: "Findings on also cover pricing" });
      const messages = (await sub().getState(config(taskId))).values.messages;
      expect(messages.map((m: { content: string }) => m.content)).toEqual([
        "wait for g2 first",
        "",
        "gate g2 opened",
        "Report: gate g2 opened",
        "also cover pricing",
        "Findings on also cover pricing",
      ]);
    },
  );

  it.skipIf(!enabled)(
    'with updateStrategy "interrupt", an update stops the run in progress and runs at once',
    async () => {
      const agent = parent({ updateStrategy: "interrupt" });
      const threadId = randomUUID();
      const taskId = startedId(
        (await say(agent, threadId, "start researcher: wait for g7")).content,
      );
      await gates.entered("g7");
      const first = (await sub().runs.list(taskId)).at(-1)!;
      const updated = await say(agent, threadId, `update ${taskId}: change of plan`);
      const second = updated.tasks[taskId]!;
      await gates.open("g7");
      expect((await sub().runs.join(second.runId)).status).toBe("success");
      expect((await sub().runs.get(first.runId))?.status).toBe("interrupted");
      const check = JSON.parse((await say(agent, threadId, `check ${taskId}`)).content);
      expect(check).toMatchObject({ status: "success", answer: "Findings on change of plan" });
    },
  );

  it.skipIf(!enabled)(
    "cancelling stops the task's run; the tasks are listed with their statuses",
    async () => {
      const agent = parent();
      const threadId = randomUUID();
      const slow = startedId((await say(agent, threadId, "start researcher: wait for g3")).content);
      const quick = startedId((await say(agent, threadId, "start researcher: the news")).content);
      await gates.entered("g3");
      expect((await say(agent, threadId, `cancel ${slow}`)).content).toBe(
        `Cancelled task ${slow}.`,
      );
      const quickTask = tasksIn((await agent.getState(config(threadId))).values)[quick]!;
      await sub().runs.join(quickTask.runId);

      const listed = await say(agent, threadId, "list");
      expect(JSON.parse(listed.content)).toEqual([
        { task_id: slow, agent: "researcher", status: "cancelled" },
        { task_id: quick, agent: "researcher", status: "success" },
      ]);
      expect(JSON.parse((await say(agent, threadId, "list cancelled")).content)).toEqual([
        { task_id: slow, agent: "researcher", status: "cancelled" },
      ]);
      expect((await say(agent, threadId, `cancel ${quick}`)).content).toBe(
        `Task ${quick} had already ended (success); nothing to cancel.`,
      );
      // An unknown id is answered to the model, which can correct itself.
      expect((await say(agent, threadId, "check nope")).content).toMatch(
        /there is no task "nope"\. Known task ids: .*Use list_async_tasks/,
      );
    },
  );

  it.skipIf(!enabled)(
    "the task ids survive a restart: a new agent instance on the same store checks them",
    async () => {
      const threadId = randomUUID();
      const first = parent();
      const taskId = startedId((await say(first, threadId, "start researcher: tides")).content);
      const runId = tasksIn((await first.getState(config(threadId))).values)[taskId]!.runId;
      await sub().runs.join(runId);

      const reopened = setup.checkpointer();
      if (reopened !== store) closing.push(async () => reopened.close?.());
      const second = parent({ checkpointer: reopened });
      const check = await say(second, threadId, `check ${taskId}`);
      expect(JSON.parse(check.content)).toMatchObject({
        status: "success",
        answer: "Findings on tides",
      });
      expect(Object.keys(check.tasks)).toEqual([taskId]);
    },
  );

  it.skipIf(!enabled)(
    "the parent's interruptOn reviews starting and cancelling a task",
    async () => {
      const agent = parent({ interruptOn: { start_async_task: true, cancel_async_task: true } });
      const threadId = randomUUID();
      const r = await agent.invoke(
        { messages: [message.user("start researcher: wait for g5")] },
        { config: config(threadId) },
      );
      expect(r.status).toBe("interrupted");
      if (r.status !== "interrupted") return;
      expect(HITL.fromInterrupt(r.interrupt).actions.map((a) => [a.name, a.args])).toEqual([
        ["start_async_task", { subagent_type: "researcher", description: "wait for g5" }],
      ]);
      // Nothing started before the reviewer approved.
      expect(r.state.asyncTasks).toBeUndefined();

      const approved = await agent.resumeReview([HITL.decision("approve")], {
        config: config(threadId),
      });
      expect(approved.status).toBe("done");
      const [taskId] = Object.keys(tasksIn(approved.state));
      await gates.entered("g5");

      const cancel = await agent.invoke(
        { messages: [message.user(`cancel ${taskId}`)] },
        { config: config(threadId) },
      );
      expect(cancel.status).toBe("interrupted");
      const rejected = await agent.resumeReview(
        [HITL.decision("reject", { message: "Let it finish." })],
        { config: config(threadId) },
      );
      expect(rejected.status).toBe("done");
      const task = tasksIn(rejected.state)[taskId!]!;
      expect((await sub().runs.get(task.runId))?.status).toBe("running");
      await gates.open("g5");
      expect((await sub().runs.join(task.runId)).status).toBe("success");
    },
  );

  it.skipIf(!enabled)(
    "a task that pauses for review waits in the inbox as its own thread, linked to its parent",
    async () => {
      const agent = parent();
      const threadId = randomUUID();
      const taskId = startedId(
        (await say(agent, threadId, "start researcher: remove a.log")).content,
      );
      const runId = tasksIn((await agent.getState(config(threadId))).values)[taskId]!.runId;
      expect((await sub().runs.join(runId)).status).toBe("interrupted");

      const waiting = await store.searchThreads({ status: "interrupted", limit: 100 });
      const thread = waiting.threads.find((t) => t.threadId === taskId);
      expect(thread?.metadata).toMatchObject({
        parent_thread_id: threadId,
        async_subagent: "researcher",
      });
      expect(thread?.interrupts).toHaveLength(1);

      const check = JSON.parse((await say(agent, threadId, `check ${taskId}`)).content);
      expect(check).toMatchObject({
        status: "interrupted",
        waiting_for_review: [
          {
            interruptId: thread!.interrupts[0]!.id,
            actions: [{ name: "remove_file", args: { path: "a.log" } }],
          },
        ],
      });
      // A follow-up would leave the reviewed call unanswered: refused until the review is.
      expect((await say(agent, threadId, `update ${taskId}: hurry`)).content).toMatch(
        /waits for a person's review/,
      );

      // The reviewer approves on the task's thread (as the inbox does: a new run resuming it);
      // the parent's next check follows the task to that run and its answer.
      const resumed = await sub().runs.create(
        taskId,
        new Command({ resume: { decisions: [{ type: "approve" }] } }),
      );
      await sub().runs.join(resumed.runId);
      const after = await say(agent, threadId, `check ${taskId}`);
      expect(JSON.parse(after.content)).toMatchObject({
        status: "success",
        answer: "Report: removed a.log",
      });
      expect(after.tasks[taskId]).toMatchObject({ runId: resumed.runId, status: "success" });
    },
  );
});

describe("asyncSubagent configuration", () => {
  const graph = () => researcher({ gateDir: "." });

  it("refuses a graph with no run service, saying how to bind one", () => {
    expect(() =>
      asyncSubagent({ name: "researcher", description: "Researches.", graph: graph() }),
    ).toThrow(
      new AgentConfigError(
        'Async subagent "researcher": its graph "researcher" has no run service, so it cannot run tasks in the background. Host it on one and pass the bound graph: const runs = createRuns({ graphs: [graph] }); await runs.work(); asyncSubagent({ …, graph: runs.graph("researcher")! }).',
      ),
    );
  });

  it("needs a graph or a server, and a server needs an http(s) url and an assistantId", () => {
    const bound = createRuns({ graphs: [graph()] }).graph("researcher")!;
    expect(() =>
      asyncSubagent({ name: "r", description: "d", graph: bound, url: "http://x" } as never),
    ).toThrow(/needs either a graph .* or a server .*, not both/);
    expect(() => asyncSubagent({ name: "r", description: "d" } as never)).toThrow(/not neither/);
    expect(() =>
      asyncSubagent({ name: "r", description: "d", url: "ftp://x", assistantId: "a" }),
    ).toThrow(/url "ftp:\/\/x" is not an http\(s\) URL/);
    expect(() =>
      asyncSubagent({ name: "r", description: "d", url: "http://127.0.0.1:1", assistantId: "" }),
    ).toThrow(/needs an assistantId/);
    expect(() => asyncSubagent({ name: "r r", description: "d", graph: bound })).toThrow(
      /name "r r" is not valid/,
    );
  });

  it("gives the model the five task tools next to the agent's own", () => {
    const bound = createRuns({ graphs: [graph()] }).graph("researcher")!;
    const agent = createAgent({
      model: parentModel(),
      subagents: [asyncSubagent({ name: "researcher", description: "Researches.", graph: bound })],
    });
    expect(agent.tools.map((t) => t.name)).toEqual([
      "start_async_task",
      "check_async_task",
      "update_async_task",
      "cancel_async_task",
      "list_async_tasks",
    ]);
    const start = agent.tools[0]!;
    expect(start.description).toContain("- researcher: Researches.");
    expect(start.parameters).toMatchObject({
      properties: { subagent_type: { enum: ["researcher"] } },
      required: ["description", "subagent_type"],
    });
  });

  it("mixes with synchronous subagents: the task tool and the async task tools side by side", () => {
    const bound = createRuns({ graphs: [graph()] }).graph("researcher")!;
    const agent = createAgent({
      model: parentModel(),
      subagents: [
        subagent({ name: "helper", description: "Helps.", tools: [] }),
        asyncSubagent({ name: "researcher", description: "Researches.", graph: bound }),
      ],
    });
    expect(agent.tools.map((t) => t.name)).toEqual([
      "task",
      "start_async_task",
      "check_async_task",
      "update_async_task",
      "cancel_async_task",
      "list_async_tasks",
    ]);
    expect(() =>
      createAgent({
        model: parentModel(),
        subagents: [
          asyncSubagent({ name: "researcher", description: "Researches.", graph: bound }),
          asyncSubagent({ name: "researcher", description: "Again.", graph: bound }),
        ],
      }),
    ).toThrow(
      new AgentConfigError('Two async subagents are named "researcher"; give each a unique name.'),
    );
  });
});
