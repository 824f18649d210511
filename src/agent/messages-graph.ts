import type { z } from "zod";
import type { State } from "../graph/definition/types.js";
import { Graph } from "../graph/graph.js";
import type { Message } from "../models/index.js";
import { addMessages } from "./state.js";

/**
 * A state with a conversation: what `messagesGraph` builds on (LangGraph's `MessagesAnnotation`).
 *
 * @example
 * const callModel = async (s: MessagesState) => ({ messages: [await model.invoke(s.messages)] });
 */
export interface MessagesState {
  messages: Message[];
}

/**
 * A `Graph` whose `messages` key already has the `addMessages` reducer and starts as `[]`:
 * nodes return new messages and they are appended (a message with a known id replaces it, `removeMessage`
 * deletes one). Add your own keys through the type parameter and, optionally, a zod schema.
 *
 * @example
 * const graph = messagesGraph<{ summary?: string }>({ name: "chat" })
 *   .addNode("model", async (s) => ({ messages: [await model.invoke(s.messages)] }))
 *   .addEdge(START, "model")
 *   .compile();
 * await graph.invoke({ messages: [message.user("Hi")] });
 */
export function messagesGraph<S extends State = State, C = unknown>(
  options: { name?: string; state?: z.ZodObject; context?: z.ZodObject } = {},
): Graph<S & MessagesState, C> {
  // The list starts empty, as LangGraph's MessagesAnnotation: a new thread shows `messages: []`.
  return new Graph<S & MessagesState, C>(options).addReducer("messages", addMessages as never, {
    default: () => [] as never,
  });
}
