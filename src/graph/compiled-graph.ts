// CompiledGraph, the public face of a graph: invoke, resume, stream, state, history and drawings.
import type { AnyStateMachine } from "xstate";
import type { z } from "zod";
import type { Checkpoint, Checkpointer, PendingWrite } from "../checkpoint/checkpointer.js";
import { assertHistoryLimit } from "../checkpoint/limits.js";
import { jsonContains } from "../checkpoint/thread-records.js";
import { InvalidConfigError, InvalidRunError, RunsNotBoundError } from "../errors/index.js";
import { currentTask } from "../runtime/interrupt.js";
import type { GraphContext } from "../runtime/task.js";
import { WriteList } from "../runtime/write-list.js";
import type { Store } from "../store/index.js";
import type { StreamEvent } from "../stream/events.js";
import { defaultEventOf, type RunEvent } from "../stream/run-events.js";
import { runStream, streamModes } from "../stream/run-stream.js";
import { partsOf, type StreamMode, type StreamPart } from "../stream/stream-parts.js";
import type { GraphEvent } from "./compiling/compile.js";
import type { GraphInternals } from "./compiling/internals.js";
import { type Command, isCommand } from "./definition/command.js";
import { declaredEdges, type GraphEdge } from "./definition/declared-edges.js";
import type { CompileOptions } from "./definition/graph-spec.js";
import type { NodeFn, RunConfig, State } from "./definition/types.js";
import { drawGraph, type GraphDrawing } from "./drawing/drawing.js";
import { statelyCode } from "./drawing/inspection-chart.js";
import {
  type InspectionMachine,
  type InspectionMachineOptions,
  inspectionMachine,
} from "./drawing/inspection-machine.js";
import { drawingToMermaid } from "./drawing/mermaid.js";
import type { GraphRuns, RunInput, RunService } from "./running/graph-runs.js";
import { GraphThreads } from "./running/graph-threads.js";
import type {
  InvokeOptions,
  RunResult,
  StreamEventsResult,
  StreamOptions,
} from "./running/invoke-options.js";
import { retryingAttempts } from "./running/retry-record.js";
import { GraphRunner, planFor } from "./running/runner.js";
import { type StateSnapshot, viewCheckpoint } from "./running/state-snapshot.js";
import { subgraphAt } from "./running/subgraph-at.js";
import { oneCheckpointPerStep } from "./running/subgraph-history.js";
import {
  checkSupersteps,
  type Superstep,
  type SuperstepUpdate,
  superstepEvent,
} from "./running/supersteps.js";
import { threadMachine } from "./running/thread-machine.js";
import { lastRanNode } from "./running/update-node.js";

export type {
  InspectionObserver,
  InvokeOptions,
  RunResult,
  StreamEventsResult,
  StreamOptions,
} from "./running/invoke-options.js";

/** What `streamEvents` collects unless told otherwise. */
const EVENT_MODES: readonly StreamMode[] = ["updates", "messages", "custom", "tools"];

/**
 * Checkpoints `getStateHistory` reads from the store per call: a small first page, so the
 * first item comes quickly (the newest checkpoints are the largest), then larger ones.
 */
export const FIRST_HISTORY_PAGE = 10;
export const HISTORY_PAGE = 50;

export type { GraphEdge } from "./definition/declared-edges.js";

/**
 * A runnable graph. `machine` is the XState machine that executes it: every
 * run is an actor of that machine, and every checkpoint is its persisted snapshot.
 * Its `workflow` state holds the graph's nodes, with the declared edges as transitions.
 *
 * @example
 * const r = await graph.invoke({ details: "Transfer $500" }, { config });
 * if (r.status === "interrupted") await graph.resume(true, { config });
 */
export class CompiledGraph<S extends State = State, C = unknown> {
  /**
   * The statechart that runs this graph (the executor: a run loop whose node states the
   * barrier enters by `RUN.<node>`). To see the workflow's own edges, use `toStately()`.
   */
  readonly machine: AnyStateMachine;
  readonly name: string;
  readonly checkpointer: Checkpointer | undefined;
  /** This graph's threads in its checkpointer: `search` (e.g. the interrupted ones) and `get`. */
  readonly threads: GraphThreads;
  readonly #g: GraphInternals;
  readonly #runner: GraphRunner<S, C>;
  readonly #options: CompileOptions;
  readonly #runService: { service: RunService; graphId: string } | undefined;

  constructor(
    g: GraphInternals,
    machine: AnyStateMachine,
    options: CompileOptions,
    runService?: { service: RunService; graphId: string },
  ) {
    this.#g = g;
    this.machine = machine;
    this.name = g.spec.name;
    this.checkpointer = options.checkpointer;
    this.threads = new GraphThreads(this.name, options.checkpointer);
    this.#runner = new GraphRunner<S, C>(g, machine, options);
    this.#options = options;
    this.#runService = runService;
  }

  /**
   * The same graph (same machine, nodes and breakpoints) saving its threads in
   * `checkpointer` instead: how a host such as `stateweaver serve` runs a graph its
   * user compiled with another store, or none. This graph is left as it was. An
   * agent's extra methods (`resumeReview`, `tools`) are not carried over.
   *
   * @example
   * const hosted = graph.withCheckpointer(new PGliteCheckpointer("./.stateweaver"));
   */
  withCheckpointer(checkpointer: Checkpointer): CompiledGraph<S, C> {
    const options = { ...this.#options, checkpointer };
    return new CompiledGraph<S, C>(this.#g, this.machine, options, this.#runService);
  }

  /**
   * The same graph with `store` as the long-term store its nodes see as `runtime.store`:
   * how a server gives the graphs it hosts its `/store`. This graph is left as it was.
   *
   * @example
   * const hosted = graph.withStore(storeFor(checkpointer));
   */
  withStore(store: Store): CompiledGraph<S, C> {
    const options = { ...this.#options, store };
    return new CompiledGraph<S, C>(this.#g, this.machine, options, this.#runService);
  }

  /**
   * The same graph, with background runs on `service` (`graph.runs`), where it is hosted
   * as `graphId` (its name by default): how `createRuns`, `stateweaver serve` and
   * `stateweaver worker` hand a graph its queue. This graph is left as it was.
   *
   * @example
   * const runs = createRuns({ graphs: [graph] });
   * const queued = graph.withRuns(runs);
   * await queued.runs.create("t1", { n: 1 });
   */
  withRuns(service: RunService, graphId = this.name): CompiledGraph<S, C> {
    return new CompiledGraph<S, C>(this.#g, this.machine, this.#options, { service, graphId });
  }

  /**
   * Background runs of this graph: `create` enqueues one (input, a `Command`, or `null`),
   * then `get`, `list`, `join` and `cancel`. Needs a run service (`withRuns`); throws
   * `RunsNotBoundError` without one.
   *
   * @example
   * const run = await graph.runs.create("t1", { n: 1 }, { multitaskStrategy: "enqueue" });
   * (await graph.runs.join(run.runId)).status; // "success"
   */
  get runs(): GraphRuns {
    if (!this.#runService) throw new RunsNotBoundError(this.name);
    const { service, graphId } = this.#runService;
    return {
      create: (threadId, input, options) =>
        service.create({ ...options, graphId, threadId, input: runInputOf(input) }),
      get: (runId) => service.get(runId),
      list: (threadId, options) => service.list({ ...options, threadId }),
      join: (runId, options) => service.join(runId, options),
      cancel: (runId, options) => service.cancel(runId, options),
    };
  }

  /**
   * The state's keys, from the graph's state schema; `undefined` for a graph without one
   * (its state takes any key). A server uses them to drop input keys the state has not,
   * as LangGraph's does.
   *
   * @example
   * graph.stateKeys; // ["messages", "approved"]
   */
  get stateKeys(): string[] | undefined {
    const shape = this.#g.channels.schema?.shape;
    return shape ? Object.keys(shape) : undefined;
  }

  /**
   * The reducer writes to `key` go through, if the graph gave it one (`addReducer`).
   *
   * @example
   * graph.reducerOf("messages") === addMessages; // true for a messagesGraph
   */
  reducerOf(key: string): ((existing: any, update: any) => unknown) | undefined {
    return this.#g.channels.reducers.get(key);
  }

  /** Node names, in definition order. */
  get nodes(): string[] {
    return [...this.#g.spec.nodes.keys()];
  }

  /**
   * Every way control can move between nodes, as declared: static edges, joins,
   * conditional edges (their pathMap targets, or every node when a router has
   * none) and `Command.goto` ends. What `graphPaths` and drawings are built from.
   */
  get edges(): GraphEdge[] {
    return declaredEdges(this.#g.spec);
  }

  /**
   * The zod schemas this graph was built with (`new Graph({ state, context })`), for hosts
   * that describe a graph to clients: the server's `getSchemas` turns them into JSON Schema.
   *
   * @example
   * graph.schemas.state?.shape; // { messages: ZodArray, … } or undefined without a schema
   */
  get schemas(): { state: z.ZodObject | undefined; context: z.ZodObject | undefined } {
    return { state: this.#g.spec.schema, context: this.#g.spec.contextSchema };
  }

  /**
   * The compiled graphs this graph runs as nodes, by node name, in definition order.
   *
   * @example
   * graph.subgraphs.map(([node]) => node); // ["weather_graph"]
   */
  get subgraphs(): Array<[string, CompiledGraph<any, any>]> {
    return (
      [...this.#g.spec.nodes.values()]
        // As in drawing(): a node that is not a function is a compiled graph (addNode's type).
        .filter((n) => typeof n.run !== "function")
        .map((n) => [n.name, n.run as CompiledGraph<any, any>])
    );
  }

  /**
   * The graph as plain data to draw: nodes, edges (kind, label, router) and, given a
   * `StateSnapshot` (or any `{ next }`), the nodes the thread waits at.
   *
   * @example
   * graph.drawing(await graph.getState(config)).waitingAt; // ["approval"]
   */
  drawing(at?: { next: readonly string[] }): GraphDrawing {
    const subgraphs = new Set(
      [...this.#g.spec.nodes.values()]
        .filter((n) => typeof n.run !== "function")
        .map((n) => n.name),
    );
    return drawGraph({ name: this.name, nodes: this.nodes, edges: this.edges, subgraphs }, at);
  }

  /**
   * The graph as a Mermaid flowchart (conditional edges dashed, labelled from path maps).
   *
   * @example
   * console.log(graph.toMermaid()); // flowchart TD …
   */
  toMermaid(): string {
    return drawingToMermaid(this.drawing());
  }

  /**
   * The graph as code the Stately editor imports as it is: `createMachine({...})` of an
   * inspection-only chart whose states are this graph's nodes and whose transitions are
   * its edges (see `inspectionChart`): the executor's workflow without its run loop.
   *
   * @example
   * writeFileSync("approval.stately.js", graph.toStately()); // then Import it in Stately
   */
  toStately(): string {
    return statelyCode(this.drawing());
  }

  /**
   * The inspection chart as a machine @xstate/graph walks (see `inspectionMachine`): the
   * nodes in super-steps, each router's and `Command`'s choice an event, cycles unrolled
   * until a node has run `maxVisits` times (default 2). For model-based tests: each path
   * to its final state is a way a run can go, and its events say how to steer the run.
   *
   * @example
   * import { createTestModel } from "@xstate/graph";
   * const model = createTestModel(graph.inspectionMachine({ maxVisits: 3 }));
   * const runs = model.getSimplePaths({ toState: (s) => s.status === "done" });
   */
  inspectionMachine(options?: InspectionMachineOptions): InspectionMachine {
    return inspectionMachine({ name: this.name, nodes: this.nodes, edges: this.edges }, options);
  }

  /**
   * This graph's machine bound to the thread `config` names, for XState's own API: an actor
   * of it starts from the thread's latest checkpoint and writes the thread's checkpoints as
   * it runs, with the claims `invoke` makes, so `getState`, the inbox and the HTTP API see
   * it, and `invoke`/`resume` on the thread take up where it stopped (and the other way
   * round). With `input` the actor applies it to the thread, as `invoke(input)`; without,
   * it continues the thread as it stands (a pause stays paused until a `RESUME`). The
   * thread is read now: make a new one for each actor. Needs a checkpointer.
   *
   * @example
   * const config = { configurable: { thread_id: "order-7" } };
   * const actor = createActor(await graph.machineFor(config), { input: { topic: "owls" } }).start();
   * await waitFor(actor, (s) => s.hasTag("interrupted"));
   * await graph.invoke(new Command({ resume: "yes" }), { config }); // the same thread
   */
  async machineFor(config: RunConfig): Promise<AnyStateMachine> {
    const thread = this.#runner.thread(config, "machineFor");
    if (config.configurable?.checkpoint_id !== undefined) {
      throw new InvalidConfigError(
        `machineFor() continues thread "${thread.threadId}" from its latest checkpoint; to go on from checkpoint "${config.configurable.checkpoint_id}", fork it with invoke(null, { config }) first.`,
      );
    }
    const { checkpointer, threadId } = thread;
    const tuple = await checkpointer.getLatest(threadId, "");
    const priorAttempts =
      tuple && this.#g.policies.size > 0 ? await retryingAttempts(checkpointer, tuple) : undefined;
    return threadMachine(this.#g, this.machine, this.#options, {
      checkpointer,
      threadId,
      tuple,
      priorAttempts,
    });
  }

  /**
   * Run the graph. `input` is a partial state, a `Command` (e.g. `{ resume }`),
   * or `null` to continue from the thread's checkpoint (after a breakpoint, or
   * from `configurable.checkpoint_id` to fork from the past).
   */
  async invoke(
    input: Partial<S> | Command | null,
    options: InvokeOptions<C> = {},
  ): Promise<RunResult<S>> {
    return this.#runner.run(planFor(input), options, undefined);
  }

  /**
   * Continue a paused run. With one pending interrupt pass its value; with
   * several, an object keyed by interrupt id. `nullResume` resumes with `null`;
   * no value is only for static breakpoints.
   */
  async resume(value?: unknown, options: InvokeOptions<C> = {}): Promise<RunResult<S>> {
    return this.#runner.run({ kind: "resume", value }, options, undefined);
  }

  /**
   * Run and yield typed events as they happen (`updates`, `values`, `custom`,
   * then `interrupt` or `done`). With `streamMode`, yield `StreamPart`s of those modes
   * instead (see `StreamMode`); the generator returns the run's result either way.
   *
   * @example
   * for await (const ev of graph.stream({ topic: "x" })) if (ev.type === "updates") log(ev);
   * for await (const part of graph.stream(input, { streamMode: ["values", "tasks"] })) log(part.mode, part.data);
   */
  stream(
    input: Partial<S> | Command | null,
    options?: InvokeOptions<C> & { streamMode?: undefined },
  ): AsyncGenerator<StreamEvent, RunResult<S>>;
  stream(
    input: Partial<S> | Command | null,
    options: StreamOptions<C> & { streamMode: StreamMode | readonly StreamMode[] },
  ): AsyncGenerator<StreamPart, RunResult<S>>;
  stream(
    input: Partial<S> | Command | null,
    options: StreamOptions<C> = {},
  ): AsyncGenerator<StreamEvent | StreamPart, RunResult<S>> {
    const plan = planFor(input);
    const start = (emit: (event: RunEvent) => void) => this.#runner.run(plan, options, emit);
    if (options.streamMode === undefined) {
      return runStream(start, (event) => {
        const ev = defaultEventOf(event);
        return ev ? [ev] : [];
      });
    }
    const modes = streamModes(options.streamMode);
    const subgraphs = options.subgraphs === true;
    return runStream(start, (event) => partsOf(event, modes, subgraphs));
  }

  /**
   * Run to the next pause or the end and return the outcome with the parts streamed up to
   * it (`streamMode` defaults to updates, messages, custom and tools).
   *
   * @example
   * const r = await graph.streamEvents(input, { config });
   * if (r.status === "interrupted") for (const part of r.events) log(part.mode, part.data);
   */
  async streamEvents(
    input: Partial<S> | Command | null,
    options: StreamOptions<C> = {},
  ): Promise<StreamEventsResult<S>> {
    const streamMode = options.streamMode ?? EVENT_MODES;
    const parts = this.stream(input, { ...options, streamMode });
    const events: StreamPart[] = [];
    let next = await parts.next();
    while (!next.done) {
      events.push(next.value);
      next = await parts.next();
    }
    const r = next.value;
    if (r.status === "done") return { status: "done", state: r.state, events };
    const { interrupt, interrupts, state } = r;
    return { status: "interrupted", interrupt, interrupts, state, events };
  }

  /**
   * The thread's state at its latest checkpoint (or at `configurable.checkpoint_id`). A
   * `configurable.checkpoint_ns` (from an interrupt's `ns`, or a subgraph node's
   * `runtime.config`) reads that subgraph run's own checkpoints instead.
   * With `{ subgraphs: true }`, each task that ran a subgraph carries that run's state as `task.state`.
   */
  async getState(
    config: RunConfig,
    options: { subgraphs?: boolean } = {},
  ): Promise<StateSnapshot<S>> {
    const { checkpointer, threadId } = this.#runner.thread(config, "getState");
    const id = config.configurable?.checkpoint_id;
    const ns = config.configurable?.checkpoint_ns ?? "";
    const tuple = id
      ? await checkpointer.get(threadId, ns, id)
      : await checkpointer.getLatest(threadId, ns);
    if (!tuple) {
      if (id) throw new InvalidConfigError(`Thread "${threadId}" has no checkpoint "${id}".`);
      return {
        values: this.#g.channels.initialValues() as S,
        next: [],
        interrupts: [],
        tasks: [],
        config: { configurable: { thread_id: threadId, checkpoint_ns: ns } },
        parentConfig: undefined,
        metadata: undefined,
        createdAt: undefined,
      };
    }
    return viewCheckpoint<S>(tuple, this.#g.channels, options.subgraphs ? checkpointer : undefined);
  }

  /**
   * Every checkpoint of the thread (or of the subgraph run `configurable.checkpoint_ns`
   * names), newest first: at most `limit`, and only those older than the checkpoint id
   * `before` when given; with `filter`, only checkpoints whose metadata contains it (as
   * JSON containment: e.g. a run's `metadata`, which each of its checkpoints carries), the
   * limit counting those. Read from the store a page at a time (`FIRST_HISTORY_PAGE`, then
   * `HISTORY_PAGE`), so the first item comes as soon as one small page is read, however
   * long the history, and memory holds one page. A history cut by `prune` ends at the oldest checkpoint kept.
   * A subgraph run's history has one entry per step of that run (the newest of the step:
   * its pause), as LangGraph.js lists it; the top level lists every checkpoint. A pause
   * adds none (as in LangGraph): the checkpoint its step started from shows the interrupts
   * it paused on, and, when it is the latest, its pending writes as `getState` does.
   */
  async *getStateHistory(
    config: RunConfig,
    options: { limit?: number; before?: string; filter?: Record<string, unknown> } = {},
  ): AsyncGenerator<StateSnapshot<S>> {
    const { checkpointer, threadId } = this.#runner.thread(config, "getStateHistory");
    const ns = config.configurable?.checkpoint_ns ?? "";
    assertHistoryLimit(options.limit);
    if (ns !== "") {
      // A subgraph run's history: one entry per step, as LangGraph.js lists a child's.
      let left = options.limit ?? Number.POSITIVE_INFINITY;
      if (left <= 0) return;
      const pages = checkpointPages(checkpointer, threadId, ns, options.before);
      let latest = options.before === undefined;
      for await (const { checkpoint, parentId } of oneCheckpointPerStep(pages)) {
        const writes = await checkpointer.listWrites(threadId, ns, [checkpoint.id]);
        const view = await this.#historyEntry(checkpoint, writes, latest);
        latest = false;
        yield { ...view, parentConfig: parentId ? configIn(checkpoint, parentId) : undefined };
        if (--left <= 0) return;
      }
      return;
    }
    let left = options.limit ?? Number.POSITIVE_INFINITY;
    let before = options.before;
    let size = FIRST_HISTORY_PAGE;
    const { filter } = options;
    let latest = before === undefined;
    while (left > 0) {
      // A filtered history may skip any number of checkpoints: read whole pages.
      const limit = filter ? size : Math.min(size, left);
      size = HISTORY_PAGE;
      const page = await checkpointer.list(threadId, { ns, limit, before });
      const shown = filter ? page.filter((c) => jsonContains(c.metadata, filter)) : page;
      // One read for the page: each step's pending writes (what its tasks wrote, its pause).
      const started = shown.filter((c) => c.next.length > 0).map((c) => c.id);
      const writes = await checkpointer.listWrites(threadId, ns, started);
      for (const checkpoint of page) {
        const isLatest = latest;
        latest = false;
        if (filter && !jsonContains(checkpoint.metadata, filter)) continue;
        yield await this.#historyEntry(checkpoint, writes, isLatest);
        if (--left <= 0) return;
      }
      // A short page is the last: the history has no more before it.
      if (page.length < limit) return;
      before = page.at(-1)!.id;
    }
  }

  /**
   * A checkpoint as its history shows it, with the pending writes of the step it started
   * (what its tasks wrote, the interrupts they paused on); applied to the values only for
   * the latest, as `getState` shows it (and LangGraph's history). `writes` is the page's,
   * read at once (`Checkpointer.listWrites`).
   */
  #historyEntry(
    checkpoint: Checkpoint,
    writes: ReadonlyMap<string, PendingWrite[]>,
    latest: boolean,
  ): Promise<StateSnapshot<S>> {
    const pendingWrites = writes.get(checkpoint.id) ?? [];
    return viewCheckpoint<S>({ checkpoint, pendingWrites }, this.#g.channels, undefined, latest);
  }

  /**
   * Write `values` into the thread as a new checkpoint, through the reducers.
   * With `asNode` the update counts as that node's output and its edges decide
   * what runs next; without it, the node is the one that ran last (`START` if none has; an
   * `InvalidUpdateError` when two ran last together), as LangGraph infers it, except on a
   * paused run, where the values are written in place and the pause stays. `asNode` may also be
   * `START` (the input as the graph's entry applies it: START's edges pick what is next),
   * `"__input__"` (the run's input, as `invoke` receives it: the thread waits to start from
   * it) or `END` (the pending work ends). One super-step of `bulkUpdateState`. `values` may
   * be a `Command`: its `update` is written as `asNode` wrote it and its `goto` (node names)
   * is what runs next, as if the node had returned it.
   * A `configurable.checkpoint_ns` (a subgraph task's, from `getState(config).tasks`, or an
   * interrupt's `ns`) updates that subgraph run instead, in its own namespace; the parent's
   * paused task goes on from the update when the thread is continued.
   * Returns the config of the new checkpoint.
   *
   * @example
   * await graph.updateState(config, { draft: "Fixed typo" }, "write"); // as if "write" returned it
   * const { tasks } = await graph.getState(config);
   * await graph.updateState({ configurable: { ...config.configurable, ...tasks[0].checkpoint } }, { city: "LA" });
   */
  async updateState(
    config: RunConfig,
    values: Partial<S> | Command<Partial<S>> | null,
    asNode?: string,
  ): Promise<RunConfig> {
    return this.bulkUpdateState(config, [{ updates: [{ values, asNode }] }]);
  }

  /**
   * Write several super-steps into the thread, one checkpoint each, as if its nodes had run
   * them (LangGraph's `bulkUpdateState`): each step's updates merge together at one barrier,
   * and each update is as `updateState` takes it. How a thread is rebuilt from another's
   * history (`metadata.writes`). All or nothing: a step that is refused (an unknown node,
   * values that do not fit the schema) rewinds the thread to where it was, and no other run
   * writes between the steps. Returns the config of the last checkpoint.
   *
   * @example
   * await graph.bulkUpdateState(config, [
   *   { updates: [{ values: { topic: "owls" }, asNode: "__input__" }] },
   *   { updates: [{ values: { topic: "owls" }, asNode: START }] },
   *   { updates: [{ values: { a: 1 }, asNode: "left" }, { values: { b: 2 }, asNode: "right" }] },
   * ]);
   */
  async bulkUpdateState(
    config: RunConfig,
    supersteps: ReadonlyArray<Superstep<S>>,
  ): Promise<RunConfig> {
    const thread = this.#runner.thread(config, "updateState");
    const ns = config.configurable?.checkpoint_ns ?? "";
    const graph: CompiledGraph<any, any> = ns === "" ? this : subgraphAt<CompiledGraph>(this, ns);
    return graph.#bulkUpdate(thread, config, ns, supersteps as ReadonlyArray<Superstep>);
  }

  /** bulkUpdateState on this graph's run in namespace `ns` of the thread (`""`: the top level). */
  async #bulkUpdate(
    thread: { checkpointer: Checkpointer; threadId: string },
    config: RunConfig,
    ns: string,
    given: ReadonlyArray<Superstep<S>>,
  ): Promise<RunConfig> {
    checkSupersteps(given as ReadonlyArray<Superstep>, this.nodes);
    const supersteps = await withInferredNodes(given, () =>
      lastRanNode(thread.checkpointer, thread.threadId, ns, config.configurable?.checkpoint_id),
    );
    if (ns !== "" && supersteps.length > 1) {
      // A refused later step is undone by rewinding the thread, which a subgraph's run alone cannot be.
      throw new InvalidConfigError(
        `bulkUpdateState on a subgraph's run (checkpoint_ns "${ns}") takes one super-step, got ${supersteps.length}: call it once per super-step.`,
      );
    }
    const firstUpdate = supersteps[0]!.updates[0]!;
    // No limit, no breakpoints: the update is applied, not run; it stops at the next barrier.
    const run = {
      recursionLimit: Number.POSITIVE_INFINITY,
      interruptBefore: [],
      interruptAfter: [],
      holds: true,
    };
    const checkpointId = config.configurable?.checkpoint_id;
    const asNode = firstUpdate.asNode;
    const { actor, writer, env, parentLatestId } =
      ns === ""
        ? {
            ...(await this.#runner.start({
              config,
              options: {},
              thread,
              run,
              asNode,
              // A named checkpoint is updated as stored, as LangGraph updates one: a pause of
              // its step is left behind (the fork runs the paused tasks afresh).
              withoutPause: checkpointId !== undefined,
            })),
            parentLatestId: undefined,
          }
        : await this.#runner.startNested({ thread, ns, checkpointId, run, asNode });
    const startedAt = writer!.latestId;
    const writesOf = (context: GraphContext, values: unknown, node: string) =>
      this.#runner.writes(context, values, node);
    /** The event that applies a step, the writer told why its checkpoint is written. */
    const apply = (step: Superstep<S>, context: GraphContext): GraphEvent => {
      const { event, source } = superstepEvent(step as Superstep, context, writesOf);
      writer!.startedBy(source);
      return event;
    };
    let first: GraphEvent;
    try {
      // Checked before anything runs: a refused first step leaves the thread as it was.
      first = apply(supersteps[0]!, actor.getSnapshot().context as GraphContext);
    } catch (error) {
      actor.stop();
      // A claim taken with the thread's read goes with the refusal (or runs out, if the
      // release fails: the refusal is what the caller must see).
      await writer!.close().catch(() => {});
      throw error;
    }
    const then = supersteps.slice(1).map((step) => (context: GraphContext) => apply(step, context));
    try {
      await this.#runner.driveEach(actor, env, writer, first, then, parentLatestId);
    } catch (error) {
      // A later step refused: the steps before it go too (a run that wrote after them
      // meanwhile would refuse the rewind, and keep its writes).
      if (writer!.latestId !== startedAt) {
        await thread.checkpointer.rewindThread(thread.threadId, startedAt).catch(() => {});
      }
      throw error;
    }
    const checkpoint_id = writer!.latestId!;
    return { configurable: { thread_id: thread.threadId, checkpoint_ns: ns, checkpoint_id } };
  }

  /** @internal This graph as a node of a parent graph: it runs nested and hands back its writes. */
  asNode(name: string): NodeFn<any, any> {
    return async (state, runtime) => {
      const pad = currentTask.getStore();
      if (!pad) {
        throw new InvalidConfigError(
          `Subgraph node "${name}" ran outside a graph task. Add the compiled graph with addNode("${name}", graph) and run the parent with invoke().`,
        );
      }
      const input = this.#g.channels.pick(state as Record<string, unknown>);
      const { result, journal } = await this.#runner.runNested(
        input,
        { context: runtime.context as C },
        pad,
      );
      return new WriteList(journal, result.state as Record<string, unknown>) as never;
    };
  }
}

/**
 * `supersteps` with each update that has values but no `asNode` written as `infer()` says
 * (asked once: updates are not runs, so the node that ran last is the same for every step).
 * An update without values and without a node stays as it is (the state kept as it was),
 * and so do all when `infer()` finds none (a paused run: written in place).
 */
async function withInferredNodes<S extends State>(
  supersteps: ReadonlyArray<Superstep<S>>,
  infer: () => Promise<string | undefined>,
): Promise<ReadonlyArray<Superstep<S>>> {
  const needs = (u: SuperstepUpdate<S>) => u.asNode === undefined && u.values !== null;
  if (!supersteps.some((step) => step.updates.some(needs))) return supersteps;
  const asNode = await infer();
  if (asNode === undefined) return supersteps;
  return supersteps.map((step) => ({
    updates: step.updates.map((u) => (needs(u) ? { ...u, asNode } : u)),
  }));
}

/** A namespace's checkpoints, newest first, read from the store a page at a time. */
async function* checkpointPages(
  checkpointer: Checkpointer,
  threadId: string,
  ns: string,
  before: string | undefined,
): AsyncGenerator<Checkpoint> {
  let size = FIRST_HISTORY_PAGE;
  for (;;) {
    const page = await checkpointer.list(threadId, { ns, limit: size, before });
    yield* page;
    if (page.length < size) return;
    before = page.at(-1)!.id;
    size = HISTORY_PAGE;
  }
}

const configIn = (c: Checkpoint, id: string): RunConfig => ({
  configurable: { thread_id: c.threadId, checkpoint_ns: c.ns, checkpoint_id: id },
});

/** `graph.runs.create`'s input in the stored form: a `Command` as its JSON, `null` as is. */
function runInputOf(input: unknown): RunInput {
  if (input === null || input === undefined) return null;
  if (!isCommand(input)) return { input };
  const goto = input.goto;
  const gotoNames = goto === undefined ? undefined : Array.isArray(goto) ? goto : [goto];
  if (gotoNames?.some((g) => typeof g !== "string")) {
    throw new InvalidRunError(
      "A background run's Command can name nodes in goto, not Send objects: a run is stored as JSON until a worker takes it. Send the node names, or start the run with invoke().",
    );
  }
  return {
    command: {
      ...(input.hasResume && { resume: input.resume }),
      ...(input.update !== undefined && { update: input.update as Record<string, unknown> }),
      ...(gotoNames !== undefined && { goto: gotoNames as string[] }),
    },
  };
}
