/**
 * Test support for the model-based path tests of the charts (the task
 * lifecycle, the run loop, a compiled graph's machine): traverse a chart with
 * `@xstate/graph`, expand the traversal into the microsteps it passes
 * through, and replay every path found on a real actor whose task runner holds
 * each request until the replay lets it answer.
 *
 * Every chart invokes one task runner (`tasks`) at its root; a lifecycle's
 * `running` state (tagged `running`) sends it `RUN`, and it answers with
 * `TASKS.DONE` or `TASKS.ERROR`. A pure traversal never sees that answer come
 * by itself, so the traversals offer it as an event, and the replay checks the
 * real runner answers exactly that. The standalone charts' stand-in answers
 * are here too, for their traversals to offer.
 *
 * Generic over the machine: the traversal helpers take any machine and keep
 * the snapshot type of the paths they are given.
 */
import { getShortestPaths, getSimplePaths, type StatePath } from "@xstate/graph";
import { expect } from "vitest";
import {
  type AnyActorRef,
  type AnyEventObject,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  createActor,
  fromCallback,
  getInitialMicrosteps,
  getMicrosteps,
  type InputFrom,
  type SnapshotFrom,
  transition,
} from "xstate";
import { lifecycleStandIn, standInAnswer } from "./task.machine.js";

/** A path of a traversal: the events from the initial state, and the snapshot after each. */
export type ChartPath<S extends AnyMachineSnapshot> = StatePath<S, AnyEventObject>;

// The task runner's answers.

/** What one task the runner ran came to. */
export type TaskStatus = "done" | "interrupted";

/** The runner's answer: one outcome per task it ran, in order. */
export const answer = (...statuses: TaskStatus[]) => ({
  type: "TASKS.DONE",
  output: statuses.map((status) => ({ status })),
});
/** The answer of a runner whose one task finished. */
export const finishes = answer("done");
/** The answer of a runner whose one task paused. */
export const pauses = answer("interrupted");
/** The stand-in runner's failure. */
export const fails = { type: "TASKS.ERROR", error: "task failed" };
/** The driver's RESUME, answering whatever the stand-in tasks asked. */
export const RESUME = { type: "RESUME", answers: { q: "yes" } } as const;

/**
 * What the standalone charts' stand-in runner answers in `s` (nothing unless
 * a lifecycle is `running`): it follows the request `running` sent, which the
 * context determines.
 */
export function standInAnswers(s: AnyMachineSnapshot): AnyEventObject[] {
  if (s.status !== "active" || !s.hasTag("running")) return [];
  return [standInAnswer(lifecycleStandIn.request({ context: s.context }))];
}

/**
 * The events a macrostep sends to other actors, as `[to, event]`, from the
 * actions `transition` (or `initialTransition`) returns: what a state asks
 * of the runner.
 */
export function sent(actions: ReadonlyArray<{ type: string; params?: unknown }>) {
  return actions
    .filter((a) => a.type === "xstate.sendTo")
    .map((a) => {
      const { targetId, event } = a.params as { targetId: string; event: AnyEventObject };
      return [targetId, event] as [string, AnyEventObject];
    });
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

/** What a replay compares of a snapshot: its state, context, status, tags and child actors. */
export const view = <S extends AnyMachineSnapshot>(s: S) => ({
  value: s.value as S["value"],
  context: s.context as S["context"],
  status: s.status,
  running: s.hasTag("running"),
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

/**
 * The runner's gate: the last `RUN` request it received and holds, if any.
 * Opening the gate hands the request to the real runner (or, given `error`,
 * answers `TASKS.ERROR` with it instead).
 */
export interface Gate {
  held: AnyEventObject | undefined;
  open(error?: unknown): void;
}

/** A machine whose task runner holds its requests at a gate, and the gate. */
export interface Gated<M extends AnyStateMachine> {
  machine: M;
  gate: Gate;
}

/** A callback actor's logic: `fromCallback` keeps the callback as `config`. */
type CallbackConfig = (args: {
  receive: (listener: (event: AnyEventObject) => void) => void;
  sendBack: (event: AnyEventObject) => void;
}) => (() => void) | undefined;

/**
 * `machine` with its own task runner (`taskRunner`) behind a gate: the real
 * runner starts with the machine, but each `RUN` is held until the gate is
 * opened, and only then reaches the real runner's `receive`. A newer `RUN`
 * replaces a held one (which then never runs), and stopping the runner drops
 * the held request, so only the request of the state that waits for it can be
 * let through.
 */
export function gated<M extends AnyStateMachine>(machine: M): Gated<M> {
  const real = (machine.implementations.actors.taskRunner as unknown as { config: CallbackConfig })
    .config;
  const gate: Gate = {
    held: undefined,
    open: () => expect.fail("the runner holds no RUN request"),
  };
  const taskRunner = fromCallback<AnyEventObject>((args) => {
    const receivers: Array<(event: AnyEventObject) => void> = [];
    const dispose = real({ ...args, receive: (listener) => receivers.push(listener) });
    args.receive((request) => {
      gate.held = request;
      gate.open = (error) => {
        gate.held = undefined;
        if (error !== undefined) args.sendBack({ type: "TASKS.ERROR", error });
        else for (const receiver of receivers) receiver(request);
      };
    });
    return () => {
      gate.held = undefined;
      dispose?.();
    };
  });
  return { machine: machine.provide({ actors: { taskRunner } as never }) as M, gate };
}

/** How `replay` runs a path. */
export interface ReplayOptions {
  /**
   * Let the runner fail with the traversal's error (checking the actor
   * receives that very error) instead of running the request; by default the
   * real runner runs and decides for itself whether it fails.
   */
  injectErrors?: boolean;
  /** Called with the actor before it starts (to attach what it needs to run). */
  prepare?: (actor: AnyActorRef) => void;
}

const isAnswer = (event: AnyEventObject) =>
  event.type === "TASKS.DONE" || event.type === "TASKS.ERROR";

/**
 * Run `path` on a real actor of the gated machine: send the driver's events,
 * let the runner answer the held request in place of the traversal's
 * `TASKS.DONE` / `TASKS.ERROR` (checking it answers the same), and compare
 * state, context, status, tags and child actors after every step.
 */
export async function replay<M extends AnyStateMachine>(
  { machine, gate }: Gated<M>,
  input: InputFrom<M>,
  path: ChartPath<AnyMachineSnapshot>,
  options: ReplayOptions = {},
): Promise<void> {
  gate.held = undefined;
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
    if (isAnswer(event)) {
      const before = received.length;
      if (!gate.held) expect.fail(`${event.type}, but the runner holds no RUN request`);
      const injected = event.type === "TASKS.ERROR" && options.injectErrors;
      gate.open(injected ? event.error : undefined);
      await until(() => received.length > before);
      same(received.at(-1), event);
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
