import type {
  CheckpointPayload,
  StreamMode as GraphStreamMode,
  MessageChunk,
  StreamPart,
  TaskPayload,
  ToolEvent,
} from "../../index.js";
import type { Message } from "../../models/index.js";
import { CallbackEvents } from "./callback-events.js";
import { toWireMessage, toWireValues } from "./messages.js";
import { wireInterrupts } from "./threads.js";

/** Stream modes a client may ask this server for (LangGraph's names). */
export const WIRE_STREAM_MODES = [
  "values",
  "updates",
  "messages-tuple",
  "messages",
  "custom",
  "debug",
  "tasks",
  "checkpoints",
  "tools",
  "events",
] as const;
export type WireStreamMode = (typeof WIRE_STREAM_MODES)[number];

/**
 * The graph stream modes that make the wire modes `wanted`: `updates` always (a pause and
 * a node's messages arrive there), `values` always (where new messages land).
 */
export function graphModesFor(wanted: ReadonlySet<string>): GraphStreamMode[] {
  const modes: GraphStreamMode[] = ["values", "updates"];
  if (wanted.has("messages") || wanted.has("messages-tuple")) modes.push("messages");
  for (const m of ["custom", "debug", "tasks", "checkpoints", "tools"] as const)
    if (wanted.has(m)) modes.push(m);
  // LangChain's callback events are made from the tasks, the model's tokens and tool calls.
  if (wanted.has("events")) {
    for (const m of ["tasks", "messages", "tools"] as const) if (!modes.includes(m)) modes.push(m);
  }
  return modes;
}

/**
 * A tool call's start, end or failure as LangGraph's `tools` mode sends it (its callback
 * names, `toolCallId`, the tool's `name`); the end carries the tool message the model gets.
 */
function wireToolEvent(e: ToolEvent): Record<string, unknown> {
  const { id, name, args } = e.toolCall;
  const call = { toolCallId: id, name };
  switch (e.event) {
    case "start":
      return { event: "on_tool_start", ...call, input: args };
    case "end":
      return {
        event: "on_tool_end",
        ...call,
        output: { type: "tool", content: e.content, tool_call_id: id, name },
      };
    case "error":
      return { event: "on_tool_error", ...call, error: { message: e.error } };
  }
}

/** A piece of a model's reply as `messages-tuple` sends it: LangChain's `AIMessageChunk`. */
function tupleChunk(chunk: MessageChunk) {
  const toolCallChunks =
    chunk.type === "tool-call"
      ? [{ index: chunk.index, id: chunk.id ?? null, name: chunk.name ?? null, args: chunk.args }]
      : [];
  return {
    type: "AIMessageChunk",
    content: chunk.type === "text" ? chunk.text : "",
    id: chunk.messageId,
    tool_calls: [],
    tool_call_chunks: toolCallChunks,
    additional_kwargs: {},
    response_metadata: {},
  };
}

const isMessageList = (v: unknown): v is Message[] =>
  Array.isArray(v) && v.every((m) => typeof m === "object" && m !== null && "role" in m);

/**
 * Turns a run's stream parts into LangGraph's SSE events for the modes a client asked:
 * `values`, `updates` (and `{ __interrupt__ }` on a pause), `messages` as
 * `messages/metadata` and `messages/partial` for a model's tokens and `messages/complete`
 * after each values chunk with new messages, `messages-tuple` as
 * `messages` `[chunk, metadata]` (a model's tokens, and whole messages a node writes),
 * `custom`, `tasks`, `checkpoints`, `debug`, `tools` (a tool call's start, end or error), and `events` (see `CallbackEvents`).
 * `finish()` once the run ended closes what is open.
 */
export class StreamFrames {
  readonly #modes: ReadonlySet<string>;
  readonly #emit: (event: string, data: unknown) => void;
  readonly #ids: { runId: string; threadId: string };
  // How many messages the thread has: where an update's new messages land.
  #messageCount = 0;
  // Streamed replies so far, by message id: their text, and the metadata sent for them.
  readonly #streamed = new Map<string, { text: string; toolCalls: unknown[] }>();
  // Ids of the messages sent as `messages/complete`: each is sent once per run.
  readonly #completed = new Set<string>();
  readonly #events: CallbackEvents | undefined;
  // How many messages each subgraph run has: where its updates' new messages land.
  readonly #nestedCount = new Map<string, number>();

  constructor(
    modes: ReadonlySet<string>,
    emit: (event: string, data: unknown) => void,
    ids: { runId: string; threadId: string; graphId?: string },
  ) {
    this.#modes = modes;
    this.#emit = emit;
    this.#ids = ids;
    if (modes.has("events")) {
      this.#events = new CallbackEvents(emit, { ...ids, graphId: ids.graphId ?? "LangGraph" });
    }
  }

  /** The run ended (done or paused): what the modes close with (the run's `on_chain_end`). */
  finish(): void {
    this.#events?.finish();
  }

  write(part: StreamPart): void {
    if (part.ns !== "") {
      this.#nested(part);
      return;
    }
    this.#events?.write(part);
    switch (part.mode) {
      case "values": {
        const messages = part.data.messages;
        if (Array.isArray(messages)) this.#messageCount = messages.length;
        if (this.#modes.has("values")) this.#emit("values", toWireValues(part.data));
        if (this.#modes.has("messages") && isMessageList(messages)) this.#complete(messages);
        return;
      }
      case "updates":
        this.#update(part.data);
        return;
      case "messages":
        this.#chunk(part.data, part.metadata);
        return;
      case "custom":
        if (this.#modes.has("custom")) this.#emit("custom", part.data);
        return;
      case "tasks":
        if (this.#modes.has("tasks")) this.#emit("tasks", this.#task(part.data));
        return;
      case "checkpoints":
        if (this.#modes.has("checkpoints")) this.#emit("checkpoints", this.#checkpoint(part.data));
        return;
      case "debug": {
        const { type, step, timestamp, payload } = part.data;
        const wire =
          type === "checkpoint"
            ? this.#checkpoint(payload as CheckpointPayload)
            : this.#task(payload as TaskPayload);
        this.#emit("debug", { type, step, timestamp, payload: wire });
        return;
      }
      case "tools":
        if (this.#modes.has("tools")) this.#emit("tools", wireToolEvent(part.data));
        return;
    }
  }

  /**
   * A subgraph's part (the run asked for `stream_subgraphs`), as LangGraph sends it: the
   * mode's event under `<mode>|<namespace>`, its data as at the top (`messages-tuple` as
   * `messages|<namespace>`).
   */
  #nested(part: StreamPart): void {
    const as = (mode: string) => `${mode}|${part.ns}`;
    switch (part.mode) {
      case "values": {
        const messages = part.data.messages;
        if (Array.isArray(messages)) this.#nestedCount.set(part.ns, messages.length);
        if (this.#modes.has("values")) this.#emit(as("values"), toWireValues(part.data));
        return;
      }
      case "updates":
        if (!this.#modes.has("updates")) return;
        for (const [node, update] of Object.entries(part.data)) {
          const data =
            node === "__interrupt__"
              ? { __interrupt__: wireInterrupts(update as never) }
              : { [node]: toWireValues(update, this.#nestedCount.get(part.ns) ?? 0) };
          this.#emit(as("updates"), data);
        }
        return;
      case "custom":
        if (this.#modes.has("custom")) this.#emit(as("custom"), part.data);
        return;
      case "messages":
        if (!this.#modes.has("messages-tuple")) return;
        this.#emit(as("messages"), [
          tupleChunk(part.data),
          this.#metadata(part.metadata.node, part.metadata.step),
        ]);
        return;
      case "tasks":
        if (this.#modes.has("tasks")) this.#emit(as("tasks"), this.#task(part.data));
        return;
      case "checkpoints":
        if (this.#modes.has("checkpoints"))
          this.#emit(as("checkpoints"), this.#checkpoint(part.data));
        return;
      case "tools":
        if (this.#modes.has("tools")) this.#emit(as("tools"), wireToolEvent(part.data));
        return;
      default:
        return;
    }
  }

  #update(data: Record<string, unknown>): void {
    if ("__interrupt__" in data) {
      // As LangGraph: the pause is its own chunk in each mode, listing the interrupt()
      // calls that wait (none for a static breakpoint).
      const pending = wireInterrupts(data.__interrupt__ as never);
      if (this.#modes.has("updates")) this.#emit("updates", { __interrupt__: pending });
      if (this.#modes.has("values")) this.#emit("values", { __interrupt__: pending });
      return;
    }
    for (const [node, update] of Object.entries(data)) {
      if (this.#modes.has("updates"))
        this.#emit("updates", { [node]: toWireValues(update, this.#messageCount) });
      const written = (update as { messages?: unknown } | null)?.messages;
      if (isMessageList(written)) this.#written(node, written);
    }
  }

  /** Messages a node wrote, for `messages-tuple`: whole, unless they streamed as tokens. */
  #written(node: string, messages: Message[]): void {
    if (!this.#modes.has("messages-tuple")) return;
    for (const [i, m] of messages.entries()) {
      const wire = toWireMessage(m, this.#messageCount + i);
      if (!this.#streamed.has(wire.id))
        this.#emit("messages", [wire, this.#metadata(node, undefined)]);
    }
  }

  /**
   * `messages/complete` for the messages of a values chunk not yet sent, after that chunk,
   * as LangGraph derives them from its values stream: a run's input and every message a
   * node wrote, once each.
   */
  #complete(messages: Message[]): void {
    const fresh = [];
    for (const [i, m] of messages.entries()) {
      const wire = toWireMessage(m, i);
      if (this.#completed.has(wire.id)) continue;
      this.#completed.add(wire.id);
      fresh.push(wire);
    }
    if (fresh.length > 0) this.#emit("messages/complete", fresh);
  }

  #chunk(chunk: MessageChunk, where: { node: string; step: number }): void {
    const id = chunk.messageId;
    const seen = this.#streamed.get(id);
    const so = seen ?? { text: "", toolCalls: [] };
    const wire = tupleChunk(chunk);
    so.text += wire.content;
    so.toolCalls.push(...wire.tool_call_chunks);
    this.#streamed.set(id, so);
    const meta = this.#metadata(where.node, where.step);
    if (this.#modes.has("messages-tuple")) this.#emit("messages", [wire, meta]);
    if (this.#modes.has("messages")) {
      if (!seen) this.#emit("messages/metadata", { [id]: { metadata: meta } });
      this.#emit("messages/partial", [
        {
          type: "ai",
          content: so.text,
          id,
          tool_calls: [],
          tool_call_chunks: so.toolCalls,
          additional_kwargs: {},
          response_metadata: {},
        },
      ]);
    }
  }

  #metadata(node: string, step: number | undefined): Record<string, unknown> {
    return {
      langgraph_node: node,
      ...(step !== undefined && { langgraph_step: step }),
      run_id: this.#ids.runId,
      thread_id: this.#ids.threadId,
    };
  }

  #task(p: TaskPayload): Record<string, unknown> {
    const base = { id: p.id, name: p.name, attempt: p.attempt };
    if ("input" in p) return { ...base, input: toWireValues(p.input), triggers: [] };
    return {
      ...base,
      result: p.result ? Object.entries(toWireValues(p.result) as object) : [],
      error: p.error ? p.error.message : null,
      interrupts: wireInterrupts(p.interrupts ?? []),
    };
  }

  #checkpoint(p: CheckpointPayload): Record<string, unknown> {
    const wire = (c: CheckpointPayload["config"] | undefined) =>
      c ? { ...c.configurable, checkpoint_map: null } : null;
    return {
      config: p.config,
      parent_config: p.parentConfig ?? null,
      values: toWireValues(p.values),
      metadata: { step: p.step },
      next: p.next,
      tasks: [],
      checkpoint: wire(p.config),
      parent_checkpoint: wire(p.parentConfig),
    };
  }
}
