import { StateweaverError } from "../errors/index.js";
import type { NodeFn, NodeRuntime } from "../graph/types.js";
import { type AssistantMessage, type ChatModel, message, type Tool } from "../models/index.js";
import { currentTask } from "../runtime/interrupt.js";
import type { AgentRuntime, Middleware, ModelRequest } from "./middleware.js";
import type { AgentState } from "./state.js";

type ModelHandler<C> = (request: ModelRequest<C>) => Promise<AssistantMessage>;

/** What the model node is built from. */
export interface ModelNodeSetup<C> {
  model: ChatModel;
  tools: readonly Tool<any, any>[];
  systemPrompt: string | undefined;
  middleware: readonly Middleware<C>[];
  agentRuntime: (runtime: NodeRuntime<C>) => AgentRuntime<C>;
}

/**
 * The agent's `model` node: one model call through the `wrapModelCall` onion (first
 * middleware outermost), the reply appended to `messages`.
 *
 * Every reply gets an id (the provider's, else `<agent>:<task id>`, unique in the thread)
 * so review can later replace it in place with edited tool calls.
 *
 * @example
 * graph.addNode("model", modelNode({ model, tools, systemPrompt, middleware, agentRuntime }));
 */
export function modelNode<C>(setup: ModelNodeSetup<C>): NodeFn<AgentState, C> {
  const { model, tools, systemPrompt, middleware, agentRuntime } = setup;
  const call = middleware.reduceRight<ModelHandler<C>>(
    (next, mw) => (mw.wrapModelCall ? (request) => mw.wrapModelCall!(request, next) : next),
    callModel,
  );
  return async (state, nodeRuntime) => {
    const runtime = agentRuntime(nodeRuntime);
    const reply = await call({
      model,
      systemPrompt,
      messages: [...(state.messages ?? [])],
      tools: [...tools],
      state,
      runtime,
    });
    if (reply?.role !== "assistant" || !Array.isArray(reply.toolCalls)) {
      throw new StateweaverError(
        "INVALID_MODEL_REPLY",
        `The model call of agent "${runtime.agentName}" produced ${JSON.stringify(reply)?.slice(0, 80)} instead of an assistant message. A wrapModelCall must return what its handler returned, or a message built with message.assistant().`,
      );
    }
    const id = reply.id ?? `${runtime.agentName}:${nodeRuntime.taskId}`;
    return { messages: [reply.id === undefined ? { ...reply, id } : reply] };
  };
}

/**
 * The innermost handler: the system prompt first, then the conversation, to the model.
 * Under `stream()` the model streams and each text delta becomes a `messages` event;
 * otherwise one `invoke` is cheaper.
 */
async function callModel<C>(request: ModelRequest<C>): Promise<AssistantMessage> {
  const messages =
    request.systemPrompt === undefined
      ? request.messages
      : [message.system(request.systemPrompt), ...request.messages];
  const options = { tools: request.tools, signal: request.runtime.signal };
  const task = currentTask.getStore();
  const emit = task?.env.emit;
  if (!task || !emit) return request.model.invoke(messages, options);
  let reply: AssistantMessage | undefined;
  // The id the reply will have in the state (see modelNode), so chunks can be joined to it.
  const fallbackId = `${request.runtime.agentName}:${request.runtime.taskId}`;
  const detailed = { ...options, detailedChunks: true };
  for await (const chunk of request.model.stream(messages, detailed)) {
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
      `The stream of model "${request.model.provider}:${request.model.model}" ended without its final message chunk; a ChatModel's stream() must end with { type: "message", message }.`,
    );
  }
  return reply;
}
