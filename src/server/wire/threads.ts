import type { InterruptRecord, ThreadRecord, ThreadStatus } from "../../checkpoint/index.js";
import type { StateSnapshot } from "../../index.js";
import { toWireValues } from "./messages.js";

/**
 * An interrupt as LangGraph's API shows it; `ns` is the namespace of the task that called
 * `interrupt()` (its graph's namespace, then `node:taskId`).
 */
export function toWireInterrupt(i: InterruptRecord): Record<string, unknown> {
  return {
    id: i.id,
    value: i.value,
    when: i.timing,
    resumable: true,
    ns: [...(i.ns ? i.ns.split("|") : []), `${i.node}:${i.taskId}`],
  };
}

/**
 * The interrupts LangGraph reports: those of `interrupt()` calls. A static breakpoint
 * (`interrupt_before`/`after`) pauses the thread too, but LangGraph lists no interrupt for
 * it (a client would show an empty review), so neither do we: `next` says where it stopped.
 */
export function wireInterrupts(interrupts: readonly InterruptRecord[]): Record<string, unknown>[] {
  return interrupts.filter((i) => i.timing === "during").map(toWireInterrupt);
}

/** Interrupts grouped by the task that waits on them (LangGraph's `Thread.interrupts`). */
export function interruptsByTask(interrupts: readonly InterruptRecord[]) {
  const out: Record<string, unknown[]> = {};
  for (const i of interrupts) {
    if (i.timing !== "during") continue;
    out[i.taskId] ??= [];
    out[i.taskId]!.push(toWireInterrupt(i));
  }
  return out;
}

/**
 * A LangGraph `Thread` from our thread record. `status` is given by the caller, who
 * knows whether a run of this server holds the thread now.
 */
export function toWireThread(
  record: ThreadRecord,
  extra: { graphId: string | undefined; status: ThreadStatus; values?: unknown },
): Record<string, unknown> {
  return {
    thread_id: record.threadId,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
    state_updated_at: record.updatedAt,
    metadata: { ...record.metadata, ...(extra.graphId && { graph_id: extra.graphId }) },
    status: extra.status,
    values: extra.values === undefined ? null : toWireValues(extra.values),
    interrupts: interruptsByTask(record.interrupts),
    error: record.error ? `${record.error.name}: ${record.error.message}` : null,
    config: {},
  };
}

const wireCheckpoint = (config: StateSnapshot["config"] | undefined) =>
  config?.configurable
    ? {
        thread_id: config.configurable.thread_id,
        checkpoint_ns: config.configurable.checkpoint_ns ?? "",
        checkpoint_id: config.configurable.checkpoint_id ?? null,
        checkpoint_map: null,
      }
    : null;

/** A subgraph's state inside a task, as LangGraph nests it: without its own `interrupts`. */
function nestedState(state: Record<string, unknown>): Record<string, unknown> {
  const { interrupts: _, ...nested } = state;
  return nested;
}

/**
 * A checkpoint's `metadata.writes` with the messages in LangChain's shape: each node's
 * update (or, for a node that ran as several tasks, each of its updates).
 */
function wireWrites(writes: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(writes).map(([node, update]) => [
      node,
      Array.isArray(update) ? update.map((u) => toWireValues(u)) : toWireValues(update),
    ]),
  );
}

/**
 * A LangGraph `ThreadState` from our state snapshot. `subgraphNodes` names the graph's
 * nodes that run a subgraph: their tasks carry the subgraph run's `checkpoint` (its
 * namespace, to read or update it), unless its `state` is included.
 */
export function toWireState(
  s: StateSnapshot,
  subgraphNodes: ReadonlySet<string> = new Set(),
): Record<string, unknown> {
  const threadId = s.config?.configurable?.thread_id;
  const ns = s.config?.configurable?.checkpoint_ns ?? "";
  return {
    values: toWireValues(s.values),
    next: s.next,
    checkpoint: wireCheckpoint(s.config),
    // LangGraph's checkpoint metadata names its thread.
    metadata: {
      ...(s.metadata ?? {}),
      ...(s.metadata?.writes && { writes: wireWrites(s.metadata.writes) }),
      ...(s.config?.configurable?.thread_id && { thread_id: s.config.configurable.thread_id }),
    },
    created_at: s.createdAt ?? null,
    parent_checkpoint: wireCheckpoint(s.parentConfig),
    tasks: s.tasks.map((t) => ({
      id: t.id,
      name: t.name,
      // Every task of ours is one of LangGraph's "pull" tasks: a node its edges triggered.
      path: ["__pregel_pull", t.name],
      error: t.error ? `${t.error.name}: ${t.error.message}` : null,
      interrupts: wireInterrupts(t.interrupts),
      checkpoint:
        subgraphNodes.has(t.name) && !t.state && threadId
          ? { thread_id: threadId, checkpoint_ns: `${ns ? `${ns}|` : ""}${t.name}:${t.id}` }
          : null,
      state: t.state ? nestedState(toWireState(t.state, subgraphNodes)) : null,
      result: t.result ? toWireValues(t.result) : null,
    })),
    interrupts: wireInterrupts(s.interrupts),
  };
}
