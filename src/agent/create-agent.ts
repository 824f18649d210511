import type { z } from "zod";
import type { Checkpointer } from "../checkpoint/checkpointer.js";
import { AgentConfigError } from "../errors/index.js";
import type { CompiledGraph, InvokeOptions, RunResult } from "../graph/compiled-graph.js";
import { END, START } from "../graph/definition/constants.js";
import type { NodeRuntime } from "../graph/definition/types.js";
import { Graph } from "../graph/graph.js";
import type { ChatModel, StructuredOutputOptions, Tool } from "../models/index.js";
import { type AsyncSubagentSpec, isAsyncSubagent } from "./async-subagent.js";
import { ASYNC_TASKS, mergeAsyncTasks } from "./async-subagent-state.js";
import { asyncTaskTools } from "./async-subagent-tools.js";
import { humanInTheLoop, reviewedToolNames } from "./human-in-the-loop.js";
import {
  type AgentRuntime,
  defineMiddleware,
  type Middleware,
  NODE_HOOKS,
  type NodeHookName,
} from "./middleware.js";
import { modelNode } from "./model-node.js";
import { respondNode } from "./respond-node.js";
import type { ReviewDecision } from "./review.js";
import type { InterruptOnConfig } from "./review-policy.js";
import { type AgentState, addMessages, unansweredToolCalls } from "./state.js";
import { type SubagentSpec, taskTool } from "./subagent.js";
import { toolsNode } from "./tools-node.js";

/**
 * What an agent is made of.
 *
 * - `model`, `tools`, `systemPrompt` (sent first on every model call, never stored).
 * - `middleware`: hooks around the loop, in the order documented on `Middleware`.
 * - `interruptOn`: tool review; adds `humanInTheLoop({ interruptOn })` as the last
 *   middleware (so its `afterModel` runs first, straight after the model).
 * - `subagents`: adds a `task` tool that runs them; they inherit `model` and `interruptOn`.
 *   Async ones (`asyncSubagent`) add the `start_async_task`… tools and `asyncTasks` state.
 * - `checkpointer`: needed for review and breakpoints, which pause the thread.
 * - `interruptBefore` / `interruptAfter`: static breakpoints on `"model"`, `"tools"` or a
 *   hook node (`"<middleware>/<hook>"`).
 *
 * @example
 * const options: AgentOptions = { model, tools: [removeFile], interruptOn: { remove_file: true } };
 */
export interface AgentOptions<C = unknown> {
  /** The graph's name (letters, digits, `_`, `-`); `"agent"` by default. */
  name?: string;
  model: ChatModel;
  tools?: readonly Tool<any, any>[];
  systemPrompt?: string;
  middleware?: readonly Middleware<C>[];
  interruptOn?: InterruptOnConfig<C>;
  /**
   * Agents the model can hand tasks to: through a `task` tool that waits for the answer
   * (`subagent`), or in the background (`asyncSubagent`).
   */
  subagents?: readonly (SubagentSpec<C> | AsyncSubagentSpec)[];
  checkpointer?: Checkpointer;
  interruptBefore?: readonly string[];
  interruptAfter?: readonly string[];
  /**
   * Give the run's result in this shape as well: when the model is done (no more tool
   * calls), a `respond` node asks it for the answer as the schema describes, validated
   * (see `withStructuredOutput`), and stores it in `state.structuredResponse`. Its model
   * calls go through `wrapModelCall` (with `request.responseFormat` set) and stream.
   */
  responseFormat?: z.ZodObject | (StructuredOutputOptions & { schema: z.ZodObject });
}

/**
 * A compiled agent: a `CompiledGraph` over `AgentState` (so `invoke`, `resume`, `stream`,
 * `getState`, `machine`… all work), plus `resumeReview` and the agent's tools.
 *
 * @example
 * const r = await agent.invoke({ messages: [message.user("Delete temp.txt")] }, { config });
 * if (r.status === "interrupted") await agent.resumeReview([HITL.decision("approve")], { config });
 */
export interface Agent<C = unknown> extends CompiledGraph<AgentState, C> {
  /** Resume a tool review: the same as `resume({ decisions }, options)`. */
  resumeReview(
    decisions: readonly ReviewDecision[],
    options?: InvokeOptions<C>,
  ): Promise<RunResult<AgentState>>;
  /** Every tool the model may call: the agent's own, then those middleware adds. */
  readonly tools: readonly Tool<any, any>[];
  /** The middleware stack, `interruptOn`'s review included, in list order. */
  readonly middleware: readonly Middleware<C>[];
}

/**
 * Builds a tool-calling agent as a graph and compiles it. The graph is
 *
 * ```text
 * START → beforeAgent hooks → beforeModel hooks → model → afterModel hooks (reversed)
 *   → tools (when the reply has tool calls) → beforeModel hooks → model → …
 *   → afterAgent hooks (reversed) → END   (when it has none)
 * ```
 *
 * A tool returning `Command({ goto })` sends the run from `tools` to that node of the
 * agent (or `END`) instead of back to the model; see `toolsGoto` for how gotos combine.
 *
 * Configuration mistakes (duplicate names, a review policy for a tool the agent does not
 * have, a policy without `allowedDecisions`) throw `AgentConfigError` here.
 *
 * @example
 * const agent = createAgent({
 *   model: initChatModel("openai:gpt-5.4"),
 *   tools: [removeFile, readFile],
 *   interruptOn: { remove_file: true, read_file: false },
 *   checkpointer: new MemoryCheckpointer(),
 * });
 * const config = { configurable: { thread_id: "files-1" } };
 * const r = await agent.invoke({ messages: [message.user("Delete temp.txt")] }, { config });
 * if (r.status === "interrupted") await agent.resume({ decisions: [{ type: "approve" }] }, { config });
 */
export function createAgent<C = unknown>(options: AgentOptions<C>): Agent<C> {
  const name = options.name ?? "agent";
  const { model, systemPrompt, checkpointer } = options;
  if (typeof model?.invoke !== "function") {
    throw new AgentConfigError(
      `Agent "${name}" needs a chat model: pass model: initChatModel("openai:gpt-5.4") or a FakeChatModel.`,
    );
  }
  if (systemPrompt !== undefined && typeof systemPrompt !== "string") {
    throw new AgentConfigError(`Agent "${name}": systemPrompt must be a string.`);
  }
  const middleware = [...(options.middleware ?? []).map((m) => defineMiddleware(m))];
  if (options.interruptOn !== undefined)
    middleware.push(humanInTheLoop<C>({ interruptOn: options.interruptOn }));
  const stackNames = new Set<string>();
  for (const m of middleware) {
    if (stackNames.has(m.name)) {
      throw new AgentConfigError(
        `Agent "${name}" has two middleware named "${m.name}"${options.interruptOn !== undefined && m.name === "humanInTheLoop" ? " (interruptOn adds one)" : ""}. Middleware names name graph nodes; give each a unique name.`,
      );
    }
    stackNames.add(m.name);
  }

  const asyncSpecs = (options.subagents ?? []).filter(isAsyncSubagent);
  const syncSpecs = (options.subagents ?? []).filter(
    (s): s is SubagentSpec<C> => !isAsyncSubagent(s),
  );
  const subagents = [
    ...(options.subagents === undefined || (syncSpecs.length === 0 && asyncSpecs.length > 0)
      ? []
      : [
          taskTool<C>(syncSpecs, {
            model,
            interruptOn: options.interruptOn,
            build: (child) => createAgent<C>(child),
          }),
        ]),
    ...asyncTaskTools(asyncSpecs),
  ];
  const tools = [
    ...(options.tools ?? []),
    ...subagents,
    ...middleware.flatMap((m) => m.tools ?? []),
  ];
  const toolMap = new Map<string, Tool<any, any>>();
  for (const t of tools) {
    if (typeof t?.run !== "function" || typeof t.name !== "string") {
      throw new AgentConfigError(
        `Agent "${name}": every tool must be made with tool({ name, description, schema, run }); got ${JSON.stringify(t)?.slice(0, 60)}.`,
      );
    }
    if (toolMap.has(t.name)) {
      throw new AgentConfigError(
        `Agent "${name}" has two tools named "${t.name}"; the model could not tell them apart. Rename one.`,
      );
    }
    toolMap.set(t.name, t);
  }
  for (const [i, m] of middleware.entries()) {
    const fromInterruptOn = options.interruptOn !== undefined && i === middleware.length - 1;
    for (const toolName of reviewedToolNames(m) ?? []) {
      if (!toolMap.has(toolName)) {
        throw new AgentConfigError(
          `Agent "${name}": ${fromInterruptOn ? "interruptOn" : `middleware "${m.name}"`} asks to review tool "${toolName}", but the agent has no such tool (it has: ${[...toolMap.keys()].join(", ") || "none"}). Fix the name, or remove the entry.`,
        );
      }
    }
  }

  const agentRuntime = (runtime: NodeRuntime<C>): AgentRuntime<C> => ({
    ...runtime,
    agentName: name,
    tools: toolMap,
  });

  // The conversation starts as [], as in LangGraph's agents (MessagesAnnotation).
  const graph = new Graph<AgentState, C>({ name }).addReducer("messages", addMessages, {
    default: () => [],
  });
  if (asyncSpecs.length > 0) graph.addReducer(ASYNC_TASKS, mergeAsyncTasks as never);
  const hookNodes = (hook: NodeHookName) => {
    const withHook = middleware.filter((m) => m[hook] !== undefined);
    // After-hooks unwind the stack: the last middleware's runs first.
    if (hook === "afterModel" || hook === "afterAgent") withHook.reverse();
    return withHook.map((m) => {
      const node = `${m.name}/${hook}`;
      const fn = m[hook]!;
      graph.addNode(node, (state, runtime) => fn(state, agentRuntime(runtime)));
      return node;
    });
  };
  const hooks = Object.fromEntries(NODE_HOOKS.map((h) => [h, hookNodes(h)])) as Record<
    NodeHookName,
    string[]
  >;
  // The tools node routes itself: back to the model, or where a tool's goto says (any
  // other node of the agent; going to itself again would answer nothing).
  const agentNodes = [
    ...NODE_HOOKS.flatMap((h) => hooks[h]),
    "model",
    ...(options.responseFormat ? ["respond"] : []),
  ];
  const back = hooks.beforeModel[0] ?? "model";
  graph
    .addNode("model", modelNode({ model, tools, systemPrompt, middleware, agentRuntime }))
    .addNode(
      "tools",
      toolsNode({ middleware, agentRuntime, route: { back, nodes: [...agentNodes, END] } }),
      { ends: [...agentNodes, END] },
    );

  const chain = (nodes: readonly string[], exit: string): string => {
    for (const [i, node] of nodes.entries()) graph.addEdge(node, nodes[i + 1] ?? exit);
    return nodes[0] ?? exit;
  };
  const afterAgent = chain(hooks.afterAgent, END);
  const finish = options.responseFormat ? "respond" : afterAgent;
  if (options.responseFormat) {
    const format = options.responseFormat;
    const { schema, ...formatOptions } = "schema" in format ? format : { schema: format };
    graph.addNode(
      "respond",
      respondNode({ model, schema, format: formatOptions, systemPrompt, middleware, agentRuntime }),
    );
    graph.addEdge("respond", afterAgent);
  }
  const modelEntry = chain(hooks.beforeModel, "model");
  graph.addEdge(START, chain(hooks.beforeAgent, modelEntry));
  const afterModel = ["model", ...hooks.afterModel];
  for (const [i, node] of afterModel.slice(1).entries()) graph.addEdge(afterModel[i]!, node);
  const routeFrom = afterModel.at(-1)!;
  graph.addConditionalEdges(
    routeFrom,
    (state) => (unansweredToolCalls(state.messages ?? []).calls.length > 0 ? "tools" : finish),
    ["tools", finish],
  );

  const compiled = graph.compile({
    checkpointer,
    interruptBefore: options.interruptBefore ?? [],
    interruptAfter: options.interruptAfter ?? [],
  });
  return Object.assign(compiled, {
    tools,
    middleware,
    resumeReview(decisions: readonly ReviewDecision[], invokeOptions?: InvokeOptions<C>) {
      return compiled.resume({ decisions: [...decisions] }, invokeOptions);
    },
  }) as Agent<C>;
}
