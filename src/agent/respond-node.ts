import type { z } from "zod";
import type { NodeFn, NodeRuntime } from "../graph/definition/types.js";
import {
  type ChatModel,
  type StructuredOutputOptions,
  withStructuredOutput,
} from "../models/index.js";
import type { AgentRuntime, Middleware } from "./middleware.js";
import { modelCall } from "./model-node.js";
import type { AgentState } from "./state.js";

/** What the respond node is built from. */
export interface RespondNodeSetup<C> {
  model: ChatModel;
  schema: z.ZodObject;
  format: StructuredOutputOptions;
  systemPrompt: string | undefined;
  middleware: readonly Middleware<C>[];
  agentRuntime: (runtime: NodeRuntime<C>) => AgentRuntime<C>;
}

/**
 * The `respond` node of an agent with a `responseFormat`: asks the model for the answer in
 * the schema's shape (`withStructuredOutput`) and stores it in `structuredResponse`. Each
 * call, corrections included, goes the way the model node's do: through `wrapModelCall`
 * (the request has `responseFormat` set and no tools) and, while the graph is streamed,
 * into the `messages` stream mode.
 *
 * @example
 * graph.addNode("respond", respondNode({ model, schema, format: {}, systemPrompt, middleware, agentRuntime }));
 */
export function respondNode<C>(setup: RespondNodeSetup<C>): NodeFn<AgentState, C> {
  const { model, schema, format, systemPrompt, middleware, agentRuntime } = setup;
  // Checks the schema and options now, so a bad one fails createAgent, not a run.
  withStructuredOutput(model, schema, format);
  const call = modelCall(middleware);
  return async (state, nodeRuntime) => {
    const runtime = agentRuntime(nodeRuntime);
    // The model as withStructuredOutput sees it: every call goes through the middleware.
    const throughMiddleware: ChatModel = {
      provider: model.provider,
      model: model.model,
      invoke: (messages, options) =>
        call({
          model,
          systemPrompt,
          messages: [...messages],
          tools: [],
          state,
          runtime,
          ...(options?.responseFormat && { responseFormat: options.responseFormat }),
        }),
      stream: (messages, options) => model.stream(messages, options),
    };
    const structured = withStructuredOutput(throughMiddleware, schema, format);
    const answer = await structured.invoke(state.messages ?? [], { signal: runtime.signal });
    return { structuredResponse: answer };
  };
}
