import { toJsonValue } from "../checkpoint/serde.js";
import { type Command, type GotoTarget, isSend, type Send } from "../control/index.js";
import { AgentConfigError } from "../errors/index.js";
import { END } from "../graph/definition/constants.js";
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

/**
 * Where an agent's tools node may go: `back` (the first node before the model) when no
 * tool says otherwise, or any of `nodes` (the agent's nodes and `END`) a tool's goto names.
 *
 * @example
 * const route: ToolsRoute = { back: "model", nodes: ["model", "tools", END] };
 */
export interface ToolsRoute {
  back: string;
  nodes: readonly string[];
}

/**
 * The next step of an agent's tools node. Without gotos it goes `back` to the model. With
 * some, the gotos replace that edge: every target named, in the model's call order, each
 * node once (a `Send` each time); `END` ends the run only when it is all the tools named,
 * so a tool that goes on wins over one that stops. A target that is not one of the agent's
 * nodes is an `AgentConfigError` naming the tool.
 *
 * @example
 * toolsGoto(calls, commands, { back: "model", nodes: ["model", "tools", END] }, "agent"); // ["model"]
 */
export function toolsGoto(
  calls: readonly ToolCall[],
  commands: ReadonlyMap<string, Command>,
  route: ToolsRoute,
  agentName: string,
): Array<string | Send> {
  const targets: Array<string | Send> = [];
  for (const call of calls) {
    const goto = commands.get(call.id)?.goto;
    if (goto === undefined) continue;
    for (const target of (Array.isArray(goto) ? goto : [goto]) as Array<string | Send>) {
      const node = isSend(target) ? target.node : target;
      if (typeof node !== "string" || !route.nodes.includes(node)) {
        throw new AgentConfigError(
          `Tool "${call.name}" returned Command goto ${JSON.stringify(node)}, but agent "${agentName}" has no such node. A tool of an agent can go to ${route.nodes.map((n) => `"${n}"`).join(", ")}; return no goto to go back to the model.`,
        );
      }
      if (isSend(target) || !targets.includes(node)) targets.push(target);
    }
  }
  if (targets.length === 0) return [route.back];
  const onward = targets.filter((t) => t !== END);
  return onward.length > 0 ? onward : [END];
}
