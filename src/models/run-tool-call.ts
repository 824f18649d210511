import { z } from "zod";
import { type Command, isCommand } from "../control/index.js";
import { message, type ToolCall, type ToolMessage } from "./message.js";
import type { Tool } from "./tool.js";

/**
 * What the caller adds to the runtime a tool receives; `toolCall` is filled in from the call.
 *
 * @example
 * await runToolCall(readFile, call, { signal, state, context });
 */
export interface ToolCallRuntime {
  signal?: AbortSignal;
  [key: string]: unknown;
}

/**
 * How `runToolCall` treats errors that are not the tool's own failure.
 *
 * @example
 * await runToolCall(askHuman, call, { signal }, { propagate: isGraphInterrupt });
 */
export interface RunToolCallOptions {
  /**
   * Return true for errors that must reach the caller instead of the model, such as the
   * graph's interrupt signal raised inside a tool.
   */
  propagate?: (error: unknown) => boolean;
  /**
   * Takes a `Command` a tool returned (its `update` and `goto` for the graph to apply).
   * Without it such a tool is answered with an error message: only a graph's tools node
   * (`toolNode`, an agent's) can apply a command.
   */
  onCommand?: (command: Command) => void;
}

/**
 * Runs one tool call and always answers with a tool message the model can read: arguments
 * that fail the tool's schema and errors the tool throws become `status: "error"` messages,
 * so the model can correct itself. Non-string results are sent as JSON.
 *
 * Two kinds of error are rethrown instead: any error once `runtime.signal` has aborted (the
 * run is stopping, the tool did not fail), and errors `options.propagate` selects.
 *
 * @example
 * const reply = await model.invoke(messages, { tools: [readFile] });
 * for (const call of reply.toolCalls) {
 *   messages.push(await runToolCall(readFile, call, { signal }));
 * }
 */
export async function runToolCall(
  tool: Tool<any, any>,
  call: ToolCall,
  runtime: ToolCallRuntime = {},
  options: RunToolCallOptions = {},
): Promise<ToolMessage> {
  const reply = (content: string, status: "success" | "error") =>
    message.tool({ toolCallId: call.id, name: tool.name, content, status });

  const parsed = await z.safeParseAsync(tool.schema, call.args);
  if (!parsed.success) {
    return reply(describeInvalidArgs(tool.name, parsed.error.issues), "error");
  }

  const signal = runtime.signal ?? new AbortController().signal;
  let result: unknown;
  try {
    result = await tool.run(parsed.data, { ...runtime, signal, toolCall: call });
  } catch (error) {
    if (signal.aborted || options.propagate?.(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    return reply(`Error: tool "${tool.name}" failed: ${reason}`, "error");
  }

  if (isCommand(result)) {
    if (!options.onCommand) {
      return reply(
        `Error: tool "${tool.name}" returned a Command, which only a graph's tools node can apply; return a string or JSON here.`,
        "error",
      );
    }
    options.onCommand(result);
    return commandReply(result, call, tool.name);
  }
  if (typeof result === "string") return reply(result, "success");
  try {
    // A tool that returns nothing still owes the model an answer; undefined is sent as null.
    return reply(JSON.stringify(result ?? null), "success");
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return reply(
      `Error: tool "${tool.name}" returned a value that cannot be sent as JSON: ${reason}`,
      "error",
    );
  }
}

/**
 * The tool message that answers a call whose tool returned a `Command`: the one in its
 * `update.messages` with this call's id, or else a short note of what it updated.
 */
function commandReply(command: Command, call: ToolCall, name: string): ToolMessage {
  const update = (command.update ?? {}) as Record<string, unknown>;
  const listed = update.messages;
  const messages = Array.isArray(listed) ? listed : listed === undefined ? [] : [listed];
  const own = messages.find(
    (m): m is ToolMessage => m?.role === "tool" && m.toolCallId === call.id,
  );
  if (own) return own;
  const keys = Object.keys(update).filter((k) => k !== "messages");
  const content = keys.length > 0 ? `Updated ${keys.join(", ")}.` : "Done.";
  return message.tool({ toolCallId: call.id, name, content, status: "success" });
}

function describeInvalidArgs(name: string, issues: readonly z.core.$ZodIssue[]): string {
  const lines = issues.map((issue) => `- ${formatPath(issue.path)}: ${issue.message}`);
  return [
    `Error: invalid arguments for tool "${name}":`,
    ...lines,
    "Call the tool again with arguments that match its schema.",
  ].join("\n");
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(arguments)";
  return path
    .map((key, i) => (typeof key === "number" ? `[${key}]` : `${i === 0 ? "" : "."}${String(key)}`))
    .join("");
}
