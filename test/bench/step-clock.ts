/**
 * Checkpointers that note the time of every checkpoint write. Both libraries write one
 * checkpoint per super-step, so the gaps between writes are the per-step cost, measured
 * inside a run without touching either engine.
 */
import { MemorySaver } from "@langchain/langgraph";
import { type Checkpoint, MemoryCheckpointer, type PutOptions } from "stateweaver/checkpoint";

/** Thrown by a step clock whose time budget ran out: it ends the run at its next checkpoint. */
export class BudgetExceeded extends Error {
  constructor(readonly steps: number) {
    super(`time budget exceeded after ${steps} checkpoints`);
  }
}

export class StepClockMemoryCheckpointer extends MemoryCheckpointer {
  /** performance.now() after each put, for the current run. */
  stamps: number[] = [];
  /** performance.now() after which the next put throws `BudgetExceeded`. */
  deadline = Number.POSITIVE_INFINITY;

  override async put(checkpoint: Checkpoint, options: PutOptions): Promise<void> {
    if (performance.now() > this.deadline) throw new BudgetExceeded(this.stamps.length);
    await super.put(checkpoint, options);
    this.stamps.push(performance.now());
  }
}

export class StepClockMemorySaver extends MemorySaver {
  stamps: number[] = [];

  override async put(...args: Parameters<MemorySaver["put"]>): ReturnType<MemorySaver["put"]> {
    const config = await super.put(...args);
    this.stamps.push(performance.now());
    return config;
  }
}

/** The gaps between consecutive stamps, in µs. */
export function gapsUs(stamps: readonly number[]): number[] {
  const gaps: number[] = [];
  for (let i = 1; i < stamps.length; i++) gaps.push((stamps[i]! - stamps[i - 1]!) * 1000);
  return gaps;
}
