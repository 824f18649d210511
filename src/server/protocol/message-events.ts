// The protocol's `messages` channel, made from a run's recorded events: a model's streamed
// reply and the messages nodes write, each framed as message-start, content blocks, finish.
import { isRecord, protocolEvent, type UnnumberedEvent } from "./protocol-event.js";

/** A content block as the protocol's `content-block-*` events carry it. */
type Block = Record<string, unknown> & { type: string };

/** A streamed reply being framed: its namespace, node and the block now open. */
interface OpenMessage {
  namespace: string[];
  node: string | undefined;
  /** Blocks started so far; the last one is open until the next starts or the reply ends. */
  blocks: Block[];
  /** The model's tool-call index the open block belongs to (a tool-call block only). */
  toolIndex: number | undefined;
}

const roleOf = (type: unknown): "ai" | "human" | "system" | undefined =>
  type === "ai" ? "ai" : type === "human" ? "human" : type === "system" ? "system" : undefined;

/** A tool-call block's arguments, parsed (`{}` when the model sent none). */
function parsedArgs(args: unknown): unknown {
  if (typeof args !== "string") return args ?? {};
  if (args.trim() === "") return {};
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

/** What a block looks like when it is complete (a tool-call chunk becomes a `tool_call`). */
function finished(block: Block): Block {
  if (block.type !== "tool_call_chunk") return block;
  const { type: _, args, ...rest } = block;
  return { ...rest, type: "tool_call", args: parsedArgs(args) };
}

/** Finishes the message's open block, its last, if it has one. */
function finishLastBlock(open: OpenMessage, emit: (data: Record<string, unknown>) => void) {
  const last = open.blocks.at(-1);
  if (last) {
    emit({ event: "content-block-finish", index: open.blocks.length - 1, content: finished(last) });
  }
}

/** The blocks a whole message (LangChain's wire shape) is made of: its text, then its tool calls. */
function blocksOf(message: Record<string, unknown>): Block[] {
  const { content } = message;
  const blocks: Block[] = [];
  if (typeof content === "string") {
    if (content.length > 0) blocks.push({ type: "text", text: content });
  } else if (Array.isArray(content)) {
    for (const part of content) {
      if (typeof part === "string") blocks.push({ type: "text", text: part });
      else if (isRecord(part) && typeof part.type === "string") blocks.push(part as Block);
    }
  }
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (!isRecord(call)) continue;
      blocks.push({
        type: "tool_call",
        id: call.id ?? null,
        name: call.name,
        args: call.args ?? {},
      });
    }
  }
  return blocks;
}

/** The empty block a block starts as, and the delta that fills it (if it has one). */
function startAndDelta(block: Block): [Block, Record<string, unknown> | undefined] {
  switch (block.type) {
    case "text":
      return [
        { type: "text", text: "" },
        typeof block.text === "string" && block.text.length > 0
          ? { type: "text-delta", text: block.text }
          : undefined,
      ];
    case "tool_call":
      return [{ type: "tool_call_chunk", id: block.id, name: block.name, args: "" }, undefined];
    default:
      return [block, undefined];
  }
}

/**
 * Frames one run's messages for the protocol's `messages` channel, as LangGraph's server
 * does: a model's reply as it streams (`message-start`, then for each content block
 * `content-block-start`, `-delta`s and `-finish`, then `message-finish` when the node's
 * update brings the whole message), and each message a node writes that did not stream,
 * whole, in the same events. Tool messages are left to the `tools` channel, and each
 * message is framed once a run.
 *
 * @example
 * const messages = new MessageEvents();
 * messages.chunk([], "model", { type: "AIMessageChunk", id: "m1", content: "Hi" });
 * messages.written([], "model", [{ type: "ai", id: "m1", content: "Hi" }]); // ...finish
 */
export class MessageEvents {
  readonly #open = new Map<string, OpenMessage>();
  readonly #framed = new Set<string>();
  /** What the messages of the states seen say (their type and content). */
  readonly #known = new Set<string>();

  /** A piece of a streamed reply (LangChain's `AIMessageChunk`, as `messages-tuple` records it). */
  chunk(namespace: string[], node: string | undefined, chunk: Record<string, unknown>) {
    const id = String(chunk.id ?? "");
    const out: UnnumberedEvent[] = [];
    const emit = (data: Record<string, unknown>) =>
      out.push(protocolEvent("messages", namespace, data, node));
    let open = this.#open.get(id);
    if (!open) {
      open = { namespace, node, blocks: [], toolIndex: undefined };
      this.#open.set(id, open);
      this.#framed.add(id);
      emit({ event: "message-start", role: "ai", id });
    }
    const text = typeof chunk.content === "string" ? chunk.content : "";
    if (text.length > 0) {
      if (open.blocks.at(-1)?.type !== "text")
        this.#startBlock(open, { type: "text", text: "" }, emit);
      const block = open.blocks.at(-1)!;
      block.text = `${block.text}${text}`;
      emit({
        event: "content-block-delta",
        index: open.blocks.length - 1,
        delta: { type: "text-delta", text },
      });
    }
    const pieces = Array.isArray(chunk.tool_call_chunks) ? chunk.tool_call_chunks : [];
    for (const piece of pieces) {
      if (!isRecord(piece)) continue;
      const index = typeof piece.index === "number" ? piece.index : 0;
      if (open.blocks.at(-1)?.type !== "tool_call_chunk" || open.toolIndex !== index) {
        const start = {
          type: "tool_call_chunk",
          id: piece.id ?? null,
          name: piece.name ?? null,
          args: "",
        };
        this.#startBlock(open, start, emit);
        open.toolIndex = index;
      }
      const block = open.blocks.at(-1)!;
      if (piece.id != null) block.id = piece.id;
      if (piece.name != null) block.name = piece.name;
      if (typeof piece.args === "string" && piece.args.length > 0) {
        block.args = `${block.args}${piece.args}`;
        emit({
          event: "content-block-delta",
          index: open.blocks.length - 1,
          delta: { type: "tool-call-delta", args: piece.args },
        });
      }
    }
    return out;
  }

  /**
   * The messages a node's update wrote (LangChain's wire shape): a streamed reply among them
   * finishes, the others are framed whole. Goes before the update itself, as in LangGraph.
   */
  written(namespace: string[], node: string, messages: unknown[]): UnnumberedEvent[] {
    const out: UnnumberedEvent[] = [];
    for (const message of messages) {
      if (!isRecord(message) || typeof message.id !== "string") continue;
      if (this.#open.has(message.id)) {
        out.push(...this.#finish(message.id, message));
        continue;
      }
      const role = roleOf(message.type);
      if (!role || this.#framed.has(message.id)) continue;
      // A message stored without an id is named by its place, which an update only guesses.
      if (PLACE_ID.test(message.id) && this.#known.has(signatureOf(message))) continue;
      this.#framed.add(message.id);
      const emit = (data: Record<string, unknown>) =>
        out.push(protocolEvent("messages", namespace, data, node));
      emit({ event: "message-start", role, id: message.id });
      for (const [index, block] of blocksOf(message).entries()) {
        const [start, delta] = startAndDelta(block);
        emit({ event: "content-block-start", index, content: start });
        if (delta) emit({ event: "content-block-delta", index, delta });
        emit({ event: "content-block-finish", index, content: block });
      }
      emit({ event: "message-finish", ...usageOf(message) });
    }
    return out;
  }

  /**
   * Messages already in a state (a `values` event): never framed, as LangGraph frames no
   * message a node was given, such as the run's input.
   */
  known(messages: unknown): void {
    if (!Array.isArray(messages)) return;
    for (const m of messages) {
      if (!isRecord(m) || typeof m.id !== "string") continue;
      this.#framed.add(m.id);
      this.#known.add(signatureOf(m));
    }
  }

  /** Finishes the replies `node` streamed at `namespace`: its task ended, writing `messages`. */
  finishNode(namespace: string[], node: string, messages: unknown[]): UnnumberedEvent[] {
    const key = namespace.join("|");
    const written = (id: string) => messages.find((m) => isRecord(m) && m.id === id);
    return [...this.#open]
      .filter(([, open]) => open.node === node && open.namespace.join("|") === key)
      .flatMap(([id]) => this.#finish(id, written(id) as Record<string, unknown> | undefined));
  }

  /** Finishes every reply still streaming (the run ended, or its node wrote no message). */
  finishAll(): UnnumberedEvent[] {
    return [...this.#open.keys()].flatMap((id) => this.#finish(id, undefined));
  }

  #startBlock(open: OpenMessage, block: Block, emit: (data: Record<string, unknown>) => void) {
    // Blocks never interleave: the open one finishes before the next starts.
    finishLastBlock(open, emit);
    open.blocks.push({ ...block });
    open.toolIndex = undefined;
    emit({ event: "content-block-start", index: open.blocks.length - 1, content: block });
  }

  #finish(id: string, message: Record<string, unknown> | undefined): UnnumberedEvent[] {
    const open = this.#open.get(id)!;
    this.#open.delete(id);
    const out: UnnumberedEvent[] = [];
    const emit = (data: Record<string, unknown>) =>
      out.push(protocolEvent("messages", open.namespace, data, open.node));
    finishLastBlock(open, emit);
    emit({ event: "message-finish", reason: "stop", ...(message && usageOf(message)) });
    return out;
  }
}

/** The id `toWireMessage` gives a message stored without one: `m-<its index>`. */
const PLACE_ID = /^m-\d+$/;

const signatureOf = (m: Record<string, unknown>) => JSON.stringify([m.type, m.content]);

/** A message's token usage, as `message-finish` carries it (when the model reported it). */
function usageOf(message: Record<string, unknown>): { usage?: Record<string, unknown> } {
  return isRecord(message.usage_metadata) ? { usage: message.usage_metadata } : {};
}
