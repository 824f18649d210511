/**
 * `Send(node, arg)` schedules one task of `node` in the next step, called with
 * `arg` instead of the graph state: the map half of map-reduce.
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
}

/** Where a node or router may send control: node names, `END`, or `Send`s. */
export type GotoTarget = string | Send | ReadonlyArray<string | Send>;

export interface CommandInit<U = Record<string, unknown>> {
  /** State update applied like a node's returned object. */
  update?: U;
  /** Nodes to run next (in addition to static edges). Declare them with `addNode(…, { ends })`. */
  goto?: GotoTarget;
  /** As graph input: the value to resume pending interrupts with (same as `resume()`). */
  resume?: unknown;
  /** `Command.PARENT` routes `goto`/`update` in the graph that called this subgraph. */
  graph?: typeof Command.PARENT;
}

/**
 * A node's way to update state and choose where to go in one return value, and
 * the caller's way to resume a paused run through `invoke`.
 *
 * @example
 * .addNode("approve", () => (interrupt("Proceed?") ? new Command({ goto: "proceed" })
 *                                                  : new Command({ goto: "cancel" })),
 *          { ends: ["proceed", "cancel"] })
 * await graph.invoke(new Command({ resume: true }), { config });
 */
export class Command<U = Record<string, unknown>> {
  static readonly PARENT = "__parent__" as const;
  readonly update: U | undefined;
  readonly goto: GotoTarget | undefined;
  readonly resume: unknown;
  readonly graph: typeof Command.PARENT | undefined;
  /** Whether `resume` was given at all (so `resume: null` and "no resume" differ). */
  readonly hasResume: boolean;
  constructor(init: CommandInit<U>) {
    this.update = init.update;
    this.goto = init.goto;
    this.resume = init.resume;
    this.graph = init.graph;
    this.hasResume = "resume" in init;
  }
}

/** The explicit "resume with `null`" value: `resume(nullResume, { config })`. */
export const nullResume: unique symbol = Symbol.for("stateweaver.nullResume");
export type NullResume = typeof nullResume;
