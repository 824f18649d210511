import type { CompiledGraph } from "../graph/compiled-graph.js";
import type { AsyncTaskUpdateStrategy } from "./async-subagent.js";
import type { AsyncTaskStatus } from "./async-subagent-state.js";

/**
 * What a task's thread has to show: the subagent's last answer, and the reviews it waits
 * on (a paused run).
 *
 * @example
 * const { answer, reviews } = await backend.thread(task.threadId);
 */
export interface TaskThread {
  answer: string | undefined;
  reviews: PendingReview[];
  /** Nothing is left to run on the thread (it ended, rather than paused or stopped). */
  ended: boolean;
}

/**
 * A review a task waits on: the tool calls to decide (a tool review), or the value it
 * asked with (any other interrupt).
 *
 * @example
 * const review: PendingReview = { interruptId: "i1", actions: [{ name: "send_email", args: { to: "a@b.c" } }] };
 */
export interface PendingReview {
  interruptId: string;
  actions?: Array<{ name: string; args: unknown }>;
  value?: unknown;
}

/** One run of a task, as the backend reports it. */
export interface TaskRun {
  runId: string;
  status: AsyncTaskStatus;
  error?: string;
}

/**
 * Where an async subagent's tasks run: on this process's run service, or on a server.
 * Every task is a thread of its own; `start` makes it (with `threadId`, so a replayed
 * tool call finds the task it already started) and its first run.
 *
 * @example
 * const { runId } = await backend.start(threadId, "Research X", { parent_thread_id: "t1" });
 */
export interface TaskBackend {
  start(threadId: string, text: string, metadata: Record<string, unknown>): Promise<TaskRun>;
  /**
   * The thread's latest run (`runId` when it has no other): a review answered in the inbox
   * resumes the task in a run the parent did not start.
   */
  latest(threadId: string, runId: string): Promise<TaskRun>;
  thread(threadId: string): Promise<TaskThread>;
  /** A follow-up human message, as a new run on the task's thread. */
  send(
    threadId: string,
    text: string,
    metadata: Record<string, unknown>,
    strategy: AsyncTaskUpdateStrategy,
  ): Promise<TaskRun>;
  /** Cancel every run pending or working on the thread; the latest run's record after. */
  cancel(threadId: string, runId: string): Promise<TaskRun>;
}

const ACTIVE = new Set<AsyncTaskStatus>(["pending", "running"]);

/** A user message in the JSON form both our graphs and LangGraph servers accept. */
const userMessage = (text: string) => ({ role: "user", content: text });

/**
 * Tasks as background runs of a graph bound to a run service (`graph.runs`).
 *
 * @example
 * const backend = localBackend(runs.graph("researcher")!);
 */
export function localBackend(graph: CompiledGraph<any, any>): TaskBackend {
  const view = (run: {
    runId: string;
    status: AsyncTaskStatus;
    error: { message: string } | null;
  }) =>
    ({
      runId: run.runId,
      status: run.status,
      ...(run.error && { error: run.error.message }),
    }) satisfies TaskRun;
  return {
    async start(threadId, text, metadata) {
      // A replay of the start call (a resumed or taken-over parent run) finds its run.
      const [existing] = await graph.runs.list(threadId, { limit: 1 });
      if (existing) return view(existing);
      return view(
        await graph.runs.create(threadId, { messages: [userMessage(text)] }, { metadata }),
      );
    },
    async latest(threadId, runId) {
      const [run] = await graph.runs.list(threadId, { limit: 1 });
      const known = run ?? (await graph.runs.get(runId));
      if (!known) throw new Error(`the task's run ${runId} is no longer known to the run service`);
      return view(known);
    },
    async thread(threadId) {
      const state = await graph.getState({ configurable: { thread_id: threadId } });
      const messages = (state.values as { messages?: unknown[] }).messages ?? [];
      return {
        answer: lastAnswer(messages),
        reviews: state.interrupts.map((i) => pendingReview(i.id, i.value)),
        ended: state.next.length === 0,
      };
    },
    async send(threadId, text, metadata, strategy) {
      return view(
        await graph.runs.create(
          threadId,
          { messages: [userMessage(text)] },
          { metadata, multitaskStrategy: strategy },
        ),
      );
    },
    async cancel(threadId, runId) {
      for (const run of await graph.runs.list(threadId)) {
        if (ACTIVE.has(run.status)) await graph.runs.cancel(run.runId, { wait: true });
      }
      return this.latest(threadId, runId);
    },
  };
}

/**
 * The text of the last assistant message in `messages`, ours (`role: "assistant"`) or
 * LangChain's wire form (`type: "ai"`, content as a string or text blocks).
 *
 * @example
 * lastAnswer([{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }]); // "hello"
 */
export function lastAnswer(messages: readonly unknown[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; type?: unknown; content?: unknown } | null;
    if (m?.role !== "assistant" && m?.type !== "ai") continue;
    if (typeof m.content === "string") return m.content;
    if (Array.isArray(m.content)) {
      return m.content
        .map((b: { type?: unknown; text?: unknown }) =>
          b?.type === "text" && typeof b.text === "string" ? b.text : "",
        )
        .join("");
    }
    return "";
  }
  return undefined;
}

/**
 * An interrupt as a pending review: a tool review's actions (`actionRequests`), or the
 * interrupt's value as it is.
 *
 * @example
 * pendingReview("i1", { actionRequests: [{ name: "rm", args: { path: "a" } }] }); // { interruptId: "i1", actions: [{ name: "rm", args: { path: "a" } }] }
 */
export function pendingReview(interruptId: string, value: unknown): PendingReview {
  const requests = (value as { actionRequests?: unknown } | null)?.actionRequests;
  if (Array.isArray(requests)) {
    return {
      interruptId,
      actions: requests.map((r: { name?: unknown; args?: unknown }) => ({
        name: String(r?.name),
        args: r?.args,
      })),
    };
  }
  return { interruptId, value };
}
