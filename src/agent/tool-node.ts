import { AgentConfigError } from "../errors/index.js";
import { END } from "../graph/definition/constants.js";
import type { NodeFn } from "../graph/definition/types.js";
import type { Tool } from "../models/index.js";
import type { Middleware } from "./middleware.js";
import { type AgentState, unansweredToolCalls } from "./state.js";
import { toolsNode } from "./tools-node.js";

/**
 * A graph node that answers the tool calls of the latest assistant message in `messages`,
 * for graphs you build yourself (LangGraph's `ToolNode`). It is the node `createAgent` uses:
 * calls run in the model's order, a tool's thrown error becomes an error tool message, an
 * unknown tool name is answered with the list of known ones, and a tool that returns a
 * `Command` updates the state (its writes go through the reducers with its tool message)
 * and may `goto` nodes you declare as the node's `ends`. `middleware` may wrap the calls.
 *
 * @example
 * const graph = messagesGraph({ name: "assistant" })
 *   .addNode("model", callModel)
 *   .addNode("tools", toolNode([getWeather]))
 *   .addEdge(START, "model")
 *   .addConditionalEdges("model", toolsCondition, ["tools", END])
 *   .addEdge("tools", "model")
 *   .compile();
 */
export function toolNode<C = unknown>(
  tools: readonly Tool<any, any>[],
  options: { name?: string; middleware?: readonly Middleware<C>[] } = {},
): NodeFn<AgentState, C> {
  const byName = new Map<string, Tool<any, any>>();
  for (const t of tools) {
    if (typeof t?.run !== "function" || byName.has(t.name)) {
      throw new AgentConfigError(
        `toolNode: ${typeof t?.run !== "function" ? "every tool must be made with tool({ name, description, schema, run })" : `two tools are named "${t.name}"; rename one`}.`,
      );
    }
    byName.set(t.name, t);
  }
  const agentName = options.name ?? "tools";
  return toolsNode<C>({
    middleware: options.middleware ?? [],
    agentRuntime: (runtime) => ({ ...runtime, agentName, tools: byName }),
  });
}

/**
 * A router for the edge after a model node: `"tools"` while the latest assistant message
 * has unanswered tool calls, else `END`.
 *
 * @example
 * graph.addConditionalEdges("model", toolsCondition, ["tools", END]);
 */
export function toolsCondition(state: { messages?: AgentState["messages"] }): "tools" | typeof END {
  return unansweredToolCalls(state.messages ?? []).calls.length > 0 ? "tools" : END;
}
