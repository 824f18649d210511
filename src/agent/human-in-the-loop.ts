import { AgentConfigError, StateweaverError } from "../errors/index.js";
import type { AssistantMessage, Tool, ToolCall, ToolMessage } from "../models/index.js";
import { decide, type PendingAction, type ReviewOutcome } from "./decisions.js";
import { type AgentRuntime, defineMiddleware, type Middleware } from "./middleware.js";
import type { ReviewRequest } from "./review.js";
import { reviewDeadlineOf } from "./review-deadline.js";
import { type InterruptOnConfig, resolveInterruptOn } from "./review-policy.js";
import { type AgentState, unansweredToolCalls } from "./state.js";

/**
 * Options of `humanInTheLoop`.
 *
 * - `interruptOn`: review policies by tool name (see `InterruptOnConfig`).
 * - `descriptionPrefix`: the first line of the default description.
 * - `tools`: tools whose schemas validate edited args instead of the agent's tools of the
 *   same name. Rarely needed: the agent's own tools are used otherwise.
 * - `interruptMode`: `"all"` (default) puts every call of a model turn that needs review
 *   into one pause; `"first"` pauses for one call at a time (see `humanInTheLoop`).
 * - `name`: the middleware's name, for an agent with two of them.
 *
 * @example
 * const options: HumanInTheLoopOptions = { interruptOn: { remove_file: true }, interruptMode: "first" };
 */
export interface HumanInTheLoopOptions<C = unknown> {
  interruptOn: InterruptOnConfig<C>;
  descriptionPrefix?: string;
  tools?: readonly Tool<any, any>[];
  interruptMode?: "all" | "first";
  name?: string;
}

// The tools each review middleware watches, so createAgent can refuse policies for tools
// the agent does not have (a misspelt name would otherwise silently mean "no review").
const watchedTools = new WeakMap<object, readonly string[]>();

/** Tool names a `humanInTheLoop` middleware reviews; undefined for other middleware. */
export function reviewedToolNames(middleware: object): readonly string[] | undefined {
  return watchedTools.get(middleware);
}

/**
 * Tool review: after each model call and before any tool runs, the calls that need review
 * pause the run with a `ReviewRequest` as the interrupt value; the resume value
 * `{ decisions }` says, per call and in order, what happens to it.
 *
 * - `approve` runs the call; `edit` runs `editedAction` under the same call id, after its
 *   args pass the tool's schema (and the policy's `argsSchema`); the model's reply in the
 *   state is rewritten to show the edited call.
 * - `reject` and `respond` never run the tool: the model gets `message` as an error tool
 *   message (a default one tells it not to retry) or as the tool's successful result.
 * - Calls that need no review run as usual. Tool messages follow the order of the model's
 *   tool calls, whatever the decisions.
 *
 * A resume that does not fit (wrong count, a decision the policy does not allow, invalid
 * edited args, an unknown tool) throws `InvalidResumeError`, and the thread stays paused
 * exactly as it was.
 *
 * With `interruptMode: "first"` each pause holds one action request: the first call of
 * the turn that needs review. The later ones are not run and not dropped: each gets its
 * own pause, in order, once the previous one is decided. No tool of the turn runs until
 * every call that needed review has its decision, so nothing skips review.
 *
 * @example
 * const agent = createAgent({
 *   model, tools: [removeFile, readFile], checkpointer,
 *   middleware: [humanInTheLoop({
 *     interruptOn: { remove_file: true, read_file: false },
 *     descriptionPrefix: "File change pending approval",
 *   })],
 * });
 */
export function humanInTheLoop<C = unknown>(options: HumanInTheLoopOptions<C>): Middleware<C> {
  const {
    interruptOn,
    descriptionPrefix = "Tool execution requires approval",
    tools: schemaTools,
    interruptMode = "all",
    name = "humanInTheLoop",
  } = options ?? ({} as HumanInTheLoopOptions<C>);
  if (interruptMode !== "all" && interruptMode !== "first") {
    throw new AgentConfigError(
      `humanInTheLoop interruptMode is ${JSON.stringify(interruptMode)}; use "all" (one pause for every call that needs review) or "first" (one call per pause).`,
    );
  }
  if (typeof descriptionPrefix !== "string") {
    throw new AgentConfigError("humanInTheLoop descriptionPrefix must be a string.");
  }
  if (schemaTools !== undefined && !Array.isArray(schemaTools)) {
    throw new AgentConfigError("humanInTheLoop tools must be an array of tools.");
  }
  const policies = resolveInterruptOn(interruptOn);
  const overrides = new Map((schemaTools ?? []).map((t) => [t.name, t]));

  const middleware = defineMiddleware<C>({
    name,
    async afterModel(state, runtime) {
      const { reply, calls } = unansweredToolCalls(state.messages ?? []);
      if (!reply) return;
      const answered = state.toolAnswers ?? {};
      const actions: PendingAction<C>[] = [];
      for (const call of calls) {
        if (answered[call.id]) continue;
        const policy = policies.get(call.name);
        if (!policy) continue;
        if (policy.when && (await policy.when(call, state, runtime)) !== true) continue;
        actions.push({ call, policy });
      }
      if (actions.length === 0) return;

      const tools = new Map(
        [...runtime.tools].map(([toolName, t]) => [toolName, overrides.get(toolName) ?? t]),
      );
      const batches = interruptMode === "first" ? actions.map((a) => [a]) : [actions];
      const outcomes = new Map<string, ReviewOutcome>();
      // One interrupt per batch, always in the same order: on resume the node runs again
      // and each interrupt() returns its recorded decisions until the unanswered one.
      for (const batch of batches) {
        const request = await reviewRequest(batch, state, runtime, descriptionPrefix);
        const resume = runtime.interrupt(request);
        const decided = await decide(batch, resume, tools, policies);
        for (const [i, outcome] of decided.entries()) outcomes.set(batch[i]!.call.id, outcome);
      }
      return applyOutcomes(reply, outcomes, answered);
    },
  });
  watchedTools.set(middleware, [...policies.keys()]);
  return middleware;
}

async function reviewRequest<C>(
  batch: readonly PendingAction<C>[],
  state: AgentState,
  runtime: AgentRuntime<C>,
  prefix: string,
): Promise<ReviewRequest> {
  const actionRequests = [];
  for (const { call, policy } of batch) {
    const description =
      typeof policy.description === "function"
        ? await policy.description(call, state, runtime)
        : (policy.description ?? defaultDescription(prefix, call));
    if (typeof description !== "string") {
      throw new AgentConfigError(
        `The description function of interruptOn.${call.name} returned ${typeof description}; it must return a string.`,
      );
    }
    actionRequests.push({ id: call.id, name: call.name, args: call.args, description });
  }
  const deadline = reviewDeadlineOf(batch.map(({ policy }) => policy.deadline));
  return {
    actionRequests,
    reviewConfigs: batch.map(({ call, policy }) => ({
      actionName: call.name,
      allowedDecisions: [...policy.allowedDecisions],
      ...(policy.argsSchema && { argsSchema: policy.argsSchema.json }),
      ...(policy.reviewers && { reviewers: policy.reviewers }),
      ...(policy.approvals > 1 && { approvals: policy.approvals }),
    })),
    ...(deadline && { deadline }),
  };
}

function defaultDescription(prefix: string, call: ToolCall): string {
  return `${prefix}\n\nTool: ${call.name}\nArgs: ${JSON.stringify(call.args, null, 2)}`;
}

/** The state update for the decided calls: edited calls swapped into the reply, answers handed to the tools node. */
function applyOutcomes(
  reply: AssistantMessage,
  outcomes: ReadonlyMap<string, ReviewOutcome>,
  answered: Record<string, ToolMessage>,
): Partial<AgentState> {
  const update: Partial<AgentState> = {};
  const toolCalls = reply.toolCalls.map((call) => {
    const outcome = outcomes.get(call.id);
    return outcome?.kind === "run" ? outcome.call : call;
  });
  if (toolCalls.some((call, i) => call !== reply.toolCalls[i])) {
    if (reply.id === undefined) {
      throw new StateweaverError(
        "REPLY_WITHOUT_ID",
        "An edited tool call cannot be written back: the model's reply has no id to replace it by. The agent's model node gives every reply one; a hook that rewrites the reply must keep its id.",
      );
    }
    update.messages = [{ ...reply, toolCalls }];
  }
  const answers: Record<string, ToolMessage> = {};
  for (const outcome of outcomes.values())
    if (outcome.kind === "answer") answers[outcome.answer.toolCallId] = outcome.answer;
  if (Object.keys(answers).length > 0) update.toolAnswers = { ...answered, ...answers };
  return update;
}
