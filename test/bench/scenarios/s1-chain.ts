/** S1: a linear chain of 10 nodes, each adding 1, no checkpointer. */
import * as peer from "../graphs/langgraph.js";
import * as ours from "../graphs/ours.js";
import { comparePair } from "../measure.js";
import { check, result, type Scenario } from "../scenario.js";

export const TARGET = 0.1;

export const s1: Scenario = {
  id: "S1",
  title: "linear chain, 10 nodes, no checkpointer",
  async run({ quick }) {
    const o = ours.chain(10);
    const p = peer.chain(10);
    const m = await comparePair(
      async () => {
        const r = await o.invoke({ n: 0 });
        check(r.status === "done" && r.state.n === 10, "S1 ours n === 10", r);
      },
      async () => {
        const r = await p.invoke({ n: 0 });
        check(r.n === 10, "S1 peer n === 10", r);
      },
      quick ? { warmup: 5, batches: 3, batchSize: 5 } : { warmup: 300, batches: 15, batchSize: 20 },
    );
    return result({
      scenario: "S1",
      title: this.title,
      ours_us: m.ours_us,
      peer_us: m.peer_us,
      target: TARGET,
      peer: "LangGraph.js",
    });
  },
};
