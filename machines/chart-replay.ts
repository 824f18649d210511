/**
 * Test support for the model-based path tests of the charts (the task
 * lifecycle, the run loop, a compiled graph's machine): traverse a chart with
 * `@xstate/graph`, expand the traversal into the microsteps it passes
 * through, and replay every path found on a real actor whose invoked actors
 * are held until the replay lets them answer.
 *
 * Generic over the machine: the traversal helpers take any machine and keep
 * the snapshot type of the paths they are given. The standalone charts' task
 * actor (`runTask`) also has its answer events here, for the traversals to
 * offer.
 */
import { getShortestPaths, getSimplePaths, type StatePath } from "@xstate/graph";
import { expect } from "vitest";
import {
  type AnyActorRef,
  type AnyEventObject,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  createActor,
  fromPromise,
  getInitialMicrosteps,
  getMicrosteps,
  type InputFrom,
  type SnapshotFrom,
  transition,
} from "xstate";

/** A path of a traversal: the events from the initial state, and the snapshot after each. */
export type ChartPath<S extends AnyMachineSnapshot> = StatePath<S, AnyEventObject>;

// The standalone charts' task actor (`runTask`, run by `runTaskStandIn`).

/** The event of the `runTask` actor finishing. */
export const TASK_DONE = "xstate.done.actor.runTask";
/** The event of the `runTask` actor failing. */
export const TASK_ERROR = "xstate.error.actor.runTask";
/** What one task the `runTask` actor ran came to. */
export type TaskStatus = "done" | "interrupted";
/** The input a chart gives its `runTask` actor. */
export type TaskInput = { count: number; pauses: number; fail: boolean };

/** The `runTask` actor's answer: one outcome per task it ran, in order. */
export const answer = (...statuses: TaskStatus[]) => ({
  type: TASK_DONE,
  actorId: "runTask",
  output: statuses.map((status) => ({ status })),
});
/** The answer of a `runTask` actor whose one task finished. */
export const finishes = answer("done");
/** The answer of a `runTask` actor whose one task paused. */
export const pauses = answer("interrupted");
/** The `runTask` actor's failure. */
export const fails = { type: TASK_ERROR, actorId: "runTask", error: "task failed" };
/** The driver's RESUME, answering whatever the stand-in tasks asked. */
export const RESUME = { type: "RESUME", answers: { q: "yes" } } as const;

/**
 * What the running `runTask` actor of `s` answers (none if none runs): it
 * follows the input the chart gave it, as `runTaskStandIn` does.
 */
export function taskAnswers(s: AnyMachineSnapshot): AnyEventObject[] {
  const child = s.children.runTask;
  if (!child) return [];
  const { count, pauses, fail } = child.getSnapshot().input as TaskInput;
  if (fail) return [fails];
  return [
    answer(...Array.from({ length: count }, (_, i) => (i < pauses ? "interrupted" : "done"))),
  ];
}

// Traversal.

/** The options of a traversal: the events offered in each state, and how states are told apart. */
export interface TraversalOptions<S extends AnyMachineSnapshot> {
  events: (s: S) => AnyEventObject[];
  serializeState?: (s: S) => string;
}

/**
 * The shortest path to every state `machine` reaches from an input, as a
 * function of the input (each input's traversal is computed once).
 */
export function shortestPathsOf<
  M extends AnyStateMachine,
  S extends AnyMachineSnapshot = SnapshotFrom<M>,
>(machine: M, options: TraversalOptions<S>): (input: InputFrom<M>) => ChartPath<S>[] {
  const traversals = new Map<unknown, ChartPath<S>[]>();
  return (input) => {
    let paths = traversals.get(input);
    if (!paths) {
      paths = getShortestPaths(machine, {
        input,
        ...options,
      } as never) as unknown as ChartPath<S>[];
      traversals.set(input, paths);
    }
    return paths;
  };
}

/** Every simple path (no state visited twice) `machine` takes from `input`. */
export function simplePaths<
  M extends AnyStateMachine,
  S extends AnyMachineSnapshot = SnapshotFrom<M>,
>(machine: M, input: InputFrom<M>, options: TraversalOptions<S>): ChartPath<S>[] {
  return getSimplePaths(machine, { input, ...options } as never) as unknown as ChartPath<S>[];
}

/**
 * Each path, extended by every event `events` offers at its end (so
 * self-loops, the events a state ignores, are checked as well).
 */
export function extendedPaths<S extends AnyMachineSnapshot>(
  machine: AnyStateMachine,
  paths: ChartPath<S>[],
  events: (s: S) => AnyEventObject[],
): ChartPath<S>[] {
  return paths.flatMap((path) =>
    events(path.state).map((event) => ({
      ...path,
      steps: [...path.steps, { event, state: transition(machine, path.state, event)[0] as S }],
    })),
  );
}

const passed = new WeakMap<object, AnyMachineSnapshot[]>();
/**
 * Every snapshot a traversal passes through, transient microsteps included:
 * the initial microsteps, and those of every event `events` offers in every
 * state the paths reach (computed once per `paths` array).
 */
export function microsteps<S extends AnyMachineSnapshot>(
  machine: AnyStateMachine,
  input: unknown,
  paths: ChartPath<S>[],
  events: (s: S) => AnyEventObject[],
): S[] {
  let out = passed.get(paths) as S[] | undefined;
  if (!out) {
    out = getInitialMicrosteps(machine, input).map(([s]) => s as S);
    for (const { state } of paths) {
      for (const event of events(state)) {
        out.push(...getMicrosteps(machine, state, event).map(([s]) => s as S));
      }
    }
    passed.set(paths, out);
  }
  return out;
}

/** Every state node of a machine, with the dotted path `snapshot.matches` takes. */
export function stateNodes(machine: AnyStateMachine): Array<{ id: string; path: string }> {
  const out: Array<{ id: string; path: string }> = [];
  const visit = (node: { states: Record<string, { id: string; path: string[] }> }) => {
    for (const child of Object.values(node.states)) {
      out.push({ id: child.id, path: child.path.join(".") });
      visit(child as never);
    }
  };
  visit(machine.root as never);
  return out;
}

/** Ids of every state node of `machine` active in one of `snapshots`. */
export function statesEntered(
  machine: AnyStateMachine,
  snapshots: AnyMachineSnapshot[],
): Set<string> {
  const nodes = stateNodes(machine);
  const byValue = new Map(snapshots.map((s) => [JSON.stringify(s.value), s]));
  const ids = new Set<string>();
  for (const s of byValue.values()) {
    for (const node of nodes) if (s.matches(node.path as never)) ids.add(node.id);
  }
  return ids;
}

/** The distinct state values a macrostep passes through, transient ones included. */
export function passesThrough(
  machine: AnyStateMachine,
  from: AnyMachineSnapshot,
  event: AnyEventObject,
): unknown[] {
  const values = getMicrosteps(machine, from, event).map(([s]) => JSON.stringify(s.value));
  return values.filter((v, i) => v !== values[i - 1]).map((v) => JSON.parse(v));
}

// Replay on a real actor.

/** The ids of a snapshot's child actors, sorted. */
export const children = (s: AnyMachineSnapshot) => Object.keys(s.children).sort();

/** What a replay compares of a snapshot: its state, context, status and child actors. */
export const view = <S extends AnyMachineSnapshot>(s: S) => ({
  value: s.value as S["value"],
  context: s.context as S["context"],
  status: s.status,
  children: children(s),
});

/** `expect(actual).toEqual(expected)`, with a quick check first (replays compare a lot). */
export function same(actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) expect(actual).toEqual(expected);
}

/** Flush microtasks, then the event loop, until `ready()` holds (bounded). */
export async function until(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ready(); i++) {
    await (i < 100 ? Promise.resolve() : new Promise((r) => setImmediate(r)));
  }
}

/** The gate of each held actor, by actor id: open it to let the actor run, or fail with `error`. */
export type Gates = Map<string, (error?: unknown) => void>;

/** A machine whose invoked actors are held at their gates, and the gates. */
export interface Gated<M extends AnyStateMachine> {
  machine: M;
  gates: Gates;
}

/**
 * `machine` with each of its own promise actors held until its gate is
 * opened: then it runs the real actor with the input the chart gave it (or
 * fails with the error the gate is opened with). A stopped actor's gate is
 * dropped, so only a running actor can be let answer.
 */
export function gated<M extends AnyStateMachine>(machine: M): Gated<M> {
  const gates: Gates = new Map();
  const actors: Record<string, unknown> = {};
  for (const [src, logic] of Object.entries(machine.implementations.actors)) {
    const run = (logic as unknown as { config: (args: unknown) => Promise<unknown> }).config;
    actors[src] = fromPromise(async (args) => {
      const error = await new Promise<unknown>((open) => {
        gates.set(args.self.id, open);
        args.signal.addEventListener("abort", () => {
          if (gates.get(args.self.id) === open) gates.delete(args.self.id);
        });
      });
      if (error !== undefined) throw error;
      return run(args);
    });
  }
  return { machine: machine.provide({ actors: actors as never }) as M, gates };
}

/** How `replay` runs a path. */
export interface ReplayOptions {
  /**
   * Let a failing actor fail with the traversal's error (checking the actor
   * reports that very error) instead of running it; by default the real
   * actor runs and decides for itself whether it fails.
   */
  injectErrors?: boolean;
  /** Called with the actor before it starts (to attach what it needs to run). */
  prepare?: (actor: AnyActorRef) => void;
}

const ACTOR_EVENT = /^xstate\.(done|error)\.actor\.(.+)$/;

/**
 * Run `path` on a real actor of the gated machine: send the driver's events,
 * let the held actor the traversal names answer in place of its event
 * (checking it answers the same), and compare state, context, status and
 * child actors after every step.
 */
export async function replay<M extends AnyStateMachine>(
  { machine, gates }: Gated<M>,
  input: InputFrom<M>,
  path: ChartPath<AnyMachineSnapshot>,
  options: ReplayOptions = {},
): Promise<void> {
  gates.clear();
  const received: AnyEventObject[] = [];
  const actor = createActor(machine, {
    input,
    inspect: (e) => {
      if (e.type === "@xstate.event" && e.actorRef === actor) received.push(e.event);
    },
  });
  options.prepare?.(actor);
  actor.start();
  const real = [view(actor.getSnapshot())];
  for (const { event } of path.steps.slice(1)) {
    const [, kind, actorId] = ACTOR_EVENT.exec(event.type) ?? [];
    if (actorId) {
      const before = received.length;
      if (!gates.has(actorId)) expect.fail(`no running actor ${actorId}`);
      gates.get(actorId)!(kind === "error" && options.injectErrors ? event.error : undefined);
      gates.delete(actorId);
      await until(() => received.length > before);
      const answer = received.at(-1)!;
      same([answer.type, answer.actorId], [event.type, actorId]);
      if (kind === "done") same(answer.output, event.output);
      else if (options.injectErrors) expect(answer.error).toBe(event.error);
    } else {
      actor.send(event as never);
    }
    real.push(view(actor.getSnapshot()));
  }
  actor.stop();
  same(
    real,
    path.steps.map((step) => view(step.state)),
  );
}

/**
 * Replay the shortest paths from each input, each extended by every event
 * `events` offers at its end, on a real actor of the gated `machine` (see
 * `replay`). Returns how many paths were replayed.
 */
export async function replayExtendedPaths<M extends AnyStateMachine, S extends AnyMachineSnapshot>(
  machine: M,
  inputs: Iterable<InputFrom<M>>,
  shortestPaths: (input: InputFrom<M>) => ChartPath<S>[],
  events: (s: S) => AnyEventObject[],
  options: ReplayOptions = {},
): Promise<number> {
  const held = gated(machine);
  let replayed = 0;
  for (const input of inputs) {
    for (const path of extendedPaths(machine, shortestPaths(input), events)) {
      await replay(held, input, path, options);
      replayed++;
    }
  }
  return replayed;
}
