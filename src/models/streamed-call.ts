import { StateweaverError } from "../errors/index.js";
import { currentTask, type Scratchpad } from "../runtime/interrupt.js";
import type { ChatModel, ChatModelCallOptions } from "./chat-model.js";
import type { AssistantMessage, Message } from "./message.js";

// Model calls made so far by each running task, for ids of replies that have none.
const callsByTask = new WeakMap<Scratchpad, number>();

/**
 * The id a reply made in the running task gets when the provider gives none:
 * `<node>:<task id>` for the task's first model call, `<node>:<task id>:<n>` for the n-th.
 * A task's calls are counted from 1 each time it runs anew (after a resume, say), so a
 * replayed task names its replies as it did before; a retry attempt counts on.
 */
function nextReplyId(task: Scratchpad): string {
  const n = (callsByTask.get(task) ?? 0) + 1;
  callsByTask.set(task, n);
  return n === 1 ? `${task.node}:${task.taskId}` : `${task.node}:${task.taskId}:${n}`;
}

/**
 * A chat model call made inside a node of a graph that is being streamed: the model
 * streams, and each piece of text or of a tool call becomes the run's `message-chunk`
 * event (the `messages` stream mode), tagged with the node, its step and the reply's id.
 * Returns undefined when no streamed run is listening (under `invoke`, or outside a graph):
 * the caller then makes its plain call. The adapters' `invoke` starts with it, which is
 * how `model.invoke(...)` in any node streams, as LangGraph users expect.
 *
 * The reply has an id whenever it streamed: the provider's, else `messageId`, else the
 * task's next (`<node>:<task id>`, then `…:2`…), and its pieces carry the same id.
 *
 * @example
 * async invoke(messages, options = {}) {
 *   return streamedInRun(this, messages, options) ?? this.#plainCall(messages, options);
 * }
 */
export function streamedInRun(
  model: ChatModel,
  messages: readonly Message[],
  options: ChatModelCallOptions & { messageId?: string } = {},
): Promise<AssistantMessage> | undefined {
  const task = currentTask.getStore();
  const emit = task?.env.emit;
  if (!task || !emit) return undefined;
  return streamIntoRun(model, messages, options, task, emit);
}

/**
 * The id a reply without one gets in the running task (see `streamedInRun`), or undefined
 * outside a graph. For callers that make the plain call themselves and still want ids.
 *
 * @example
 * const reply = await model.invoke(messages);
 * const id = reply.id ?? replyIdInTask();
 */
export function replyIdInTask(): string | undefined {
  const task = currentTask.getStore();
  return task ? nextReplyId(task) : undefined;
}

async function streamIntoRun(
  model: ChatModel,
  messages: readonly Message[],
  options: ChatModelCallOptions & { messageId?: string },
  task: Scratchpad,
  emit: NonNullable<Scratchpad["env"]["emit"]>,
): Promise<AssistantMessage> {
  const { messageId: given, ...call } = options;
  const fallbackId = given ?? nextReplyId(task);
  let reply: AssistantMessage | undefined;
  for await (const chunk of model.stream(messages, { ...call, detailedChunks: true })) {
    if (chunk.type === "message") {
      reply = chunk.message;
      continue;
    }
    const messageId = chunk.messageId ?? fallbackId;
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
  return reply.id === undefined && reply.role === "assistant"
    ? { ...reply, id: fallbackId }
    : reply;
}
