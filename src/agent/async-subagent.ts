import { AgentConfigError, RunsNotBoundError } from "../errors/index.js";
import type { CompiledGraph } from "../graph/compiled-graph.js";

/**
 * How `update_async_task` delivers a follow-up to a task whose run is still working:
 * `"enqueue"` (the default) waits for that run to end, so a run is never cut between the
 * model's tool calls and their answers; `"interrupt"` stops it at its next step boundary
 * (keeping what it did) and starts the follow-up at once.
 *
 * @example
 * asyncSubagent({ name: "researcher", description: "…", graph, updateStrategy: "interrupt" });
 */
export type AsyncTaskUpdateStrategy = "enqueue" | "interrupt";

interface AsyncSubagentBase {
  /** What the parent's model calls it (letters, digits, `_`, `-`). */
  name: string;
  /** What it does: the parent's model reads it to decide when to start a task. */
  description: string;
  updateStrategy?: AsyncTaskUpdateStrategy;
}

/**
 * An async subagent whose tasks are background runs of `graph` on this process's run
 * service (`createRuns`; in-process or the PostgreSQL queue). The graph must be bound to
 * it: pass `runs.graph(name)` or `graph.withRuns(runs)`.
 *
 * @example
 * const spec: LocalAsyncSubagentSpec = { name: "researcher", description: "Researches a topic.", graph: runs.graph("researcher")! };
 */
export interface LocalAsyncSubagentSpec extends AsyncSubagentBase {
  graph: CompiledGraph<any, any>;
  url?: undefined;
  assistantId?: undefined;
}

/**
 * An async subagent whose tasks are runs of assistant `assistantId` on a stateweaver (or
 * any LangGraph Agent Server API) server at `url`, reached with `@langchain/langgraph-sdk`.
 *
 * @example
 * const spec: RemoteAsyncSubagentSpec = { name: "researcher", description: "Researches a topic.", url: "http://127.0.0.1:2024", assistantId: "researcher" };
 */
export interface RemoteAsyncSubagentSpec extends AsyncSubagentBase {
  url: string;
  assistantId: string;
  /** Sent with every request, e.g. `{ authorization: "Bearer …" }` for a server with a token. */
  headers?: Record<string, string>;
  graph?: undefined;
}

/**
 * An async subagent: a local graph on a run service, or an assistant on a remote server.
 *
 * @example
 * const specs: AsyncSubagentSpec[] = [asyncSubagent({ name: "researcher", description: "…", graph })];
 */
export type AsyncSubagentSpec = LocalAsyncSubagentSpec | RemoteAsyncSubagentSpec;

const NAME = /^[A-Za-z_][\w-]*$/;
const UPDATE_STRATEGIES: readonly AsyncTaskUpdateStrategy[] = ["enqueue", "interrupt"];

/**
 * Declares an async subagent for `createAgent({ subagents })`. The parent's model gets
 * tools to start a task (a background run on a new thread of its own), check it, send it
 * a follow-up, cancel it and list its tasks; the parent keeps going meanwhile. Task ids
 * live in the parent's state (`asyncTasks`), so they survive restarts. Each task's thread
 * carries `parent_thread_id` and `parent_tool_call_id` in its metadata, so a task that
 * pauses for review shows in the inbox linked to its parent.
 *
 * @example
 * const runs = createRuns({ graphs: [researcher] });
 * await runs.work();
 * const agent = createAgent({
 *   model, checkpointer,
 *   subagents: [asyncSubagent({
 *     name: "researcher",
 *     description: "Researches a topic in depth and reports back.",
 *     graph: runs.graph("researcher")!,
 *   })],
 * });
 * // or, on another server: asyncSubagent({ name, description, url: "http://10.0.0.5:2024", assistantId: "researcher" })
 */
export function asyncSubagent<S extends AsyncSubagentSpec>(spec: S): S {
  if (typeof spec?.name !== "string" || !NAME.test(spec.name)) {
    throw new AgentConfigError(
      `Async subagent name ${JSON.stringify(spec?.name)} is not valid: use letters, digits, "_" and "-", starting with a letter, e.g. "researcher".`,
    );
  }
  const what = `Async subagent "${spec.name}"`;
  if (typeof spec.description !== "string" || spec.description.trim() === "") {
    throw new AgentConfigError(
      `${what} needs a description: the parent's model reads it to decide when to start a task.`,
    );
  }
  if (spec.updateStrategy !== undefined && !UPDATE_STRATEGIES.includes(spec.updateStrategy)) {
    throw new AgentConfigError(
      `${what}: updateStrategy ${JSON.stringify(spec.updateStrategy)} is not one of ${UPDATE_STRATEGIES.join(", ")}.`,
    );
  }
  const local = spec.graph !== undefined;
  const remote = spec.url !== undefined || spec.assistantId !== undefined;
  if (local === remote) {
    throw new AgentConfigError(
      `${what} needs either a graph (asyncSubagent({ name, description, graph })) or a server (asyncSubagent({ name, description, url, assistantId })), not ${local ? "both" : "neither"}.`,
    );
  }
  if (local) {
    try {
      void spec.graph!.runs;
    } catch (error) {
      if (!(error instanceof RunsNotBoundError)) throw error;
      throw new AgentConfigError(
        `${what}: its graph "${spec.graph!.name}" has no run service, so it cannot run tasks in the background. Host it on one and pass the bound graph: const runs = createRuns({ graphs: [graph] }); await runs.work(); asyncSubagent({ …, graph: runs.graph("${spec.graph!.name}")! }).`,
      );
    }
    return spec;
  }
  let url: URL | undefined;
  try {
    url = new URL(spec.url ?? "");
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new AgentConfigError(
      `${what}: url ${JSON.stringify(spec.url)} is not an http(s) URL; give the server's address, e.g. "http://127.0.0.1:2024".`,
    );
  }
  if (typeof spec.assistantId !== "string" || spec.assistantId.trim() === "") {
    throw new AgentConfigError(
      `${what} needs an assistantId: the graph's name (or an assistant's id) on the server at ${spec.url}.`,
    );
  }
  if (
    spec.headers !== undefined &&
    (typeof spec.headers !== "object" ||
      Object.values(spec.headers).some((v) => typeof v !== "string"))
  ) {
    throw new AgentConfigError(`${what}: headers must map header names to strings.`);
  }
  return spec;
}

/**
 * Whether a `subagents` entry is an async subagent (it names a graph or a server) rather
 * than a synchronous one.
 *
 * @example
 * specs.filter(isAsyncSubagent);
 */
export function isAsyncSubagent(spec: unknown): spec is AsyncSubagentSpec {
  if (typeof spec !== "object" || spec === null) return false;
  const s = spec as Record<string, unknown>;
  return s.graph !== undefined || s.url !== undefined || s.assistantId !== undefined;
}
