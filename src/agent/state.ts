import { InvalidUpdateError } from "../errors/index.js";
import {
  type AssistantMessage,
  isRemoveMessage,
  type Message,
  REMOVE_ALL_MESSAGES,
  type RemoveMessage,
  type ToolCall,
  type ToolMessage,
} from "../models/index.js";

/**
 * The state of an agent's thread. `messages` is the conversation (the system prompt is not
 * in it: it is added on every model call). `toolAnswers` is the hand-off from review to the
 * tools node: answers for tool calls that must not run because a reviewer rejected them or
 * responded in the tool's place, keyed by tool call id. The tools node sends those answers
 * instead of running the tools, then clears the map.
 *
 * Other keys are allowed: middleware may keep its own data in the state.
 *
 * @example
 * const r = await agent.invoke({ messages: [message.user("Delete temp.txt")] }, { config });
 * r.state.messages.at(-1); // the model's last reply
 */
export interface AgentState {
  messages: Message[];
  toolAnswers?: Record<string, ToolMessage>;
  /** The answer in the agent's `responseFormat`, once the run is done (when it has one). */
  structuredResponse?: unknown;
  [key: string]: unknown;
}

/**
 * What an agent is invoked with: messages to append, plus any keys middleware reads.
 *
 * @example
 * await agent.invoke({ messages: [message.user("Hi")] }, { config });
 */
export type AgentInput = Partial<AgentState>;

const idOf = (m: Message): string | undefined => {
  const id = (m as { id?: unknown }).id;
  return typeof id === "string" ? id : undefined;
};

/**
 * The reducer of `messages`: appends, except that a message whose `id` equals a message
 * already in the list replaces it in place (review uses that to swap in the model's reply
 * with edited tool calls, keeping its position), and a `removeMessage(id)` deletes the
 * message with that id (`REMOVE_ALL_MESSAGES`: every message before it).
 *
 * @example
 * addMessages([a1], [message.user("next")]); // [a1, user]
 * addMessages([a1], [{ ...a1, content: "fixed" }]); // [a1 with new content]
 * addMessages([a1, u1], [removeMessage(a1.id!)]); // [u1]
 */
export function addMessages(
  existing: readonly Message[] | undefined,
  update: Message | RemoveMessage | ReadonlyArray<Message | RemoveMessage> | undefined,
): Message[] {
  let next = [...(existing ?? [])];
  if (update === undefined) return next;
  const incoming = Array.isArray(update) ? update : [update as Message];
  for (const m of incoming) {
    if (isRemoveMessage(m)) {
      if (m.id === REMOVE_ALL_MESSAGES) {
        next = [];
        continue;
      }
      const at = next.findIndex((other) => idOf(other) === m.id);
      if (at < 0) {
        throw new InvalidUpdateError(
          `removeMessage("${m.id}"): the conversation has no message with that id. Remove only messages that have an id (the model's replies always do; give others one with message.user(text, { id })).`,
        );
      }
      next.splice(at, 1);
      continue;
    }
    const id = idOf(m);
    const at = id === undefined ? -1 : next.findIndex((other) => idOf(other) === id);
    if (at >= 0) next[at] = m;
    else next.push(m);
  }
  return next;
}

/**
 * The model's latest reply and its tool calls that have no tool message yet, in the
 * model's order: what the tools node has to answer.
 *
 * @example
 * const { calls } = unansweredToolCalls(state.messages);
 * if (calls.length > 0) // route to the tools node
 */
export function unansweredToolCalls(messages: readonly Message[]): {
  reply: AssistantMessage | undefined;
  calls: ToolCall[];
} {
  let at = messages.length - 1;
  while (at >= 0 && messages[at]!.role !== "assistant") at--;
  if (at < 0) return { reply: undefined, calls: [] };
  const reply = messages[at] as AssistantMessage;
  const answered = new Set<string>();
  for (const m of messages.slice(at + 1)) if (m.role === "tool") answered.add(m.toolCallId);
  return { reply, calls: reply.toolCalls.filter((c) => !answered.has(c.id)) };
}
