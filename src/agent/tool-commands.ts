import { toJsonValue } from "../checkpoint/serde.js";
import type { Command, GotoTarget, Send } from "../graph/command.js";
import type { ToolCall, ToolMessage } from "../models/index.js";

/**
 * A tools node's result when some tools returned a `Command`: one ordered list of writes,
 * call by call in the model's order (each call's tool message first, then the rest of its
 * command's update), so every write passes through the graph's reducers as it happened —
 * two tools appending to one list both land. The gotos of all commands, joined.
 *
 * @example
 * const { writes, goto } = commandWrites(calls, results, commands);
 * return new Command({ update: new WriteList(writes), goto });
 */
export function commandWrites(
  calls: readonly ToolCall[],
  results: readonly ToolMessage[],
  commands: ReadonlyMap<string, Command>,
): { writes: Array<[string, unknown]>; goto: Array<string | Send> | undefined } {
  const list: Array<[string, unknown]> = [];
  const goto: GotoTarget[] = [];
  const write = (key: string, value: unknown) => {
    const json = toJsonValue(value, "state", key);
    if (json !== undefined) list.push([key, json]);
  };
  for (const [i, call] of calls.entries()) {
    const result = results[i]!;
    const command = commands.get(call.id);
    const update = (command?.update ?? {}) as Record<string, unknown>;
    const listed = update.messages;
    const others = (Array.isArray(listed) ? listed : listed === undefined ? [] : [listed]).filter(
      (m) => !(m?.role === "tool" && m.toolCallId === call.id),
    );
    write("messages", [result, ...others]);
    for (const [key, value] of Object.entries(update)) {
      if (key !== "messages" && value !== undefined) write(key, value);
    }
    if (command?.goto !== undefined) goto.push(command.goto);
  }
  return {
    writes: list,
    goto: goto.length > 0 ? (goto.flat() as Array<string | Send>) : undefined,
  };
}
