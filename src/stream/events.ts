import type { InterruptRecord } from "../checkpoint/checkpointer.js";

/**
 * The typed envelopes `stream()` yields, in the order things happen.
 *
 * @example
 * for await (const ev of graph.stream(input, { config })) {
 *   if (ev.type === "updates") console.log(ev.node, ev.update);
 * }
 */
export type StreamEvent =
  /**
   * A task finished: what its node wrote. `update` has the last write of each key;
   * `writes` every write in order (a subgraph node's child run may write a key several times).
   */
  | {
      type: "updates";
      ns: string;
      step: number;
      node: string;
      update: Record<string, unknown>;
      writes: ReadonlyArray<[string, unknown]>;
    }
  /** A barrier was reached: the whole state after the step's writes merged. */
  | { type: "values"; ns: string; step: number; values: Record<string, unknown> }
  /** A chat model called by an agent's model node produced text (only while streaming). */
  | { type: "messages"; ns: string; step: number; node: string; delta: string }
  /** A node emitted something through `runtime.writer`. */
  | { type: "custom"; ns: string; step: number; node: string; data: unknown }
  /** The run paused. */
  | { type: "interrupt"; ns: string; interrupts: InterruptRecord[] }
  /** The run finished. */
  | { type: "done"; ns: string; state: Record<string, unknown> };
