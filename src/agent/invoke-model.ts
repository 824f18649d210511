import { StateweaverError } from "../errors/index.js";
import type { AssistantMessage, ChatModel, Message, ToolDefinition } from "../models/index.js";
import { currentTask } from "../runtime/interrupt.js";

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
  options: { tools?: readonly ToolDefinition[]; signal?: AbortSignal; messageId?: string } = {},
): Promise<AssistantMessage> {
  const { tools, signal } = options;
  const call = { ...(tools && { tools }), ...(signal && { signal }) };
  const task = currentTask.getStore();
  const fallbackId = options.messageId ?? (task ? `${task.node}:${task.taskId}` : undefined);
  const withId = (reply: AssistantMessage) =>
    reply?.id === undefined && fallbackId !== undefined && reply?.role === "assistant"
      ? { ...reply, id: fallbackId }
      : reply;
  const emit = task?.env.emit;
  if (!task || !emit) return withId(await model.invoke(messages, call));
  let reply: AssistantMessage | undefined;
  for await (const chunk of model.stream(messages, { ...call, detailedChunks: true })) {
    if (chunk.type === "message") {
      reply = chunk.message;
      continue;
    }
    const messageId = chunk.messageId ?? fallbackId!;
    emit({
      type: "message-chunk",
      ns: task.ns,
      step: task.step,
      node: task.node,
      chunk:
        chunk.type === "text-delta"
          ? { type: "text", messageId, text: chunk.text }
          : {
              type: "tool-call",
              messageId,
              index: chunk.index,
              ...(chunk.id !== undefined && { id: chunk.id }),
              ...(chunk.name !== undefined && { name: chunk.name }),
              args: chunk.args,
            },
    });
  }
  if (!reply) {
    throw new StateweaverError(
      "INVALID_MODEL_REPLY",
      `The stream of model "${model.provider}:${model.model}" ended without its final message chunk; a ChatModel's stream() must end with { type: "message", message }.`,
    );
  }
  return withId(reply);
}
