import { createHash, randomUUID } from "node:crypto";
import { z } from "zod";
import { AgentConfigError } from "../errors/index.js";
import { Command } from "../graph/definition/command.js";
import { message, type Tool, type ToolRuntime, tool } from "../models/index.js";
import type { AsyncSubagentSpec, AsyncTaskUpdateStrategy } from "./async-subagent.js";
import { asyncSubagent } from "./async-subagent.js";
import { localBackend, type TaskBackend, type TaskRun } from "./async-subagent-backend.js";
import { remoteBackend } from "./async-subagent-remote.js";
import { ASYNC_TASKS, type AsyncTask } from "./async-subagent-state.js";

/** The names of the tools async subagents give the model. */
export const ASYNC_TASK_TOOLS = [
  "start_async_task",
  "check_async_task",
  "update_async_task",
  "cancel_async_task",
  "list_async_tasks",
] as const;

interface Hosted {
  backend: TaskBackend;
  updateStrategy: AsyncTaskUpdateStrategy;
}

const taskIdArg = z
  .string()
  .min(1)
  .describe("The exact task_id that start_async_task returned; pass it verbatim.");

const now = () => new Date().toISOString();

/**
 * The five tools that drive async subagents: `start_async_task`, `check_async_task`,
 * `update_async_task`, `cancel_async_task` and `list_async_tasks`. Each records what it
 * learned in the parent's `asyncTasks` state (merged by task id).
 *
 * @example
 * const tools = asyncTaskTools([asyncSubagent({ name: "researcher", description: "…", graph })]);
 */
export function asyncTaskTools(specs: readonly AsyncSubagentSpec[]): Tool<any, any>[] {
  if (specs.length === 0) return [];
  const hosted = new Map<string, Hosted>();
  for (const raw of specs) {
    const spec = asyncSubagent(raw);
    if (hosted.has(spec.name)) {
      throw new AgentConfigError(
        `Two async subagents are named "${spec.name}"; give each a unique name.`,
      );
    }
    hosted.set(spec.name, {
      backend: spec.graph ? localBackend(spec.graph) : remoteBackend(spec),
      updateStrategy: spec.updateStrategy ?? "enqueue",
    });
  }
  const names = [...hosted.keys()] as [string, ...string[]];
  const menu = specs.map((s) => `- ${s.name}: ${s.description}`).join("\n");

  /** The task record by id, or an error the model can act on. */
  const taskOf = (runtime: ToolRuntime, taskId: string): { task: AsyncTask; at: Hosted } => {
    const tasks = tasksIn(runtime);
    const task = tasks[taskId];
    if (!task) {
      const known = Object.keys(tasks);
      throw new Error(
        `there is no task "${taskId}". ${known.length > 0 ? `Known task ids: ${known.join(", ")}.` : "No task was started yet."} Use list_async_tasks to see them.`,
      );
    }
    const at = hosted.get(task.agentName);
    if (!at) {
      throw new Error(
        `task "${taskId}" belongs to async subagent "${task.agentName}", which this agent no longer has.`,
      );
    }
    return { task, at };
  };
  /** A task's new record after `run` was seen. */
  const seen = (task: AsyncTask, run: TaskRun): AsyncTask => {
    const at = now();
    const changed = run.runId !== task.runId || run.status !== task.status;
    return {
      ...task,
      runId: run.runId,
      status: run.status,
      checkedAt: at,
      updatedAt: changed ? at : task.updatedAt,
    };
  };
  const reply = (runtime: ToolRuntime, name: string, content: string, tasks: AsyncTask[]) =>
    new Command({
      update: {
        messages: [message.tool({ toolCallId: runtime.toolCall.id, name, content })],
        [ASYNC_TASKS]: Object.fromEntries(tasks.map((t) => [t.taskId, t])),
      },
    });

  const start = tool({
    name: "start_async_task",
    description: `Start a task on an async subagent. It runs in the background on its own thread and this returns a task_id at once. Tell the user the task_id and carry on; do not check the task straight away. Use check_async_task when the user asks how it is going, update_async_task to send it new instructions, cancel_async_task to stop it. Async subagents:\n${menu}`,
    schema: z.object({
      description: z
        .string()
        .min(1)
        .describe("The task, with everything the subagent needs to know to do it alone"),
      subagent_type: z.enum(names).describe("Which async subagent does the task"),
    }),
    run: async ({ description, subagent_type }, runtime) => {
      const at = hosted.get(subagent_type)!;
      const parentThreadId = parentThreadOf(runtime);
      const threadId = taskThreadId(parentThreadId, [
        runtime.toolCall.id,
        subagent_type,
        description,
      ]);
      const run = await at.backend.start(
        threadId,
        description,
        linkOf(parentThreadId, runtime.toolCall.id, subagent_type),
      );
      const time = now();
      const task: AsyncTask = {
        taskId: threadId,
        agentName: subagent_type,
        threadId,
        runId: run.runId,
        status: run.status,
        createdAt: time,
        checkedAt: time,
        updatedAt: time,
      };
      return reply(
        runtime,
        "start_async_task",
        `Started async task on "${subagent_type}". task_id: ${threadId}`,
        [task],
      );
    },
  });

  const check = tool({
    name: "check_async_task",
    description:
      "Get the current status of an async task and, once it has succeeded, its answer; if it waits for a person's review, what it waits on. Statuses seen earlier in the conversation may be stale: call this for the current one. Check once per request from the user; do not poll.",
    schema: z.object({ task_id: taskIdArg }),
    run: async ({ task_id }, runtime) => {
      const { task, at } = taskOf(runtime, task_id);
      let run = await at.backend.latest(task.threadId, task.runId);
      const report: Record<string, unknown> = { task_id, agent: task.agentName };
      if (run.status === "success" || run.status === "interrupted") {
        const thread = await at.backend.thread(task.threadId);
        // Resumed and finished outside a run (graph.resume on the task's thread).
        if (run.status === "interrupted" && thread.reviews.length === 0 && thread.ended)
          run = { ...run, status: "success" };
        report.status = run.status;
        if (run.status === "success") report.answer = thread.answer ?? "";
        if (thread.reviews.length > 0) {
          report.waiting_for_review = thread.reviews;
          report.note =
            "The task is paused until a person answers its review in the inbox (its own thread, linked to this one).";
        }
      }
      report.status ??= run.status;
      if (run.status === "error") report.error = run.error ?? "the task's run failed";
      return reply(runtime, "check_async_task", JSON.stringify(report), [seen(task, run)]);
    },
  });

  const update = tool({
    name: "update_async_task",
    description:
      "Send an async task a follow-up message (new instructions or context). It continues on the same thread with the same task_id, after the work in progress.",
    schema: z.object({
      task_id: taskIdArg,
      message: z.string().min(1).describe("The follow-up instructions or context"),
    }),
    run: async ({ task_id, message: text }, runtime) => {
      const { task, at } = taskOf(runtime, task_id);
      // Only a paused run can leave a review waiting (and only then has the thread a state).
      const current = await at.backend.latest(task.threadId, task.runId);
      const paused = current.status === "interrupted";
      if (paused && (await at.backend.thread(task.threadId)).reviews.length > 0) {
        // A new message would leave the reviewed tool calls unanswered in its conversation.
        throw new Error(
          `task "${task_id}" waits for a person's review; it can take new instructions once the review is answered. Tell the user.`,
        );
      }
      const run = await at.backend.send(
        task.threadId,
        text,
        linkOf(parentThreadOf(runtime), runtime.toolCall.id, task.agentName),
        at.updateStrategy,
      );
      return reply(
        runtime,
        "update_async_task",
        `Sent the update to task ${task_id}; its status is now ${run.status}.`,
        [seen(task, run)],
      );
    },
  });

  const cancel = tool({
    name: "cancel_async_task",
    description: "Stop an async task that is no longer needed. What it did so far is kept.",
    schema: z.object({ task_id: taskIdArg }),
    run: async ({ task_id }, runtime) => {
      const { task, at } = taskOf(runtime, task_id);
      const run = await at.backend.cancel(task.threadId, task.runId);
      const content =
        run.status === "cancelled"
          ? `Cancelled task ${task_id}.`
          : `Task ${task_id} had already ended (${run.status}); nothing to cancel.`;
      return reply(runtime, "cancel_async_task", content, [seen(task, run)]);
    },
  });

  const list = tool({
    name: "list_async_tasks",
    description:
      "List the async tasks started from this conversation with their current statuses (and task_ids, in full).",
    schema: z.object({
      status_filter: z
        .enum(["all", "pending", "running", "success", "error", "interrupted", "cancelled"])
        .optional()
        .describe("Only tasks in this status (default all)"),
    }),
    run: async ({ status_filter = "all" }, runtime) => {
      const records = Object.values(tasksIn(runtime));
      const updated = await Promise.all(
        records.map(async (task) => {
          const at = hosted.get(task.agentName);
          if (!at) return task;
          try {
            return seen(task, await at.backend.latest(task.threadId, task.runId));
          } catch {
            return task; // unreachable now: show what was last seen
          }
        }),
      );
      const shown = updated.filter((t) => status_filter === "all" || t.status === status_filter);
      const content =
        shown.length === 0
          ? records.length === 0
            ? "No async tasks were started yet."
            : `No async tasks are ${status_filter}.`
          : JSON.stringify(
              shown.map((t) => ({ task_id: t.taskId, agent: t.agentName, status: t.status })),
            );
      return reply(runtime, "list_async_tasks", content, updated);
    },
  });

  return [start, check, update, cancel, list];
}

function tasksIn(runtime: ToolRuntime): Record<string, AsyncTask> {
  const state = runtime.state as { [ASYNC_TASKS]?: Record<string, AsyncTask> } | undefined;
  return state?.[ASYNC_TASKS] ?? {};
}

function parentThreadOf(runtime: ToolRuntime): string | undefined {
  const config = runtime.config as { configurable?: { thread_id?: unknown } } | undefined;
  const id = config?.configurable?.thread_id;
  return typeof id === "string" ? id : undefined;
}

/** What a task's thread carries, so the inbox and searches can find its parent. */
function linkOf(parentThreadId: string | undefined, toolCallId: string, agentName: string) {
  return {
    ...(parentThreadId !== undefined && { parent_thread_id: parentThreadId }),
    parent_tool_call_id: toolCallId,
    async_subagent: agentName,
  };
}

/**
 * The task's thread id: derived from the parent's thread and the start call (its id and
 * arguments), so a call that runs again (a resumed or taken-over parent run) lands on the
 * same task, and a new call on a new one.
 */
function taskThreadId(parentThreadId: string | undefined, call: readonly string[]): string {
  if (parentThreadId === undefined) return randomUUID();
  const hex = createHash("sha256")
    .update(JSON.stringify([parentThreadId, ...call]))
    .digest("hex");
  // Shaped as a UUID (version 8: custom), which LangGraph servers expect of thread ids.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((Number.parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
