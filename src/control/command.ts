// The value type `Command`, shared by the graph, agent and model layers (nodes, tools and callers return or send it).
import { brandClass, hasBrand, isBrandedInstance } from "./brand.js";
import type { Send } from "./send.js";

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
 * the caller's way to resume a paused run through `invoke`. `instanceof Command` and
 * {@link isCommand} recognise a `Command` made by any copy of stateweaver (a server's
 * and the one a user's graph module imports).
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

  static [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of instanceof (a subclass too)
    return isBrandedInstance(this, value);
  }
}

const COMMAND = brandClass(Command, "Command");

/**
 * True for a `Command`, whichever copy of stateweaver made it.
 *
 * @example
 * if (isCommand(result)) applyUpdate(result.update);
 */
export function isCommand(value: unknown): value is Command<any> {
  return hasBrand(value, COMMAND);
}
