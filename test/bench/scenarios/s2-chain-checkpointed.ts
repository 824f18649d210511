/**
 * S2: the S1 chain with the memory checkpointer, a new thread per invoke; then the heap
 * each side retains per thread after 2,000 threads.
 */
import { MemorySaver } from "@langchain/langgraph";
import { MemoryCheckpointer } from "stateweaver/checkpoint";
import * as peer from "../graphs/langgraph.js";
import * as ours from "../graphs/ours.js";
import { comparePair, retainedPerItem } from "../measure.js";
import { check, result, round, type Scenario } from "../scenario.js";

export const TARGET = 0.1;
export const HEAP_TARGET = 0.25;
const HEAP_THREADS = 2000;

export const s2: Scenario = {
  id: "S2",
  title: "linear chain, 10 nodes, memory checkpointer, new thread per invoke",
  async run({ quick, log }) {
    let thread = 0;
    const o = ours.chain(10, new MemoryCheckpointer());
    const p = peer.chain(10, new MemorySaver());
    const m = await comparePair(
      async () => {
        const config = { configurable: { thread_id: `s2-${thread++}` } };
        const r = await o.invoke({ n: 0 }, { config });
        check(r.status === "done" && r.state.n === 10, "S2 ours n === 10", r);
      },
      async () => {
        const r = await p.invoke({ n: 0 }, { configurable: { thread_id: `s2-${thread++}` } });
        check(r.n === 10, "S2 peer n === 10", r);
      },
      quick ? { warmup: 5, batches: 3, batchSize: 5 } : { warmup: 300, batches: 15, batchSize: 20 },
    );

    const threads = quick ? 200 : HEAP_THREADS;
    log(`  S2 heap: ${threads} threads per side…`);
    // Fresh graphs and stores: what is measured is what the threads leave behind.
    const oursStore = new MemoryCheckpointer();
    const oursGraph = ours.chain(10, oursStore);
    const oursHeap = await retainedPerItem(
      threads,
      async (i) => {
        const config = { configurable: { thread_id: `heap-${i}` } };
        const r = await oursGraph.invoke({ n: 0 }, { config });
        check(r.status === "done" && r.state.n === 10, "S2 heap ours n === 10", r);
      },
      async () => {
        const tuple = await oursStore.getLatest(`heap-${threads - 1}`);
        check(tuple?.checkpoint.values.n === 10, "S2 heap ours: last thread retained", tuple);
      },
    );
    const peerStore = new MemorySaver();
    const peerGraph = peer.chain(10, peerStore);
    const peerHeap = await retainedPerItem(
      threads,
      async (i) => {
        const r = await peerGraph.invoke({ n: 0 }, { configurable: { thread_id: `heap-${i}` } });
        check(r.n === 10, "S2 heap peer n === 10", r);
      },
      async () => {
        const tuple = await peerStore.getTuple({
          configurable: { thread_id: `heap-${threads - 1}`, checkpoint_ns: "" },
        });
        check(
          (tuple?.checkpoint.channel_values as { n?: number } | undefined)?.n === 10,
          "S2 heap peer: last thread retained",
          tuple?.checkpoint.channel_values,
        );
      },
    );
    // Heap plus ArrayBuffers: LangGraph's MemorySaver keeps serialized bytes in Uint8Arrays,
    // whose backing stores are outside the JS heap, so heapUsed alone would flatter it.
    const oursBytes = oursHeap.heap + oursHeap.arrayBuffers;
    const peerBytes = peerHeap.heap + peerHeap.arrayBuffers;
    const heapRatio = oursBytes / peerBytes;
    const heapMet = heapRatio <= HEAP_TARGET;
    return result({
      scenario: "S2",
      title: this.title,
      ours_us: m.ours_us,
      peer_us: m.peer_us,
      target: TARGET,
      met: m.ours_us / m.peer_us <= TARGET && heapMet,
      peer: "LangGraph.js",
      checks: [
        {
          what: "heap per retained thread, ours/peer",
          value: round(heapRatio, 3),
          target: HEAP_TARGET,
          met: heapMet,
          detail: `${Math.round(oursBytes)} B vs ${Math.round(peerBytes)} B per thread after ${threads} threads`,
        },
      ],
      extra: {
        heap_threads: threads,
        ours_heap_bytes_per_thread: Math.round(oursBytes),
        peer_heap_bytes_per_thread: Math.round(peerBytes),
        ours_js_heap_bytes: Math.round(oursHeap.heap),
        peer_js_heap_bytes: Math.round(peerHeap.heap),
        ours_array_buffer_bytes: Math.round(oursHeap.arrayBuffers),
        peer_array_buffer_bytes: Math.round(peerHeap.arrayBuffers),
        heap_ratio: round(heapRatio, 3),
        heap_target: HEAP_TARGET,
        heap_met: heapMet,
        time_met: m.ours_us / m.peer_us <= TARGET,
      },
    });
  },
};
