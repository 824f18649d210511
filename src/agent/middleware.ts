import { AgentConfigError } from "../errors/index.js";
import type { NodeRuntime } from "../graph/definition/types.js";
import type {
  AssistantMessage,
  ChatModel,
  Message,
  ResponseFormat,
  Tool,
  ToolCall,
  ToolMessage,
} from "../models/index.js";
import type { AgentState } from "./state.js";

/**
 * What agent hooks, tool review policies and wrappers receive: the graph node's runtime
 * (`interrupt`, `config`, `context`, `signal`, `writer`…) plus the agent's name and tools.
 *
 * @example
 * beforeModel: (state, runtime) => console.log(runtime.agentName, [...runtime.tools.keys()])
 */
export interface AgentRuntime<C = unknown> extends NodeRuntime<C> {
  readonly agentName: string;
  /** Every tool the model may call, by name (the agent's own and those middleware adds). */
  readonly tools: ReadonlyMap<string, Tool<any, any>>;
}

/**
 * What a hook may return: a partial state update (`messages` are appended), or nothing.
 *
 * @example
 * const remind = (): HookResult => ({ messages: [message.user("Remember: be brief.")] });
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a hook written as `() => { … }` returns void
export type HookResult = Partial<AgentState> | undefined | void;

/**
 * A node-style hook: it runs as its own node of the agent's graph, so it may call
 * `runtime.interrupt` and its update is checkpointed like any node's.
 *
 * @example
 * const hook: AgentHook = (state) => ({ messages: [message.user("Be brief.")] });
 */
export type AgentHook<C = unknown> = (
  state: AgentState,
  runtime: AgentRuntime<C>,
) => HookResult | Promise<HookResult>;

/**
 * One model call, as `wrapModelCall` sees it. Change it by passing a modified copy to
 * `handler`. `messages` is the conversation without the system prompt, which is sent first.
 *
 * @example
 * wrapModelCall: (request, handler) => handler({ ...request, systemPrompt: "Answer in French." })
 */
export interface ModelRequest<C = unknown> {
  model: ChatModel;
  systemPrompt: string | undefined;
  messages: Message[];
  tools: Tool<any, any>[];
  state: AgentState;
  runtime: AgentRuntime<C>;
  /**
   * Set on the calls of the `respond` node (an agent with `responseFormat`): the JSON shape
   * the answer must take. Such a call has no tools; its reply becomes `structuredResponse`
   * (after validation, with corrections sent back through this same stack).
   */
  responseFormat?: ResponseFormat;
}

/**
 * One tool call about to run, as `wrapToolCall` sees it. `tool` is undefined when the
 * model named a tool the agent does not have (the innermost handler answers that with an
 * error message).
 *
 * @example
 * wrapToolCall: async (request, handler) => { const t = Date.now(); const r = await handler(request); log(request.call.name, Date.now() - t); return r; }
 */
export interface ToolCallRequest<C = unknown> {
  call: ToolCall;
  tool: Tool<any, any> | undefined;
  state: AgentState;
  runtime: AgentRuntime<C>;
}

/**
 * A unit of agent behaviour. Order in the agent's `middleware` list matters:
 *
 * - `beforeAgent` and `beforeModel` run in list order;
 * - `afterModel` and `afterAgent` run in reverse list order;
 * - `wrapModelCall` and `wrapToolCall` nest like an onion: the first middleware is the
 *   outermost, so it sees the request first and the reply last.
 *
 * Each node-style hook is a node of the agent's graph named `<middleware>/<hook>`, e.g.
 * `humanInTheLoop/afterModel`. `tools` are added to the agent's tools.
 *
 * @example
 * const logging = defineMiddleware({
 *   name: "logging",
 *   beforeModel: (state) => console.log(`${state.messages.length} messages`),
 *   wrapToolCall: async (request, handler) => {
 *     console.log("calling", request.call.name);
 *     return handler(request);
 *   },
 * });
 */
export interface Middleware<C = unknown> {
  readonly name: string;
  /** Runs once per invocation, before anything else. */
  readonly beforeAgent?: AgentHook<C>;
  /** Runs before every model call. */
  readonly beforeModel?: AgentHook<C>;
  /** Runs after every model call, before any tool runs. */
  readonly afterModel?: AgentHook<C>;
  /** Runs once per invocation, when the model answers without tool calls. */
  readonly afterAgent?: AgentHook<C>;
  readonly wrapModelCall?: (
    request: ModelRequest<C>,
    handler: (request: ModelRequest<C>) => Promise<AssistantMessage>,
  ) => Promise<AssistantMessage>;
  /** Wraps every tool that runs; calls answered in review (reject, respond) never run. */
  readonly wrapToolCall?: (
    request: ToolCallRequest<C>,
    handler: (request: ToolCallRequest<C>) => Promise<ToolMessage>,
  ) => Promise<ToolMessage>;
  /** Tools this middleware gives the model. */
  readonly tools?: readonly Tool<any, any>[];
}

/** The node-style hooks, in the order a turn reaches them. */
export const NODE_HOOKS = ["beforeAgent", "beforeModel", "afterModel", "afterAgent"] as const;
export type NodeHookName = (typeof NODE_HOOKS)[number];

const FUNCTION_KEYS = [...NODE_HOOKS, "wrapModelCall", "wrapToolCall"] as const;

// Hook node names are `<middleware>/<hook>`; graph node names may not contain . # | :
const MIDDLEWARE_NAME = /^[A-Za-z_][\w-]*$/;

/**
 * Checks a middleware definition and returns it, typed. Names must be unique within an
 * agent and made of letters, digits, `_` and `-`, since they name graph nodes.
 *
 * @example
 * const trimHistory = defineMiddleware({
 *   name: "trimHistory",
 *   wrapModelCall: (request, handler) => handler({ ...request, messages: request.messages.slice(-20) }),
 * });
 */
export function defineMiddleware<C = unknown>(middleware: Middleware<C>): Middleware<C> {
  if (typeof middleware?.name !== "string" || !MIDDLEWARE_NAME.test(middleware.name)) {
    throw new AgentConfigError(
      `Middleware name ${JSON.stringify(middleware?.name)} is not valid: use letters, digits, "_" and "-", starting with a letter, e.g. "auditLog". It names the middleware's graph nodes.`,
    );
  }
  for (const key of FUNCTION_KEYS) {
    const hook = middleware[key];
    if (hook !== undefined && typeof hook !== "function") {
      throw new AgentConfigError(
        `Middleware "${middleware.name}": ${key} must be a function, got ${typeof hook}.`,
      );
    }
  }
  if (middleware.tools !== undefined && !Array.isArray(middleware.tools)) {
    throw new AgentConfigError(`Middleware "${middleware.name}": tools must be an array of tools.`);
  }
  return middleware;
}
