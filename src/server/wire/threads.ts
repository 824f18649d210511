import type { InterruptRecord, ThreadRecord, ThreadStatus } from "../../checkpoint/index.js";
import type { StateSnapshot } from "../../index.js";
import { toWireValues } from "./messages.js";

/** An interrupt as LangGraph's API shows it. */
export function toWireInterrupt(i: InterruptRecord): Record<string, unknown> {
  return {
    id: i.id,
    value: i.value,
    when: i.timing,
    ...(i.ns && { ns: i.ns.split("|") }),
  };
}

/** Interrupts grouped by the task that waits on them (LangGraph's `Thread.interrupts`). */
export function interruptsByTask(interrupts: readonly InterruptRecord[]) {
  const out: Record<string, unknown[]> = {};
  for (const i of interrupts) {
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

/** A LangGraph `ThreadState` from our state snapshot. */
export function toWireState(s: StateSnapshot): Record<string, unknown> {
  return {
    values: toWireValues(s.values),
    next: s.next,
    checkpoint: wireCheckpoint(s.config),
    // LangGraph's checkpoint metadata names its thread.
    metadata: {
      ...(s.metadata ?? {}),
      ...(s.config?.configurable?.thread_id && { thread_id: s.config.configurable.thread_id }),
    },
    created_at: s.createdAt ?? null,
    parent_checkpoint: wireCheckpoint(s.parentConfig),
    tasks: s.tasks.map((t) => ({
      id: t.id,
      name: t.name,
      error: t.error ? `${t.error.name}: ${t.error.message}` : null,
      interrupts: t.interrupts.map(toWireInterrupt),
      checkpoint: null,
      state: t.state ? toWireState(t.state) : null,
      ...(t.result && { result: t.result }),
    })),
    interrupts: s.interrupts.map(toWireInterrupt),
  };
}
