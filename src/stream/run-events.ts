import type { InterruptRecord } from "../checkpoint/checkpointer.js";
import type { StreamEvent } from "./events.js";

/**
 * Everything a run reports while someone streams it: the `StreamEvent`s `stream()` yields
 * by default, and the detail the stream modes are made from (task starts and ends with
 * their attempts, checkpoints, message chunks with ids, tool calls). Made only when a
 * listener exists; `invoke` makes none.
 *
 * @example
 * const kinds = events.filter((e) => e.type === "task-end" && e.error).map((e) => e.node);
 */
export type RunEvent =
  | StreamEvent
  /** A task started (again, for `attempt` > 1, after a retry). */
  | {
      type: "task-start";
      ns: string;
      step: number;
      node: string;
      taskId: string;
      input: unknown;
      attempt: number;
    }
  /** A task ended: its writes, its pause, or its error (and whether it will be retried). */
  | {
      type: "task-end";
      ns: string;
      step: number;
      node: string;
      taskId: string;
      attempt: number;
      writes?: ReadonlyArray<[string, unknown]>;
      interrupts?: InterruptRecord[];
      error?: { name: string; message: string };
      /** Set when the error is retried: the wait before the next attempt. */
      retryInMs?: number;
    }
  /** A checkpoint was queued for the store. */
  | {
      type: "checkpoint";
      ns: string;
      step: number;
      threadId: string;
      id: string;
      parentId: string | null;
      values: Record<string, unknown>;
      next: string[];
      interrupts: InterruptRecord[];
    }
  /** A piece of a model's reply while it streams: text, or part of a tool call. */
  | { type: "message-chunk"; ns: string; step: number; node: string; chunk: MessageChunk }
  /** An agent's tool call started, ended with its tool message, or failed. */
  | { type: "tool"; ns: string; step: number; node: string; event: ToolEvent };

/**
 * A piece of a streamed model reply. `messageId` is the id the finished message gets in
 * the state, so chunks can be joined to it; tool-call pieces carry the call's `index` and
 * the argument text as it arrives.
 *
 * @example
 * if (chunk.type === "text") ui.append(chunk.messageId, chunk.text);
 */
export type MessageChunk =
  | { type: "text"; messageId: string; text: string }
  | {
      type: "tool-call";
      messageId: string;
      index: number;
      id?: string;
      name?: string;
      args: string;
    };

/**
 * A tool call's life in an agent's tools node: `start`, then `end` with the tool's answer,
 * or `error` (the error tool message the model gets, or what stopped the run).
 *
 * @example
 * if (e.event === "error") alert(`${e.toolCall.name} failed: ${e.error}`);
 */
export type ToolEvent =
  | { event: "start"; toolCall: { id: string; name: string; args: Record<string, unknown> } }
  | {
      event: "end";
      toolCall: { id: string; name: string; args: Record<string, unknown> };
      content: string;
    }
  | {
      event: "error";
      toolCall: { id: string; name: string; args: Record<string, unknown> };
      error: string;
    };

/**
 * What `stream()` without a `streamMode` yields for a run event (what it yielded before
 * modes existed): the default envelopes as they are, a text chunk as a `messages` delta,
 * nothing for the rest.
 */
export function defaultEventOf(event: RunEvent): StreamEvent | undefined {
  switch (event.type) {
    case "updates":
    case "values":
    case "messages":
    case "custom":
    case "interrupt":
    case "done":
      return event;
    case "message-chunk": {
      const { chunk } = event;
      if (chunk.type !== "text") return undefined;
      return {
        type: "messages",
        ns: event.ns,
        step: event.step,
        node: event.node,
        delta: chunk.text,
      };
    }
    default:
      return undefined;
  }
}
