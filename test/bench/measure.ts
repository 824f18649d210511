import { loadavg } from "node:os";
/**
 * Timing and heap helpers for the benchmarks: batches of operations timed with
 * `performance.now()`, the two sides run alternately, medians over batches.
 */

/** One benchmarked operation: does the work, checks its result, throws if wrong. */
export type Op = () => Promise<void>;

export interface PairOptions {
  /** Operations of each side run before timing starts (JIT warm-up). */
  warmup: number;
  /** Timed batches per side; the result is the median over batches. */
  batches: number;
  /** Operations per batch. */
  batchSize: number;
}

export interface PairResult {
  /** Median µs per operation of each side. */
  ours_us: number;
  peer_us: number;
  /** Per-batch µs/op, for the curious. */
  oursBatches: number[];
  peerBatches: number[];
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** µs per operation over one batch of `n` sequential operations. */
export async function timeBatch(op: Op, n: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < n; i++) await op();
  return ((performance.now() - start) * 1000) / n;
}

/**
 * Warm both sides up, then time them in alternating batches (ours, peer, peer,
 * ours, …: the order flips every round so drift and GC pressure hit both alike).
 */
export async function comparePair(ours: Op, peer: Op, options: PairOptions): Promise<PairResult> {
  for (let i = 0; i < options.warmup; i++) {
    await ours();
    await peer();
  }
  const oursBatches: number[] = [];
  const peerBatches: number[] = [];
  for (let b = 0; b < options.batches; b++) {
    if (b % 2 === 0) {
      oursBatches.push(await timeBatch(ours, options.batchSize));
      peerBatches.push(await timeBatch(peer, options.batchSize));
    } else {
      peerBatches.push(await timeBatch(peer, options.batchSize));
      oursBatches.push(await timeBatch(ours, options.batchSize));
    }
  }
  return {
    ours_us: median(oursBatches),
    peer_us: median(peerBatches),
    oursBatches,
    peerBatches,
  };
}

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) {
    throw new Error(
      "Heap figures need global.gc(): run node with --expose-gc (npm run bench does).",
    );
  }
  // Several passes: weak references and finalizers can free more on a second pass.
  for (let i = 0; i < 4; i++) collect();
}

/** Settle pending microtasks and timers so nothing in flight is counted. */
async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Bytes retained per item: on the JS heap, and in ArrayBuffers (Buffer/Uint8Array stores). */
export interface Retained {
  heap: number;
  arrayBuffers: number;
}

/**
 * Bytes retained per item: `gc()` and read `heapUsed` and `arrayBuffers`, run `count`
 * items, `gc()` and read again. `keepAlive` is called afterwards so whatever retains the
 * items (the checkpointer) cannot be collected before the second reading.
 */
export async function retainedPerItem(
  count: number,
  item: (i: number) => Promise<void>,
  keepAlive: () => Promise<void>,
): Promise<Retained> {
  await settle();
  gc();
  const before = process.memoryUsage();
  for (let i = 0; i < count; i++) await item(i);
  await settle();
  gc();
  const after = process.memoryUsage();
  await keepAlive();
  return {
    heap: (after.heapUsed - before.heapUsed) / count,
    arrayBuffers: (after.arrayBuffers - before.arrayBuffers) / count,
  };
}

/** The machine's load averages (1, 5, 15 min), as a bench prints them beside its figures. */
export const loadAverage = (): string =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(" ");
