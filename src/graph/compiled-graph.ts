import type { AnyStateMachine } from "xstate";
import type { Checkpointer } from "../checkpoint/checkpointer.js";
import { assertHistoryLimit } from "../checkpoint/limits.js";
import { InvalidConfigError } from "../errors/index.js";
import { currentTask } from "../runtime/interrupt.js";
import type { GraphContext } from "../runtime/task.js";
import { WriteList } from "../runtime/write-list.js";
import type { StreamEvent } from "../stream/events.js";
import type { Command } from "./command.js";
import type { GraphEvent } from "./compile.js";
import { END } from "./constants.js";
import type { CompileOptions } from "./graph.js";
import { GraphThreads } from "./graph-threads.js";
import type { GraphInternals } from "./internals.js";
import type { InvokeOptions, RunResult } from "./invoke-options.js";
import { GraphRunner, planFor } from "./runner.js";
import { type StateSnapshot, viewCheckpoint } from "./state-snapshot.js";
import type { NodeFn, RunConfig, State } from "./types.js";

export type { InspectionObserver, InvokeOptions, RunResult } from "./invoke-options.js";

/**
 * Checkpoints `getStateHistory` reads from the store per call: a small first page, so the
 * first item comes quickly (the newest checkpoints are the largest), then larger ones.
 */
export const FIRST_HISTORY_PAGE = 10;
export const HISTORY_PAGE = 50;

/** One declared way from a node to another (see `CompiledGraph.edges`). */
export interface GraphEdge {
  from: string;
  to: string;
  kind: "edge" | "join" | "conditional" | "command";
}

/**
 * A runnable graph. `machine` is the XState machine that executes it: every
 * run is an actor of that machine, and every checkpoint is its persisted snapshot.
 *
 * @example
 * const r = await graph.invoke({ details: "Transfer $500" }, { config });
 * if (r.status === "interrupted") await graph.resume(true, { config });
 */
export class CompiledGraph<S extends State = State, C = unknown> {
  /** The statechart that runs this graph; inspect or draw it with Stately tools. */
  readonly machine: AnyStateMachine;
  readonly name: string;
  readonly checkpointer: Checkpointer | undefined;
  /** This graph's threads in its checkpointer: `search` (e.g. the interrupted ones) and `get`. */
  readonly threads: GraphThreads;
  readonly #g: GraphInternals;
  readonly #runner: GraphRunner<S, C>;
  readonly #options: CompileOptions;

  constructor(g: GraphInternals, machine: AnyStateMachine, options: CompileOptions) {
    this.#g = g;
    this.machine = machine;
    this.name = g.spec.name;
    this.checkpointer = options.checkpointer;
    this.threads = new GraphThreads(this.name, options.checkpointer);
    this.#runner = new GraphRunner<S, C>(g, machine, options);
    this.#options = options;
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
    return new CompiledGraph<S, C>(this.#g, this.machine, { ...this.#options, checkpointer });
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
    const { spec } = this.#g;
    const out: GraphEdge[] = [];
    for (const { from, to } of spec.edges) out.push({ from, to, kind: "edge" });
    for (const { from, to } of spec.joins)
      for (const f of from) out.push({ from: f, to, kind: "join" });
    for (const c of spec.conditionalEdges) {
      const targets = c.pathMap ? [...new Set(Object.values(c.pathMap))] : [...this.nodes, END];
      for (const to of targets) out.push({ from: c.from, to, kind: "conditional" });
    }
    for (const node of spec.nodes.values()) {
      for (const to of node.ends ?? []) out.push({ from: node.name, to, kind: "command" });
    }
    return out;
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
   * then `interrupt` or `done`).
   *
   * @example
   * for await (const ev of graph.stream({ topic: "x" })) if (ev.type === "updates") log(ev);
   */
  async *stream(
    input: Partial<S> | Command | null,
    options: InvokeOptions<C> = {},
  ): AsyncGenerator<StreamEvent, RunResult<S>> {
    const queue: StreamEvent[] = [];
    let notify: (() => void) | undefined;
    let finished = false;
    const emit = (ev: StreamEvent) => {
      queue.push(ev);
      notify?.();
    };
    const run = this.#runner.run(planFor(input), options, emit).finally(() => {
      finished = true;
      notify?.();
    });
    run.catch(() => {});
    for (;;) {
      while (queue.length > 0) yield queue.shift()!;
      if (finished) return await run;
      await new Promise<void>((resolve) => {
        notify = resolve;
      });
      notify = undefined;
    }
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
   * `before` when given. Read from the store a page at a time (`FIRST_HISTORY_PAGE`, then
   * `HISTORY_PAGE`), so the first item comes as soon as one small page is read, however
   * long the history, and memory holds one page. A history cut by `prune` ends at the oldest checkpoint kept.
   */
  async *getStateHistory(
    config: RunConfig,
    options: { limit?: number; before?: string } = {},
  ): AsyncGenerator<StateSnapshot<S>> {
    const { checkpointer, threadId } = this.#runner.thread(config, "getStateHistory");
    const ns = config.configurable?.checkpoint_ns ?? "";
    assertHistoryLimit(options.limit);
    let left = options.limit ?? Number.POSITIVE_INFINITY;
    let before = options.before;
    let size = FIRST_HISTORY_PAGE;
    while (left > 0) {
      const limit = Math.min(size, left);
      size = HISTORY_PAGE;
      const page = await checkpointer.list(threadId, { ns, limit, before });
      for (const checkpoint of page) {
        yield await viewCheckpoint<S>(
          { checkpoint, pendingWrites: [] },
          this.#g.channels,
          undefined,
        );
      }
      // A short page is the last: the history has no more before it.
      if (page.length < limit) return;
      left -= page.length;
      before = page.at(-1)!.id;
    }
  }

  /**
   * Write `values` into the thread as a new checkpoint, through the reducers.
   * With `asNode` the update counts as that node's output and its edges decide
   * what runs next; without it, what was next (or paused) stays so.
   * Returns the config of the new checkpoint.
   */
  async updateState(
    config: RunConfig,
    values: Partial<S> | null,
    asNode?: string,
  ): Promise<RunConfig> {
    const thread = this.#runner.thread(config, "updateState");
    if (asNode !== undefined && asNode !== END && !this.#g.spec.nodes.has(asNode)) {
      throw new InvalidConfigError(
        `updateState(…, asNode: "${asNode}"): no such node. Known nodes: ${this.nodes.join(", ")}, or END to end the thread's pending work.`,
      );
    }
    // No limit, no breakpoints: the update is applied, not run; it stops at the next barrier.
    const run = {
      recursionLimit: Number.POSITIVE_INFINITY,
      interruptBefore: [],
      interruptAfter: [],
      holds: true,
    };
    const { actor, writer, env } = await this.#runner.start({
      config,
      options: {},
      thread,
      run,
      asNode,
    });
    let first: GraphEvent;
    try {
      const context = actor.getSnapshot().context as GraphContext;
      const writes = this.#runner.writes(context, values, asNode ?? "updateState");
      // As a node, the update runs as that node's task, so its edges pick what is next (none
      // for END: the pending work is dropped); the run stops at the barrier after it.
      // Without, the machine stays where it is.
      first = { type: "UPDATE", update: Object.fromEntries(writes), asNode };
    } catch (error) {
      actor.stop();
      throw error;
    }
    writer!.startedBy("update");
    await this.#runner.drive(actor, env, writer, { first, stopAtBarrier: true });
    const checkpoint_id = writer!.latestId!;
    return { configurable: { thread_id: thread.threadId, checkpoint_ns: "", checkpoint_id } };
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
      const { journal } = await this.#runner.runNested(
        input,
        { context: runtime.context as C },
        pad,
      );
      return new WriteList(journal) as never;
    };
  }
}
