/**
 * S5: a 200-node chain with the memory checkpointer. Besides the whole invoke, the
 * per-step cost is read from the gaps between checkpoint writes, at 200 nodes and at 10:
 * it must not grow with the size of the graph.
 *
 * Both sides run with durability "sync": each step starts once the checkpoint before it
 * is stored, so the gaps between writes are steps (with "async", the default of both,
 * the writes trail the steps and their gaps say nothing about them).
 *
 * A run of ours that exceeds the time budget is stopped at its next checkpoint; its
 * invoke time is then estimated from the steps it did (marked `ours_estimated`).
 */
import * as peer from "../graphs/langgraph.js";
import * as ours from "../graphs/ours.js";
import { median } from "../measure.js";
import { check, result, round, type Scenario } from "../scenario.js";
import {
  BudgetExceeded,
  gapsUs,
  StepClockMemoryCheckpointer,
  StepClockMemorySaver,
} from "../step-clock.js";

export const TARGET = 0.1;
/** Per-step cost at 200 nodes over per-step cost at 10 nodes: "must not grow". */
export const GROWTH_TARGET = 1.5;
const LENGTH = 200;
const SHORT = 10;
const RECURSION_LIMIT = 1000;
const SYNC = "sync" as const;

export const s5: Scenario = {
  id: "S5",
  title: "chain of 200 nodes, memory checkpointer (per-step cost vs graph size)",
  async run({ quick, log }) {
    let thread = 0;
    const config = () => ({ configurable: { thread_id: `s5-${thread++}` } });

    // Per-step cost on a short chain, both sides alternately.
    const shortOursStore = new StepClockMemoryCheckpointer();
    const shortPeerStore = new StepClockMemorySaver();
    const shortOurs = ours.chain(SHORT, shortOursStore);
    const shortPeer = peer.chain(SHORT, shortPeerStore);
    const shortGaps = { ours: [] as number[], peer: [] as number[] };
    const shortRuns = quick ? 10 : 40;
    for (let i = 0; i < shortRuns; i++) {
      shortOursStore.stamps = [];
      const r = await shortOurs.invoke({ n: 0 }, { config: config(), durability: SYNC });
      check(r.status === "done" && r.state.n === SHORT, "S5 short ours", r);
      shortPeerStore.stamps = [];
      const p = await shortPeer.invoke({ n: 0 }, { ...config(), durability: SYNC });
      check(p.n === SHORT, "S5 short peer", p);
      if (i >= shortRuns / 2) {
        shortGaps.ours.push(...gapsUs(shortOursStore.stamps));
        shortGaps.peer.push(...gapsUs(shortPeerStore.stamps));
      }
    }

    // The long chain: alternate runs; ours within a budget per run and overall.
    const longOursStore = new StepClockMemoryCheckpointer();
    const longPeerStore = new StepClockMemorySaver();
    const longOurs = ours.chain(LENGTH, longOursStore);
    const longPeer = peer.chain(LENGTH, longPeerStore);
    const runs = quick ? 2 : 5;
    const runBudgetMs = quick ? 4_000 : 8_000;
    const oursTotalBudgetMs = quick ? 6_000 : 20_000;
    const oursStart = performance.now();
    const oursTimes: number[] = [];
    const oursGaps: number[] = [];
    const peerTimes: number[] = [];
    const peerGaps: number[] = [];
    let estimated = false;
    let oursStopped = false;
    let warmOurs: { us: number; gaps: number[] } | undefined;
    let stepsMeasured = 0;
    for (let i = 0; i < runs + 1; i++) {
      const warm = i === 0;
      // Peer.
      longPeerStore.stamps = [];
      let t = performance.now();
      const p = await longPeer.invoke(
        { n: 0 },
        { ...config(), recursionLimit: RECURSION_LIMIT, durability: SYNC },
      );
      const peerUs = (performance.now() - t) * 1000;
      check(p.n === LENGTH, "S5 peer n === 200", p);
      if (!warm) {
        peerTimes.push(peerUs);
        peerGaps.push(...gapsUs(longPeerStore.stamps));
      }
      // Ours, unless a run was stopped by the budget or the overall budget is spent.
      if (oursStopped || performance.now() - oursStart > oursTotalBudgetMs) continue;
      longOursStore.stamps = [];
      t = performance.now();
      longOursStore.deadline = t + runBudgetMs;
      try {
        const r = await longOurs.invoke(
          { n: 0 },
          { config: config(), recursionLimit: RECURSION_LIMIT, durability: SYNC },
        );
        const us = (performance.now() - t) * 1000;
        check(r.status === "done" && r.state.n === LENGTH, "S5 ours n === 200", r);
        if (!warm) {
          oursTimes.push(us);
          oursGaps.push(...gapsUs(longOursStore.stamps));
          stepsMeasured += longOursStore.stamps.length - 1;
        } else {
          warmOurs = { us, gaps: gapsUs(longOursStore.stamps) };
        }
      } catch (error) {
        if (!(error instanceof BudgetExceeded)) throw error;
        // Stopped by the budget: keep the steps it did and estimate the whole invoke.
        const stamps = longOursStore.stamps;
        const gaps = gapsUs(stamps);
        oursGaps.push(...gaps);
        stepsMeasured += gaps.length;
        const elapsedUs = (performance.now() - t) * 1000;
        const remaining = LENGTH + 1 - stamps.length;
        oursTimes.push(elapsedUs + remaining * median(gaps));
        estimated = oursStopped = true;
        log(
          `  S5 ours: ${stamps.length} of ${LENGTH + 1} checkpoints in ${(elapsedUs / 1e6).toFixed(1)} s; stopped by the time budget`,
        );
      } finally {
        longOursStore.deadline = Number.POSITIVE_INFINITY;
      }
    }
    if (oursTimes.length === 0 && warmOurs) {
      // Only the warm-up run fitted in the budget: use it rather than nothing.
      oursTimes.push(warmOurs.us);
      oursGaps.push(...warmOurs.gaps);
      stepsMeasured += warmOurs.gaps.length;
    }
    check(oursTimes.length > 0, "S5 ours: at least one measurement", oursTimes);

    const oursStep = median(oursGaps);
    const peerStep = median(peerGaps);
    const oursShortStep = median(shortGaps.ours);
    const peerShortStep = median(shortGaps.peer);
    const growth = oursStep / oursShortStep;
    const oursUs = median(oursTimes);
    const peerUs = median(peerTimes);
    const timeMet = oursUs / peerUs <= TARGET;
    const growthMet = growth <= GROWTH_TARGET;
    return result({
      scenario: "S5",
      title: this.title,
      ours_us: oursUs,
      peer_us: peerUs,
      target: TARGET,
      met: timeMet && growthMet,
      peer: "LangGraph.js",
      checks: [
        {
          what: "per-step cost at 200 nodes / at 10 nodes, ours",
          value: round(growth, 2),
          target: GROWTH_TARGET,
          met: growthMet,
          detail: `${round(oursStep)} µs vs ${round(oursShortStep)} µs per step (LangGraph.js: ${round(peerStep)} vs ${round(peerShortStep)} µs, ${round(peerStep / peerShortStep, 2)}x)`,
        },
      ],
      extra: {
        ours_estimated: estimated,
        ours_steps_measured: stepsMeasured,
        ours_step_us: round(oursStep),
        peer_step_us: round(peerStep),
        step_ratio: round(oursStep / peerStep, 3),
        ours_step_us_10_nodes: round(oursShortStep),
        peer_step_us_10_nodes: round(peerShortStep),
        ours_step_growth: round(growth, 2),
        peer_step_growth: round(peerStep / peerShortStep, 2),
        growth_target: GROWTH_TARGET,
        growth_met: growthMet,
        time_met: timeMet,
      },
    });
  },
};
