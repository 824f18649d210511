// The names the runtime reserves: START, END and the node names it keeps for itself.
/** The virtual entry node: `addEdge(START, "first")`. */
export const START = "__start__";
/** The virtual exit node: `addEdge("last", END)`. */
export const END = "__end__";
/**
 * What `updateState`/`bulkUpdateState` take as `asNode` for the run's own input (LangGraph's
 * `"__input__"`): the thread then waits to start from it, as after `invoke` received it.
 */
export const INPUT = "__input__";
export type START = typeof START;
export type END = typeof END;

/** Node names the runtime keeps for itself (`__fanout__` names the fan-out in stored state values). */
export const RESERVED_NODE_NAMES: ReadonlySet<string> = new Set([START, END, INPUT, "__fanout__"]);
