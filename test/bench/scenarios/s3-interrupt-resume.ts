/** S3: interrupt -> resume on a new thread each time (memory checkpointer); final state checked. */
import { Command, MemorySaver } from "@langchain/langgraph";
import { MemoryCheckpointer } from "stateweaver/checkpoint";
import * as peer from "../graphs/langgraph.js";
import * as ours from "../graphs/ours.js";
import { comparePair } from "../measure.js";
import { check, result, type Scenario } from "../scenario.js";

export const TARGET = 0.1;
const QUESTION = "Go ahead with this?";

export const s3: Scenario = {
  id: "S3",
  title: "interrupt -> resume cycle, new thread each, memory checkpointer",
  async run({ quick }) {
    let thread = 0;
    const o = ours.approval(new MemoryCheckpointer());
    const p = peer.approval(new MemorySaver());
    const m = await comparePair(
      async () => {
        const config = { configurable: { thread_id: `s3-${thread++}` } };
        const paused = await o.invoke({ details: "Transfer $500" }, { config });
        check(
          paused.status === "interrupted" &&
            (paused.interrupt.value as { question?: string }).question === QUESTION,
          "S3 ours paused with the question",
          paused,
        );
        const done = await o.resume(true, { config });
        check(
          done.status === "done" &&
            done.state.approved === true &&
            done.state.details === "Transfer $500",
          "S3 ours final state",
          done,
        );
      },
      async () => {
        const config = { configurable: { thread_id: `s3-${thread++}` } };
        const paused = await p.invoke({ details: "Transfer $500" }, config);
        check(
          (paused.__interrupt__?.[0]?.value as { question?: string } | undefined)?.question ===
            QUESTION,
          "S3 peer paused with the question",
          paused,
        );
        const done = await p.invoke(new Command({ resume: true }), config);
        check(
          done.approved === true && done.details === "Transfer $500" && !done.__interrupt__,
          "S3 peer final state",
          done,
        );
      },
      quick ? { warmup: 5, batches: 3, batchSize: 5 } : { warmup: 300, batches: 15, batchSize: 20 },
    );
    return result({
      scenario: "S3",
      title: this.title,
      ours_us: m.ours_us,
      peer_us: m.peer_us,
      target: TARGET,
      peer: "LangGraph.js",
    });
  },
};
