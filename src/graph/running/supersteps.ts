// Updates written into a thread as super-steps (updateState, bulkUpdateState): checked, then made events.
import { InvalidConfigError, InvalidUpdateError } from "../../errors/index.js";
import type { GraphContext } from "../../runtime/task.js";
import type { GraphEvent } from "../compiling/compile.js";
import { type Command, isCommand } from "../definition/command.js";
import { END, INPUT, START } from "../definition/constants.js";
import type { State } from "../definition/types.js";

/**
 * One update of a super-step: `values` written as node `asNode` wrote them, so its edges
 * pick what runs next. `asNode` may also be `START` (`"__start__"`: the input as the graph's
 * entry applies it), `"__input__"` (the run's input, as `invoke` receives it: the thread waits
 * to start from it), `END` (the thread's pending work ends), or left out (the node that ran
 * last, as LangGraph infers it; on a paused run, written in place; alone in its super-step only).
 * `values` may be a `Command`, as LangGraph takes it: its `update` is written as the node
 * wrote it, and its `goto` (node names) is where control goes next, as if the node had
 * returned that Command (a node's goto targets are in its `ends`).
 *
 * @example
 * const update: SuperstepUpdate = { values: { messages: [reply] }, asNode: "agent" };
 * const routed: SuperstepUpdate = { values: new Command({ update: { ok: true }, goto: "ship" }), asNode: "review" };
 */
export interface SuperstepUpdate<S extends State = State> {
  values: Partial<S> | Command<Partial<S>> | null;
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
    for (const { asNode, values } of updates) {
      checkCommand(values, asNode, nodes);
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
 * A superstep's Command: an update and a goto of node names, from a node or START. A resume
 * is refused (a superstep writes what nodes wrote; LangGraph's writers drop it unread), and
 * so is a goto from an update that is not a node's.
 */
function checkCommand(values: unknown, asNode: string | undefined, nodes: readonly string[]) {
  if (!isCommand(values)) return;
  if (values.hasResume) {
    throw new InvalidUpdateError(
      `An update's Command carries a resume, which a superstep cannot apply (it writes what nodes wrote): answer the thread's interrupts with a run's command.resume (graph.resume()) after writing it.`,
    );
  }
  if (values.goto === undefined) return;
  const targets = Array.isArray(values.goto) ? values.goto : [values.goto];
  const bad = targets.find((t) => typeof t !== "string" || (t !== END && !nodes.includes(t)));
  if (bad !== undefined) {
    throw new InvalidUpdateError(
      `An update's Command goto names ${typeof bad === "string" ? `"${bad}", no node of this graph` : "a Send"}: a superstep's goto names nodes (${nodes.join(", ")}) or END.`,
    );
  }
  if (asNode === undefined || asNode === END || asNode === INPUT) {
    throw new InvalidUpdateError(
      `An update's Command goto is where its node sends control next, so it needs asNode naming a node or "${START}"; got ${asNode === undefined ? "none" : `"${asNode}"`}.`,
    );
  }
}

/** A superstep update's values and goto (a Command's update and goto, else the values as given). */
function partsOf(u: SuperstepUpdate): { values: unknown; goto?: string[] } {
  if (!isCommand(u.values)) return { values: u.values };
  const goto = u.values.goto;
  return {
    values: u.values.update ?? null,
    ...(goto !== undefined && { goto: (Array.isArray(goto) ? goto : [goto]) as string[] }),
  };
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
    const update = Object.fromEntries(writesOf(context, partsOf(first).values, START));
    if (Object.keys(update).length === 0) {
      throw new InvalidUpdateError(
        `An update as "${INPUT}" is the run's input and needs values, e.g. { messages: [...] }; it got ${JSON.stringify(first.values)}.`,
      );
    }
    return { event: { type: "INPUT", update }, source: "input" };
  }
  const updateOf = (u: SuperstepUpdate) => {
    const { values, goto } = partsOf(u);
    const update = Object.fromEntries(writesOf(context, values, u.asNode ?? "updateState"));
    return { update, ...(goto && { goto }) };
  };
  const event: GraphEvent = { type: "UPDATE", ...updateOf(first), asNode: first.asNode };
  if (rest.length > 0) {
    event.alongside = rest.map((u) => ({ asNode: u.asNode!, ...updateOf(u) }));
  }
  return { event, source: "update" };
}
