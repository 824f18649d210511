import { StateweaverError } from "../errors/index.js";
import type { NodeFn, NodeRuntime } from "../graph/definition/types.js";
import { type AssistantMessage, type ChatModel, message, type Tool } from "../models/index.js";
import { invokeModel } from "./invoke-model.js";
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
  const call = modelCall(middleware);
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
    const id = reply.id ?? `${runtime.agentName}:${nodeRuntime.taskId}`;
    return { messages: [reply.id === undefined ? { ...reply, id } : reply] };
  };
}

/**
 * An agent's model call: through the `wrapModelCall` onion (first middleware outermost) to
 * the model, streamed while the graph is; the reply checked to be an assistant message.
 * The model node and the `respond` node both call the model through it.
 *
 * @example
 * const call = modelCall(middleware);
 * const reply = await call({ model, systemPrompt, messages, tools, state, runtime });
 */
export function modelCall<C>(middleware: readonly Middleware<C>[]): ModelHandler<C> {
  const call = middleware.reduceRight<ModelHandler<C>>(
    (next, mw) => (mw.wrapModelCall ? (request) => mw.wrapModelCall!(request, next) : next),
    callModel,
  );
  return async (request) => {
    const reply = await call(request);
    if (reply?.role !== "assistant" || !Array.isArray(reply.toolCalls)) {
      throw new StateweaverError(
        "INVALID_MODEL_REPLY",
        `The model call of agent "${request.runtime.agentName}" produced ${JSON.stringify(reply)?.slice(0, 80)} instead of an assistant message. A wrapModelCall must return what its handler returned, or a message built with message.assistant().`,
      );
    }
    return reply;
  };
}

/**
 * The innermost handler: the system prompt first, then the conversation, to the model
 * (streamed while the graph is, see `invokeModel`).
 */
function callModel<C>(request: ModelRequest<C>): Promise<AssistantMessage> {
  const messages =
    request.systemPrompt === undefined
      ? request.messages
      : [message.system(request.systemPrompt), ...request.messages];
  // A respond call's reply is not stored, and a correction is a second reply in the same
  // task: those get the task's counted ids (`respond:<task id>`, then `…:2`).
  return invokeModel(request.model, messages, {
    tools: request.tools,
    signal: request.runtime.signal,
    ...(request.responseFormat
      ? { responseFormat: request.responseFormat }
      : { messageId: `${request.runtime.agentName}:${request.runtime.taskId}` }),
  });
}
