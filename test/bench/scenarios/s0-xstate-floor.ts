/**
 * S0: the floor. S1's graph (ten nodes, each adding 1 to `n`) next to a bare XState
 * machine of the same shape: ten states, each an `entry: assign(...)` adding 1, chained by
 * `always` to a final state, one `createActor(...).start()` per operation. The ratio is
 * what stateweaver's runtime costs on top of XState itself for the same work
 * (`peer` here is XState, not LangGraph.js).
 */
import { assign, createActor, setup } from "xstate";
import * as ours from "../graphs/ours.js";
import { comparePair } from "../measure.js";
import { check, result, type Scenario } from "../scenario.js";

/** S1 costs at most three times the bare machine. */
export const TARGET = 3;

/** Ten states adding 1 each, as S1's chain does, with nothing of stateweaver's around them. */
export function bareChain(length: number) {
  const states: Record<string, object> = {};
  for (let i = 0; i < length; i++) {
    states[`n${i}`] = {
      entry: assign({ n: ({ context }: { context: { n: number } }) => context.n + 1 }),
      always: { target: i + 1 < length ? `n${i + 1}` : "done" },
    };
  }
  states.done = { type: "final" };
  return setup({
    types: { context: {} as { n: number }, output: {} as { n: number } },
  }).createMachine({
    id: `BareChain${length}`,
    context: { n: 0 },
    initial: "n0",
    states,
    output: ({ context }) => ({ n: context.n }),
  });
}

export const s0: Scenario = {
  id: "S0",
  title: "S1's chain vs a bare XState machine of its shape (the floor)",
  async run({ quick }) {
    const graph = ours.chain(10);
    const machine = bareChain(10);
    const m = await comparePair(
      async () => {
        const r = await graph.invoke({ n: 0 });
        check(r.status === "done" && r.state.n === 10, "S0 ours n === 10", r);
      },
      async () => {
        const actor = createActor(machine).start();
        const snapshot = actor.getSnapshot();
        check(
          snapshot.status === "done" && snapshot.output?.n === 10,
          "S0 bare n === 10",
          snapshot.output,
        );
      },
      quick ? { warmup: 5, batches: 3, batchSize: 5 } : { warmup: 300, batches: 15, batchSize: 20 },
    );
    return result({
      scenario: "S0",
      title: this.title,
      ours_us: m.ours_us,
      peer_us: m.peer_us,
      target: TARGET,
      peer: "a bare XState v5 machine of S1's shape (createActor(...).start() per operation)",
    });
  },
};
