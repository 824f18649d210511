import type { Message } from "./message.js";

/**
 * A marker written to `messages` that deletes the message with its `id` instead of
 * appending (the `addMessages` reducer applies it). Plain JSON, like every message, so it
 * can travel in a node's update, a tool's `Command` or `updateState`.
 *
 * @example
 * return { messages: [removeMessage("msg_1")] }; // drops the message whose id is "msg_1"
 */
export interface RemoveMessage {
  role: "remove";
  id: string;
}

/** `removeMessage(REMOVE_ALL_MESSAGES)` clears the conversation; messages after it in the same write stay. */
export const REMOVE_ALL_MESSAGES = "__remove_all__";

/**
 * Builds a `RemoveMessage` for the message with this id.
 *
 * @example
 * const summarize = (s: MessagesState) => ({
 *   messages: [...s.messages.slice(0, -2).map((m) => removeMessage(m.id!)), message.user(summary)],
 * });
 */
export function removeMessage(id: string): RemoveMessage {
  return { role: "remove", id };
}

/**
 * True for a `RemoveMessage` marker.
 *
 * @example
 * const removals = update.filter(isRemoveMessage).map((m) => m.id);
 */
export function isRemoveMessage(value: unknown): value is RemoveMessage {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { role?: unknown }).role === "remove" &&
    typeof (value as { id?: unknown }).id === "string"
  );
}

// A messages value may be written removals as well as messages (see `StateWriteForms`), so
// `return { messages: [removeMessage(id)] }` type-checks in a node of a messages state.
declare module "../control/state-write-forms.js" {
  interface StateWriteForms<V> {
    removeMessage: V extends readonly Message[] ? ReadonlyArray<Message | RemoveMessage> : never;
  }
}
