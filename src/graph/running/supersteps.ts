// Updates written into a thread as super-steps (updateState, bulkUpdateState): checked, then made events.
import { InvalidConfigError, InvalidUpdateError } from "../../errors/index.js";
import type { GraphContext } from "../../runtime/task.js";
import type { GraphEvent } from "../compiling/compile.js";
import { END, INPUT, START } from "../definition/constants.js";
import type { State } from "../definition/types.js";

/**
 * One update of a super-step: `values` written as node `asNode` wrote them, so its edges
 * pick what runs next. `asNode` may also be `START` (`"__start__"`: the input as the graph's
 * entry applies it), `"__input__"` (the run's input, as `invoke` receives it: the thread waits
 * to start from it), `END` (the thread's pending work ends), or left out (the values are
 * written in place and what was next stays next; alone in its super-step only).
 *
 * @example
 * const update: SuperstepUpdate = { values: { messages: [reply] }, asNode: "agent" };
 */
export interface SuperstepUpdate<S extends State = State> {
  values: Partial<S> | null;
  asNode?: string | undefined;
}

/**
 * Updates applied together as one super-step: their writes merge at one barrier (through
 * the reducers, as the writes of nodes that ran in one step do), and one checkpoint is
 * written for them. `"__input__"`, `END` and an update without `asNode` stand alone.
 *
 * @example
 * const step: Superstep = { updates: [{ values: { a: 1 }, asNode: "left" }, { values: { b: 2 }, asNode: "right" }] };
 */
export interface Superstep<S extends State = State> {
  updates: ReadonlyArray<SuperstepUpdate<S>>;
}

/** Turns an update's values into writes for a context, checked against the schema. */
type WritesOf = (context: GraphContext, values: unknown, node: string) => Array<[string, unknown]>;

/**
 * Throw for supersteps that cannot be applied as given, before anything is written:
 * `InvalidUpdateError` for none, an empty one, or an update that must stand alone in
 * company; `InvalidConfigError` for an unknown node (as `updateState` always did).
 */
export function checkSupersteps(
  supersteps: ReadonlyArray<Superstep>,
  nodes: readonly string[],
): void {
  if (!Array.isArray(supersteps) || supersteps.length === 0) {
    throw new InvalidUpdateError(
      "bulkUpdateState() got no supersteps: pass at least one, e.g. [{ updates: [{ values, asNode }] }].",
    );
  }
  for (const [i, step] of supersteps.entries()) {
    const updates = step?.updates;
    if (!Array.isArray(updates) || updates.length === 0) {
      throw new InvalidUpdateError(
        `Superstep ${i} has no updates: give it at least one, e.g. { updates: [{ values, asNode: "${nodes[0] ?? "node"}" }] }.`,
      );
    }
    for (const { asNode } of updates) {
      if (asNode === undefined || asNode === START || asNode === END || asNode === INPUT) continue;
      if (!nodes.includes(asNode)) {
        const where = supersteps.length > 1 ? `superstep ${i}, ` : "";
        throw new InvalidConfigError(
          `updateState(…, ${where}asNode: "${asNode}"): no such node. Known nodes: ${nodes.join(", ")}; or "${START}" (the graph's entry), "${INPUT}" (the run's input), or END to end the thread's pending work.`,
        );
      }
    }
    if (updates.length === 1) continue;
    const alone = updates.find(
      (u) => u.asNode === undefined || u.asNode === END || u.asNode === INPUT,
    );
    if (alone) {
      throw new InvalidUpdateError(
        `Superstep ${i} has ${updates.length} updates, one of them ${alone.asNode === undefined ? "without asNode" : `as "${alone.asNode}"`}, which stands alone: give each update the node it comes from, or put that one in a superstep of its own.`,
      );
    }
  }
}

/**
 * The event that applies one super-step to the run at `context`, and why its checkpoint is
 * written (`"input"` for the run's input, else `"update"`). Throws what the values' check
 * throws (`InvalidUpdateError`, `NonSerializableError`).
 */
export function superstepEvent(
  step: Superstep,
  context: GraphContext,
  writesOf: WritesOf,
): { event: GraphEvent; source: "input" | "update" } {
  const [first, ...rest] = step.updates as [SuperstepUpdate, ...SuperstepUpdate[]];
  if (first.asNode === INPUT) {
    const update = Object.fromEntries(writesOf(context, first.values, START));
    if (Object.keys(update).length === 0) {
      throw new InvalidUpdateError(
        `An update as "${INPUT}" is the run's input and needs values, e.g. { messages: [...] }; it got ${JSON.stringify(first.values)}.`,
      );
    }
    return { event: { type: "INPUT", update }, source: "input" };
  }
  const updateOf = (u: SuperstepUpdate) =>
    Object.fromEntries(writesOf(context, u.values, u.asNode ?? "updateState"));
  const event: GraphEvent = { type: "UPDATE", update: updateOf(first), asNode: first.asNode };
  if (rest.length > 0) {
    event.alongside = rest.map((u) => ({ asNode: u.asNode!, update: updateOf(u) }));
  }
  return { event, source: "update" };
}
