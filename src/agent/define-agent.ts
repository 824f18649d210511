import type { Checkpointer } from "../checkpoint/checkpointer.js";
import type { Command } from "../graph/definition/command.js";
import type { RunConfig } from "../graph/definition/types.js";
import type { InvokeOptions, RunResult, StateSnapshot } from "../index.js";
import type { StreamEvent } from "../stream/events.js";
import { type Agent, type AgentOptions, createAgent } from "./create-agent.js";
import type { ReviewDecision } from "./review.js";
import type { AgentInput, AgentState } from "./state.js";

/**
 * An agent definition: everything `createAgent` takes except the checkpointer.
 *
 * @example
 * const definition: AgentDefinition = { name: "Reviewed", model, tools, interruptOn: { remove_file: true } };
 */
export type AgentDefinition<C = unknown> = Omit<AgentOptions<C>, "checkpointer">;

/**
 * Call options of a defined agent: the graph's, plus the checkpointer to run on.
 *
 * @example
 * const options: DefinedAgentCallOptions = { checkpointer, config: { configurable: { thread_id: "t1" } } };
 */
export interface DefinedAgentCallOptions<C = unknown> extends InvokeOptions<C> {
  checkpointer?: Checkpointer;
}

/**
 * An agent defined once, at module level, and run on whichever checkpointer each call
 * names. It is compiled on first use per checkpointer and reused after that.
 *
 * @example
 * export const Reviewed = defineAgent({ name: "Reviewed", model, tools, interruptOn: { remove_file: true } });
 * const r = await Reviewed.invoke({ messages: [message.user("Delete temp.txt")] }, { checkpointer, config });
 * if (r.status === "interrupted") await Reviewed.resumeReview([HITL.decision("approve")], { checkpointer, config });
 */
export interface DefinedAgent<C = unknown> {
  readonly name: string;
  readonly definition: AgentDefinition<C>;
  /** The compiled agent for a checkpointer (or for none): a full `Agent`. */
  compile(options?: { checkpointer?: Checkpointer }): Agent<C>;
  invoke(
    input: AgentInput | Command | null,
    options?: DefinedAgentCallOptions<C>,
  ): Promise<RunResult<AgentState>>;
  resume(value?: unknown, options?: DefinedAgentCallOptions<C>): Promise<RunResult<AgentState>>;
  resumeReview(
    decisions: readonly ReviewDecision[],
    options?: DefinedAgentCallOptions<C>,
  ): Promise<RunResult<AgentState>>;
  stream(
    input: AgentInput | Command | null,
    options?: DefinedAgentCallOptions<C>,
  ): AsyncGenerator<StreamEvent, RunResult<AgentState>>;
  getState(
    config: RunConfig,
    options: { checkpointer: Checkpointer },
  ): Promise<StateSnapshot<AgentState>>;
}

/**
 * Defines an agent without binding it to a checkpointer, in the style of a module-level
 * declaration. The definition is checked now (it is compiled once without a
 * checkpointer), so configuration mistakes throw `AgentConfigError` at import time.
 *
 * @example
 * export const Reviewed = defineAgent({
 *   name: "Reviewed",
 *   model: initChatModel("anthropic:claude-sonnet-4-5"),
 *   tools: [removeFile, fetchFile, notifyEmail],
 *   interruptOn: { remove_file: true, fetch_file: false, notify_email: { allowedDecisions: ["approve", "reject"] } },
 *   interruptBefore: ["model"],
 * });
 */
export function defineAgent<C = unknown>(definition: AgentDefinition<C>): DefinedAgent<C> {
  const unbound = createAgent<C>({ ...definition, checkpointer: undefined });
  const bound = new WeakMap<Checkpointer, Agent<C>>();
  const compile = (options: { checkpointer?: Checkpointer } = {}): Agent<C> => {
    const { checkpointer } = options;
    if (!checkpointer) return unbound;
    let agent = bound.get(checkpointer);
    if (!agent) {
      agent = createAgent<C>({ ...definition, checkpointer });
      bound.set(checkpointer, agent);
    }
    return agent;
  };
  const split = (options: DefinedAgentCallOptions<C> = {}) => {
    const { checkpointer, ...rest } = options;
    return { agent: compile({ checkpointer }), rest };
  };
  return {
    name: unbound.name,
    definition,
    compile,
    invoke(input, options) {
      const { agent, rest } = split(options);
      return agent.invoke(input, rest);
    },
    resume(value, options) {
      const { agent, rest } = split(options);
      return agent.resume(value, rest);
    },
    resumeReview(decisions, options) {
      const { agent, rest } = split(options);
      return agent.resumeReview(decisions, rest);
    },
    stream(input, options) {
      const { agent, rest } = split(options);
      return agent.stream(input, rest);
    },
    getState(config, options) {
      return compile(options).getState(config);
    },
  };
}
