import type { InterruptRecord } from "../checkpoint/checkpointer.js";
import type { MessageChunk, RunEvent, ToolEvent } from "./run-events.js";

/**
 * What `stream(input, { streamMode })` can show, as in LangGraph:
 * - `values`: the whole state after each step (and at a pause, with the writes of the
 *   step's finished tasks; a resume starts with the checkpoint's);
 * - `updates`: each node's update as `{ [node]: update }` (and `{ __interrupt__ }` on a pause);
 * - `messages`: a model's reply as it streams: text and tool-call pieces, with the message id;
 * - `custom`: what nodes send through `runtime.writer`;
 * - `tasks`: each task's start (its input, its attempt) and end (its writes, pause or error);
 * - `checkpoints`: each checkpoint as it is written (with a checkpointer);
 * - `debug`: tasks and checkpoints, with their kind, step and time;
 * - `tools`: an agent's tool calls starting, ending and failing.
 *
 * @example
 * for await (const part of graph.stream(input, { streamMode: ["updates", "messages"] })) {
 *   if (part.mode === "messages" && part.data.type === "text") ui.append(part.data.messageId, part.data.text);
 * }
 */
export type StreamMode =
  | "values"
  | "updates"
  | "messages"
  | "custom"
  | "tasks"
  | "checkpoints"
  | "debug"
  | "tools";

/**
 * Every stream mode, in the order above.
 *
 * @example
 * for await (const part of graph.stream(input, { streamMode: STREAM_MODES })) log(part.mode, part.data);
 */
export const STREAM_MODES: readonly StreamMode[] = [
  "values",
  "updates",
  "messages",
  "custom",
  "tasks",
  "checkpoints",
  "debug",
  "tools",
];

/** Where a task started: its node, step and id. */
interface TaskWhere {
  id: string;
  name: string;
  step: number;
  attempt: number;
}

/**
 * A task's start (`input` set) or end (`result`, `interrupts` or `error` set), as the
 * `tasks` mode shows it. `retryInMs` is set on an end its retry policy retries.
 *
 * @example
 * if (part.mode === "tasks" && "error" in part.data) log(part.data.name, part.data.attempt, part.data.error);
 */
export type TaskPayload =
  | (TaskWhere & { input: unknown })
  | (TaskWhere & {
      result?: Record<string, unknown>;
      interrupts?: InterruptRecord[];
      error?: { name: string; message: string };
      retryInMs?: number;
    });

/** The config that names a checkpoint (what `getState` and a fork take). */
export interface CheckpointConfig {
  configurable: { thread_id: string; checkpoint_ns: string; checkpoint_id: string };
}

/**
 * A checkpoint as the `checkpoints` mode shows it: its config (to read it back or fork
 * from it), its values, what runs next, and its parent.
 *
 * @example
 * if (part.mode === "checkpoints") saved.push(part.data.config.configurable.checkpoint_id);
 */
export interface CheckpointPayload {
  config: CheckpointConfig;
  parentConfig: CheckpointConfig | undefined;
  step: number;
  values: Record<string, unknown>;
  next: string[];
  interrupts: InterruptRecord[];
}

/**
 * One event of a stream with modes: tagged with its `mode` and the namespace `ns` of the
 * graph run it comes from (`""` for the top level; subgraph runs only with `subgraphs: true`).
 *
 * @example
 * const part: StreamPart = { mode: "updates", ns: "", data: { model: { messages: [] } } };
 */
export type StreamPart =
  | { mode: "values"; ns: string; data: Record<string, unknown> }
  | { mode: "updates"; ns: string; data: Record<string, unknown> }
  | { mode: "messages"; ns: string; data: MessageChunk; metadata: { node: string; step: number } }
  | { mode: "custom"; ns: string; data: unknown; metadata: { node: string; step: number } }
  | { mode: "tasks"; ns: string; data: TaskPayload }
  | { mode: "checkpoints"; ns: string; data: CheckpointPayload }
  | {
      mode: "debug";
      ns: string;
      data: {
        type: "task" | "task_result" | "checkpoint";
        step: number;
        timestamp: string;
        payload: TaskPayload | CheckpointPayload;
      };
    }
  | { mode: "tools"; ns: string; data: ToolEvent & { node: string } };

/**
 * The parts a run event makes for the wanted modes (none, or one, or two with `debug`).
 * Pure: the stream calls it for every event of the run.
 */
export function partsOf(
  event: RunEvent,
  modes: ReadonlySet<StreamMode>,
  subgraphs: boolean,
): StreamPart[] {
  const { ns } = event;
  if (!subgraphs && ns !== "") return [];
  const parts: StreamPart[] = [];
  switch (event.type) {
    case "values":
      if (modes.has("values")) parts.push({ mode: "values", ns, data: event.values });
      break;
    case "updates":
      if (modes.has("updates"))
        parts.push({ mode: "updates", ns, data: { [event.node]: event.update } });
      break;
    case "interrupt":
      if (modes.has("updates"))
        parts.push({ mode: "updates", ns, data: { __interrupt__: event.interrupts } });
      break;
    case "custom":
      if (modes.has("custom")) {
        const metadata = { node: event.node, step: event.step };
        parts.push({ mode: "custom", ns, data: event.data, metadata });
      }
      break;
    case "message-chunk":
      if (modes.has("messages")) {
        const metadata = { node: event.node, step: event.step };
        parts.push({ mode: "messages", ns, data: event.chunk, metadata });
      }
      break;
    case "tool":
      if (modes.has("tools"))
        parts.push({ mode: "tools", ns, data: { ...event.event, node: event.node } });
      break;
    case "task-start":
    case "task-end": {
      if (!modes.has("tasks") && !modes.has("debug")) break;
      const payload = taskPayload(event);
      if (modes.has("tasks")) parts.push({ mode: "tasks", ns, data: payload });
      if (modes.has("debug")) {
        const type = event.type === "task-start" ? "task" : "task_result";
        parts.push({
          mode: "debug",
          ns,
          data: { type, step: event.step, timestamp: now(), payload },
        });
      }
      break;
    }
    case "checkpoint": {
      if (!modes.has("checkpoints") && !modes.has("debug")) break;
      const payload = checkpointPayload(event);
      if (modes.has("checkpoints")) parts.push({ mode: "checkpoints", ns, data: payload });
      if (modes.has("debug")) {
        const data = { type: "checkpoint" as const, step: event.step, timestamp: now(), payload };
        parts.push({ mode: "debug", ns, data });
      }
      break;
    }
  }
  return parts;
}

const now = () => new Date().toISOString();

function taskPayload(event: Extract<RunEvent, { type: "task-start" | "task-end" }>): TaskPayload {
  const where = { id: event.taskId, name: event.node, step: event.step, attempt: event.attempt };
  if (event.type === "task-start") return { ...where, input: event.input };
  const payload: TaskPayload = { ...where };
  if (event.writes) payload.result = Object.fromEntries(event.writes);
  if (event.interrupts) payload.interrupts = event.interrupts;
  if (event.error) payload.error = event.error;
  if (event.retryInMs !== undefined) payload.retryInMs = event.retryInMs;
  return payload;
}

function checkpointPayload(event: Extract<RunEvent, { type: "checkpoint" }>): CheckpointPayload {
  const configOf = (id: string): CheckpointConfig => ({
    configurable: { thread_id: event.threadId, checkpoint_ns: event.ns, checkpoint_id: id },
  });
  return {
    config: configOf(event.id),
    parentConfig: event.parentId ? configOf(event.parentId) : undefined,
    step: event.step,
    values: event.values,
    next: event.next,
    interrupts: event.interrupts,
  };
}
