import {
  ConcurrentUpdateError,
  InterruptReplayError,
  InterruptSwallowedError,
  InvalidConfigError,
  InvalidResumeError,
  NonSerializableError,
} from "../errors/index.js";
import { Command } from "../graph/definition/command.js";
import type { NodeFn, NodeRuntime } from "../graph/definition/types.js";
import { message, runToolCall, type ToolMessage } from "../models/index.js";
import { currentTask, isGraphInterrupt } from "../runtime/interrupt.js";
import { WriteList } from "../runtime/write-list.js";
import type { ToolEvent } from "../stream/run-events.js";
import type { AgentRuntime, Middleware, ToolCallRequest } from "./middleware.js";
import { type AgentState, unansweredToolCalls } from "./state.js";
import { commandWrites, type ToolsRoute, toolsGoto } from "./tool-commands.js";

type ToolHandler<C> = (request: ToolCallRequest<C>) => Promise<ToolMessage>;

/** What the tools node is built from. */
export interface ToolsNodeSetup<C> {
  middleware: readonly Middleware<C>[];
  agentRuntime: (runtime: NodeRuntime<C>) => AgentRuntime<C>;
  /**
   * Set in an agent: the node routes itself (it has no static edge), back to the model
   * unless a tool's goto says otherwise (see `toolsGoto`).
   */
  route?: ToolsRoute;
}

/**
 * The agent's `tools` node: answers every unanswered tool call of the model's latest
 * reply, in the order the model made them. A call with an answer from review
 * (`state.toolAnswers`) gets that answer and does not run; the others run through the
 * `wrapToolCall` onion (first middleware outermost).
 *
 * A tool's own errors become error tool messages the model can act on; errors about the
 * run itself (a pause, a refused resume inside a subagent, a missing checkpointer…) are
 * rethrown so the run stops or pauses instead.
 *
 * Calls run one after another, not in parallel: their side effects happen in the model's
 * order, and an `interrupt()` inside a tool is reached in the same order on every replay.
 * When such an interrupt resumes, the node starts again, so the tools before it run again:
 * keep them idempotent.
 *
 * @example
 * graph.addNode("tools", toolsNode({ middleware, agentRuntime }));
 */
export function toolsNode<C>(setup: ToolsNodeSetup<C>): NodeFn<AgentState, C> {
  const { middleware, agentRuntime } = setup;
  // A tool may return a Command: its tool message goes through the middleware like any
  // other; its other writes and its goto are kept here, by call id, for this node's result.
  const wrap = (innermost: ToolHandler<C>) =>
    middleware.reduceRight<ToolHandler<C>>(
      (next, mw) => (mw.wrapToolCall ? (request) => mw.wrapToolCall!(request, next) : next),
      innermost,
    );
  return async (state, nodeRuntime) => {
    const runtime = agentRuntime(nodeRuntime);
    const { calls } = unansweredToolCalls(state.messages ?? []);
    const answers = state.toolAnswers ?? {};
    const commands = new Map<string, Command>();
    const run = wrap((request) =>
      runTool(request, (command) => commands.set(request.call.id, command)),
    );
    const results: ToolMessage[] = [];
    const report = toolReporter();
    for (const call of calls) {
      const answer = answers[call.id];
      if (answer) {
        results.push(answer);
        continue;
      }
      report?.({ event: "start", toolCall: call });
      let result: ToolMessage;
      try {
        result = await run({ call, tool: runtime.tools.get(call.name), state, runtime });
      } catch (error) {
        // A pause is not a failure: the call runs again on resume.
        if (!isGraphInterrupt(error)) {
          report?.({ event: "error", toolCall: call, error: errorText(error) });
        }
        throw error;
      }
      report?.(
        result.status === "error"
          ? { event: "error", toolCall: call, error: result.content }
          : { event: "end", toolCall: call, content: result.content },
      );
      results.push(result);
    }
    const cleared = Object.keys(answers).length > 0 ? { toolAnswers: {} } : undefined;
    const route = setup.route;
    const goto = route ? toolsGoto(calls, commands, route, runtime.agentName) : undefined;
    if (commands.size === 0) {
      const update = { messages: results, ...cleared };
      return goto === undefined ? update : (new Command({ update, goto }) as never);
    }
    const written = commandWrites(calls, results, commands);
    if (cleared) written.writes.push(["toolAnswers", {}]);
    return new Command({
      update: new WriteList(written.writes),
      goto: goto ?? written.goto,
    }) as never;
  };
}

/** Where tool events go while the run is streamed; nothing (no work) otherwise. */
function toolReporter(): ((event: ToolEvent) => void) | undefined {
  const task = currentTask.getStore();
  const emit = task?.env.emit;
  if (!task || !emit) return undefined;
  return (event) => emit({ type: "tool", ns: task.ns, step: task.step, node: task.node, event });
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The innermost handler: run the tool, or tell the model it named a tool that does not exist. */
function runTool<C>(
  { call, tool, state, runtime }: ToolCallRequest<C>,
  onCommand: (command: Command) => void,
): Promise<ToolMessage> {
  if (!tool) {
    const known = [...runtime.tools.keys()];
    return Promise.resolve(
      message.tool({
        toolCallId: call.id,
        name: call.name,
        status: "error",
        content: `Error: there is no tool named "${call.name}". Available tools: ${known.join(", ") || "none"}.`,
      }),
    );
  }
  return runToolCall(
    tool,
    call,
    { signal: runtime.signal, state, context: runtime.context, config: runtime.config },
    { propagate: concernsTheRun, onCommand },
  );
}

// Errors about the run rather than the tool's work (a pause, a refused resume in a
// subagent, a replay mismatch, a missing checkpointer…) must reach the caller: answering
// them to the model would move the thread on as if the tool had replied.
const RUN_ERRORS = [
  InvalidResumeError,
  InvalidConfigError,
  InterruptReplayError,
  InterruptSwallowedError,
  ConcurrentUpdateError,
  NonSerializableError,
];

function concernsTheRun(error: unknown): boolean {
  return isGraphInterrupt(error) || RUN_ERRORS.some((type) => error instanceof type);
}
