/** S4: fan-out to 50 parallel nodes appending to a list (concat reducer), then a join. */
import * as peer from "../graphs/langgraph.js";
import * as ours from "../graphs/ours.js";
import { comparePair } from "../measure.js";
import { check, result, type Scenario } from "../scenario.js";

export const TARGET = 0.1;
const WIDTH = 50;

function allBranches(items: unknown): boolean {
  if (!Array.isArray(items) || items.length !== WIDTH) return false;
  const sorted = [...items].sort((a, b) => a - b);
  return sorted.every((x, i) => x === i);
}

export const s4: Scenario = {
  id: "S4",
  title: "fan-out to 50 parallel nodes + concat reducer + join",
  async run({ quick }) {
    const o = ours.fanOut(WIDTH);
    const p = peer.fanOut(WIDTH);
    const m = await comparePair(
      async () => {
        const r = await o.invoke({ items: [] });
        check(
          r.status === "done" && allBranches(r.state.items) && r.state.count === WIDTH,
          "S4 ours: 50 items, joined once",
          r,
        );
      },
      async () => {
        const r = await p.invoke({ items: [] });
        check(allBranches(r.items) && r.count === WIDTH, "S4 peer: 50 items, joined once", r);
      },
      quick ? { warmup: 2, batches: 3, batchSize: 2 } : { warmup: 30, batches: 9, batchSize: 5 },
    );
    return result({
      scenario: "S4",
      title: this.title,
      ours_us: m.ours_us,
      peer_us: m.peer_us,
      target: TARGET,
      peer: "LangGraph.js",
    });
  },
};
