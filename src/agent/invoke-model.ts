import {
  type AssistantMessage,
  type ChatModel,
  type Message,
  type ResponseFormat,
  replyIdInTask,
  streamedInRun,
  type ToolDefinition,
} from "../models/index.js";

/**
 * Call a chat model from a graph node so that streaming works: while the graph is streamed
 * the model streams too, and its text and tool-call pieces become the stream's `messages`
 * parts; under `invoke` it is one plain call. The reply always has an id — the provider's,
 * else `messageId` (by default `<node>:<task id>`, unique in the thread) — and its pieces
 * carry that same id. The agent's model node calls models through it.
 *
 * @example
 * graph.addNode("model", async (s, runtime) => ({
 *   messages: [await invokeModel(model, s.messages, { tools, signal: runtime.signal })],
 * }));
 */
export async function invokeModel(
  model: ChatModel,
  messages: readonly Message[],
  options: {
    tools?: readonly ToolDefinition[];
    signal?: AbortSignal;
    messageId?: string;
    /** Ask for an answer in this JSON shape (what `withStructuredOutput` sends). */
    responseFormat?: ResponseFormat;
  } = {},
): Promise<AssistantMessage> {
  const { tools, signal, messageId, responseFormat } = options;
  const call = {
    ...(tools && { tools }),
    ...(signal && { signal }),
    ...(responseFormat && { responseFormat }),
  };
  const streamed = streamedInRun(model, messages, { ...call, ...(messageId && { messageId }) });
  if (streamed) return streamed;
  const reply = await model.invoke(messages, call);
  if (reply?.id !== undefined || reply?.role !== "assistant") return reply;
  const id = messageId ?? replyIdInTask();
  return id === undefined ? reply : { ...reply, id };
}
