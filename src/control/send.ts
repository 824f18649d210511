// The value type `Send`, shared by the graph, agent and model layers (a tool may return one inside a Command).
import { brandClass, hasBrand, isBrandedInstance } from "./brand.js";

/**
 * `Send(node, arg)` schedules one task of `node` in the next step, called with
 * `arg` instead of the graph state: the map half of map-reduce. `instanceof Send` and
 * {@link isSend} recognise a `Send` made by any copy of stateweaver.
 *
 * @example
 * graph.addConditionalEdges("plan", (s) => s.topics.map((t) => new Send("write", { topic: t })));
 */
export class Send<A = unknown> {
  readonly node: string;
  readonly arg: A;
  constructor(node: string, arg: A) {
    this.node = node;
    this.arg = arg;
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of instanceof (a subclass too)
    return isBrandedInstance(this, value);
  }
}

const SEND = brandClass(Send, "Send");

/**
 * True for a `Send`, whichever copy of stateweaver made it.
 *
 * @example
 * const sends = targets.filter(isSend).map((s) => s.node);
 */
export function isSend(value: unknown): value is Send {
  return hasBrand(value, SEND);
}
