import { z } from "zod";
import { AgentConfigError } from "../errors/index.js";
import type { ChatModel, Tool } from "../models/index.js";
import { message, tool } from "../models/index.js";
import type { Agent } from "./create-agent.js";
import type { Middleware } from "./middleware.js";
import type { InterruptOnConfig } from "./review-policy.js";
import type { AgentState } from "./state.js";

/**
 * A subagent the parent's model can hand work to through the `task` tool.
 *
 * - Declared: `{ name, description, systemPrompt?, tools, interruptOn?, model?, middleware? }`.
 *   It is built as an agent of its own; without `model` it uses the parent's, and without
 *   `interruptOn` it inherits the parent's policies for the tools it has.
 * - Prebuilt: `{ name, description, agent }` runs the agent you made, with the review
 *   configuration you gave it.
 *
 * @example
 * const spec: SubagentSpec = { name: "housekeeper", description: "Tidies up files.", tools: [removeFile] };
 */
export type SubagentSpec<C = unknown> =
  | {
      name: string;
      description: string;
      systemPrompt?: string;
      tools: readonly Tool<any, any>[];
      interruptOn?: InterruptOnConfig<C>;
      model?: ChatModel;
      middleware?: readonly Middleware<C>[];
      agent?: undefined;
    }
  | { name: string; description: string; agent: Agent<C> };

/**
 * Declares a subagent for `createAgent({ subagents })`. It runs inside the parent's
 * `tools` node, on the parent's thread under its own checkpoint namespace: its messages
 * stay out of the parent's conversation, and only its final answer comes back as the
 * `task` tool's result. A review inside it pauses the parent run with the same result
 * shape as a review in the parent, and `resume`/`resumeReview` with the parent's config
 * continue it where it stopped.
 *
 * @example
 * const agent = createAgent({
 *   model, tools: [removeFile, readFile], checkpointer,
 *   interruptOn: { remove_file: true, read_file: false },
 *   subagents: [subagent({
 *     name: "housekeeper",
 *     description: "Tidies up the workspace: deletes and reads files.",
 *     systemPrompt: "Review filesystem work carefully.",
 *     tools: [removeFile, readFile],
 *     interruptOn: { remove_file: true, read_file: true },
 *   })],
 * });
 */
export function subagent<C = unknown>(spec: SubagentSpec<C>): SubagentSpec<C> {
  if (typeof spec?.name !== "string" || !/^[A-Za-z_][\w-]*$/.test(spec.name)) {
    throw new AgentConfigError(
      `Subagent name ${JSON.stringify(spec?.name)} is not valid: use letters, digits, "_" and "-", starting with a letter, e.g. "housekeeper".`,
    );
  }
  if (typeof spec.description !== "string" || spec.description.trim() === "") {
    throw new AgentConfigError(
      `Subagent "${spec.name}" needs a description: the parent's model reads it to decide when to use it.`,
    );
  }
  if (spec.agent === undefined && !Array.isArray(spec.tools)) {
    throw new AgentConfigError(
      `Subagent "${spec.name}" needs tools (an array, may be empty), or a prebuilt agent: subagent({ name, description, agent }).`,
    );
  }
  return spec;
}

/** What a declared subagent inherits from its parent. */
export interface SubagentParent<C> {
  model: ChatModel;
  interruptOn: InterruptOnConfig<C> | undefined;
  build: (options: {
    name: string;
    model: ChatModel;
    tools: readonly Tool<any, any>[];
    systemPrompt: string | undefined;
    middleware: readonly Middleware<C>[] | undefined;
    interruptOn: InterruptOnConfig<C> | undefined;
  }) => Agent<C>;
}

/**
 * The `task` tool that runs subagents: args `{ subagent, description }`, result the
 * subagent's final reply.
 *
 * @example
 * const task = taskTool([spec], { model, interruptOn, build: createAgent });
 */
export function taskTool<C>(
  specs: readonly SubagentSpec<C>[],
  parent: SubagentParent<C>,
): Tool<any, string> {
  if (specs.length === 0) {
    throw new AgentConfigError(
      "subagents is empty; leave it out, or declare at least one subagent.",
    );
  }
  const agents = new Map<string, Agent<C>>();
  for (const raw of specs) {
    const spec = subagent(raw);
    if (agents.has(spec.name)) {
      throw new AgentConfigError(
        `Two subagents are named "${spec.name}"; give each a unique name.`,
      );
    }
    agents.set(
      spec.name,
      spec.agent ??
        parent.build({
          name: spec.name,
          model: spec.model ?? parent.model,
          tools: spec.tools,
          systemPrompt: spec.systemPrompt,
          middleware: spec.middleware,
          interruptOn: spec.interruptOn ?? inherited(parent.interruptOn, spec.tools),
        }),
    );
  }
  const names = [...agents.keys()] as [string, ...string[]];
  const menu = specs.map((s) => `- ${s.name}: ${s.description}`).join("\n");
  return tool({
    name: "task",
    description: `Hand a self-contained task to a subagent. It works on it with its own tools and context and returns only its final answer, so describe the task completely. Subagents:\n${menu}`,
    schema: z.object({
      subagent: z.enum(names).describe("Which subagent does the task"),
      description: z
        .string()
        .min(1)
        .describe("The task, with everything the subagent needs to know"),
    }),
    run: async ({ subagent: name, description }) => {
      const agent = agents.get(name)!;
      // Called inside the parent's tools node, this is a nested run on the parent's thread:
      // a pause in it pauses the parent, and the parent's resume continues it.
      const result = await agent.invoke({ messages: [message.user(description)] });
      return finalAnswer(result.state);
    },
  });
}

/** The parent's policies for the tools the subagent has (others would be configuration errors). */
function inherited<C>(
  interruptOn: InterruptOnConfig<C> | undefined,
  tools: readonly Tool<any, any>[],
): InterruptOnConfig<C> | undefined {
  if (interruptOn === undefined) return undefined;
  const names = new Set(tools.map((t) => t.name));
  return Object.fromEntries(Object.entries(interruptOn).filter(([name]) => names.has(name)));
}

function finalAnswer(state: AgentState): string {
  for (let i = state.messages.length - 1; i >= 0; i--) {
    const m = state.messages[i]!;
    if (m.role === "assistant") return m.content;
  }
  return "";
}
