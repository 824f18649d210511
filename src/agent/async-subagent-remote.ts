import type { Client } from "@langchain/langgraph-sdk";
import type { RemoteAsyncSubagentSpec } from "./async-subagent.js";
import {
  lastAnswer,
  pendingReview,
  type TaskBackend,
  type TaskRun,
} from "./async-subagent-backend.js";
import type { AsyncTaskStatus } from "./async-subagent-state.js";

const STATUSES = new Set<string>(["pending", "running", "success", "error", "interrupted"]);

/** A LangGraph run status in ours (`timeout` is an error; a cancelled run stays cancelled). */
function statusOf(status: string): AsyncTaskStatus {
  if (STATUSES.has(status)) return status as AsyncTaskStatus;
  return status === "cancelled" ? "cancelled" : "error";
}

const view = (run: { run_id: string; status: string; error?: unknown }): TaskRun => {
  const error = run.error as { message?: unknown } | string | undefined;
  const text = typeof error === "string" ? error : error?.message;
  return {
    runId: run.run_id,
    status: statusOf(run.status),
    ...(text !== undefined && { error: String(text) }),
  };
};

const userMessage = (text: string) => ({ role: "user", content: text });

/**
 * Tasks as runs of an assistant on a stateweaver or LangGraph Agent Server API server,
 * through `@langchain/langgraph-sdk`'s Client.
 *
 * @example
 * const backend = remoteBackend({ name: "r", description: "…", url: "http://127.0.0.1:2024", assistantId: "researcher" });
 */
export function remoteBackend(spec: RemoteAsyncSubagentSpec): TaskBackend {
  // Loaded on first use: agents without remote subagents never load the SDK.
  let opened: Promise<Client> | undefined;
  const open = () => {
    opened ??= import("@langchain/langgraph-sdk").then(
      ({ Client }) =>
        new Client({
          apiUrl: spec.url,
          ...(spec.headers && { defaultHeaders: spec.headers }),
        }),
    );
    return opened;
  };
  const { assistantId } = spec;
  return {
    async start(threadId, text, metadata) {
      const client = await open();
      // A replay of the start call (a resumed or taken-over parent run) finds its run.
      await client.threads.create({ threadId, metadata, ifExists: "do_nothing" });
      const [existing] = await client.runs.list(threadId, { limit: 1 });
      if (existing) return view(existing);
      return view(
        await client.runs.create(threadId, assistantId, {
          input: { messages: [userMessage(text)] },
          metadata,
        }),
      );
    },
    async latest(threadId, runId) {
      const client = await open();
      const [run] = await client.runs.list(threadId, { limit: 1 });
      return view(run ?? (await client.runs.get(threadId, runId)));
    },
    async thread(threadId) {
      const client = await open();
      const state = await client.threads.getState(threadId);
      const values = (state.values ?? {}) as { messages?: unknown[] };
      const interrupts = ((state as { interrupts?: unknown[] }).interrupts ??
        state.tasks.flatMap((t) => t.interrupts ?? [])) as Array<{ id?: string; value?: unknown }>;
      return {
        answer: lastAnswer(Array.isArray(values.messages) ? values.messages : []),
        reviews: interrupts.map((i) => pendingReview(String(i.id), i.value)),
        ended: (state.next ?? []).length === 0,
      };
    },
    async send(threadId, text, metadata, strategy) {
      const client = await open();
      return view(
        await client.runs.create(threadId, assistantId, {
          input: { messages: [userMessage(text)] },
          metadata,
          multitaskStrategy: strategy,
        }),
      );
    },
    async cancel(threadId, runId) {
      const client = await open();
      let stopped = false;
      for (const run of await client.runs.list(threadId)) {
        if (run.status === "pending" || run.status === "running") {
          await client.runs.cancel(threadId, run.run_id, true);
          stopped = true;
        }
      }
      const latest = await this.latest(threadId, runId);
      // LangGraph's API has no "cancelled": a run stopped by cancel reads "interrupted" there.
      return stopped && latest.status === "interrupted"
        ? { ...latest, status: "cancelled" }
        : latest;
    },
  };
}
