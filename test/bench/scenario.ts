/** What every benchmark scenario provides and reports. */

export interface ScenarioResult {
  scenario: string;
  title: string;
  /** Median µs per operation, stateweaver. */
  ours_us: number;
  /** Median µs per operation of the reference (LangGraph.js, or a raw SQL insert for S6). */
  peer_us: number;
  /** ours_us / peer_us. */
  ratio: number;
  /** The target for `ratio` (at most). */
  target: number;
  /** Every target of the scenario is met. */
  met: boolean;
  /** What `peer` is. */
  peer: string;
  /** Extra figures (heap, per-step costs…), printed after the table. */
  extra?: Record<string, number | string | boolean>;
  /** Targets besides the time ratio (heap, growth), printed under the table. */
  checks?: SecondaryCheck[];
}

export interface SecondaryCheck {
  what: string;
  /** The measured figure, compared with `target` (at most). */
  value: number;
  target: number;
  met: boolean;
  /** How the figure was obtained, e.g. "10,837 B vs 25,026 B". */
  detail: string;
}

export interface RunOptions {
  /** Fewer iterations, for a quick look (`--quick`). */
  quick: boolean;
  /** Progress lines go here (stderr), never into the JSON output. */
  log: (line: string) => void;
}

export interface Scenario {
  id: string;
  title: string;
  run(options: RunOptions): Promise<ScenarioResult>;
}

/** Throw with a message naming the scenario and side when a result is wrong. */
export function check(ok: boolean, what: string, got: unknown): void {
  if (!ok) throw new Error(`bench check failed: ${what}; got ${JSON.stringify(got)}`);
}

export const round = (x: number, digits = 1): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

export function result(
  base: Omit<ScenarioResult, "ratio" | "met"> & { met?: boolean },
): ScenarioResult {
  const ratio = base.ours_us / base.peer_us;
  return {
    ...base,
    ours_us: round(base.ours_us),
    peer_us: round(base.peer_us),
    ratio: round(ratio, 3),
    met: base.met ?? ratio <= base.target,
  };
}
