// LangGraph's `events` stream mode: LangChain's callback events, made from a run's stream parts.
import type { MessageChunk, StreamPart, TaskPayload, ToolEvent } from "../../index.js";
import type { Message } from "../../models/index.js";
import { toWireMessage, toWireValues } from "./messages.js";

/** Where a model reply streamed: its node, the task it ran in, and the text so far. */
interface StreamedReply {
  node: string;
  taskId: string | undefined;
  text: string;
}

const isMessageList = (v: unknown): v is Message[] =>
  Array.isArray(v) && v.every((m) => typeof m === "object" && m !== null && "role" in m);

/**
 * The `events` stream mode, as LangGraph's server sends it: LangChain's callback events
 * (`{ event, name, run_id, tags, metadata, data, parent_ids }`) for the run
 * (`on_chain_start`, then `on_chain_end` with the final values), for each task
 * (`on_chain_start` with its input, `on_chain_end` with its update) and for each model
 * reply streamed in a task (`on_chat_model_start`, `on_chat_model_stream` per chunk,
 * `on_chat_model_end` with the whole message) and each call an agent's tools node makes
 * (`on_tool_start` with its args, `on_tool_end` with its answer). Made from the run's
 * stream parts, so a model
 * that does not stream shows no chat-model events, and a model event's `run_id` is the
 * reply's message id.
 *
 * @example
 * const events = new CallbackEvents((event, data) => sse.write(event, data), { runId, threadId, graphId });
 * for await (const part of graph.stream(input, { streamMode: ["values", "tasks", "messages"] })) events.write(part);
 * events.finish();
 */
export class CallbackEvents {
  readonly #emit: (event: string, data: unknown) => void;
  readonly #ids: { runId: string; threadId: string; graphId: string };
  #started = false;
  #lastValues: unknown = null;
  // The task running each node now, for the parent of the model replies it streams.
  readonly #taskOf = new Map<string, string>();
  readonly #replies = new Map<string, StreamedReply>();

  constructor(
    emit: (event: string, data: unknown) => void,
    ids: { runId: string; threadId: string; graphId: string },
  ) {
    this.#emit = emit;
    this.#ids = ids;
  }

  write(part: StreamPart): void {
    if (part.ns !== "") return;
    if (!this.#started) {
      this.#started = true;
      const input = part.mode === "values" ? toWireValues(part.data) : {};
      this.#event("on_chain_start", this.#ids.graphId, this.#ids.runId, { input }, [], {});
    }
    if (part.mode === "values") this.#lastValues = part.data;
    else if (part.mode === "tasks") this.#task(part.data);
    else if (part.mode === "messages") this.#chunk(part.data, part.metadata);
    else if (part.mode === "tools") this.#tool(part.data);
  }

  /** The run ended (done or paused): its `on_chain_end`, with the last values. */
  finish(): void {
    if (!this.#started) return;
    const output = this.#lastValues === null ? null : toWireValues(this.#lastValues);
    this.#event("on_chain_end", this.#ids.graphId, this.#ids.runId, { output }, [], {});
  }

  #task(p: TaskPayload): void {
    const meta = { langgraph_node: p.name, langgraph_step: p.step };
    const parents = [this.#ids.runId];
    if ("input" in p) {
      this.#taskOf.set(p.name, p.id);
      this.#event("on_chain_start", p.name, p.id, { input: toWireValues(p.input) }, parents, meta);
      return;
    }
    if (p.error || p.retryInMs !== undefined) return;
    const written = p.result?.messages;
    for (const [id, reply] of this.#replies) {
      if (reply.taskId !== p.id) continue;
      this.#replies.delete(id);
      const whole = isMessageList(written)
        ? written.map((m, i) => toWireMessage(m, i)).find((m) => m.id === id)
        : undefined;
      const output = whole ?? { type: "ai", content: reply.text, id };
      this.#event("on_chat_model_end", "chat_model", id, { output }, [...parents, p.id], meta);
    }
    const output = p.result ? toWireValues(p.result) : {};
    this.#event("on_chain_end", p.name, p.id, { output }, parents, meta);
  }

  #tool(e: ToolEvent & { node: string }): void {
    if (e.event === "error") return;
    const taskId = this.#taskOf.get(e.node);
    const parents = taskId ? [this.#ids.runId, taskId] : [this.#ids.runId];
    const meta = { langgraph_node: e.node };
    const { id, name, args } = e.toolCall;
    if (e.event === "start") this.#event("on_tool_start", name, id, { input: args }, parents, meta);
    else this.#event("on_tool_end", name, id, { input: args, output: e.content }, parents, meta);
  }

  #chunk(chunk: MessageChunk, where: { node: string; step: number }): void {
    const id = chunk.messageId;
    const taskId = this.#taskOf.get(where.node);
    const parents = taskId ? [this.#ids.runId, taskId] : [this.#ids.runId];
    const meta = { langgraph_node: where.node, langgraph_step: where.step };
    let reply = this.#replies.get(id);
    if (!reply) {
      reply = { node: where.node, taskId, text: "" };
      this.#replies.set(id, reply);
      this.#event("on_chat_model_start", "chat_model", id, { input: {} }, parents, meta);
    }
    const text = chunk.type === "text" ? chunk.text : "";
    reply.text += text;
    const toolCallChunks =
      chunk.type === "tool-call"
        ? [{ index: chunk.index, id: chunk.id ?? null, name: chunk.name ?? null, args: chunk.args }]
        : [];
    const wire = { type: "AIMessageChunk", content: text, id, tool_call_chunks: toolCallChunks };
    this.#event("on_chat_model_stream", "chat_model", id, { chunk: wire }, parents, meta);
  }

  #event(
    event: string,
    name: string,
    runId: string,
    data: Record<string, unknown>,
    parentIds: string[],
    metadata: Record<string, unknown>,
  ): void {
    this.#emit("events", {
      event,
      name,
      run_id: runId,
      tags: [],
      metadata: { ...metadata, thread_id: this.#ids.threadId, run_id: this.#ids.runId },
      data,
      parent_ids: parentIds,
    });
  }
}
