import { brandClass, hasBrand, isBrandedInstance } from "../control/brand.js";

/**
 * A node result that is an ordered list of writes rather than an object: how a
 * subgraph hands its nodes' writes to the parent, one by one, so each passes
 * through the parent's reducers exactly as it happened (no list is appended twice).
 */
export class WriteList {
  readonly writes: ReadonlyArray<[string, unknown]>;
  /**
   * What the parent's `updates` stream shows for the node, when not the writes: a
   * subgraph's final values (LangGraph shows a subgraph node's output there).
   */
  readonly shown: Record<string, unknown> | undefined;
  constructor(writes: ReadonlyArray<[string, unknown]>, shown?: Record<string, unknown>) {
    this.writes = writes;
    this.shown = shown;
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of instanceof (a subclass too)
    return isBrandedInstance(this, value);
  }
}

// Branded: a subgraph compiled by another copy of stateweaver hands its parent a WriteList too.
const WRITE_LIST = brandClass(WriteList, "WriteList");

/** True for a `WriteList`, whichever copy of stateweaver made it. */
export function isWriteList(value: unknown): value is WriteList {
  return hasBrand(value, WRITE_LIST);
}
