import { randomUUID } from "node:crypto";
import {
  type AnyActor,
  type AnyStateMachine,
  createActor,
  type InspectionEvent,
  type Observer,
} from "xstate";
import type { Checkpointer, CheckpointTuple, InterruptRecord } from "../checkpoint/checkpointer.js";
import { toJsonValue } from "../checkpoint/serde.js";
import { assertThreadMetadata } from "../checkpoint/thread-records.js";
import { AbortError, InvalidConfigError, InvalidResumeError } from "../errors/index.js";
import { CheckpointWriter, type Durability } from "../runtime/checkpoint-writer.js";
import {
  type DriveOptions,
  type DriveResult,
  drive,
  pendingInterrupts,
  recoverTasks,
} from "../runtime/drive.js";
import {
  currentTask,
  GraphInterrupt,
  ParentCommand,
  type Scratchpad,
} from "../runtime/interrupt.js";
import { attachRunEnv, type RunEnv } from "../runtime/run-env.js";
import { contextOf, expandSnapshot, stepOriginOf } from "../runtime/snapshot-format.js";
import { DEFAULT_RUN, type GraphContext, type RunOptions } from "../runtime/task.js";
import { WriteList } from "../runtime/write-list.js";
import type { StreamEvent } from "../stream/events.js";
import { valuesWithFinished } from "./barrier.js";
import { Command, nullResume } from "./command.js";
import type { GraphEvent } from "./compile.js";
import { END, START } from "./constants.js";
import type { CompileOptions } from "./graph.js";
import { GraphThreads } from "./graph-threads.js";
import type { GraphInternals } from "./internals.js";
import { assertFitsGraph } from "./restore.js";
import { type StateSnapshot, viewCheckpoint } from "./state-snapshot.js";
import type { NodeFn, RunConfig, State } from "./types.js";

/** An XState inspection observer (what `createActor(…, { inspect })` takes). */
export type InspectionObserver = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

/** One declared way from a node to another (see `CompiledGraph.edges`). */
export interface GraphEdge {
  from: string;
  to: string;
  kind: "edge" | "join" | "conditional" | "command";
}

/** Options of `invoke`, `resume` and `stream`. */
export interface InvokeOptions<C = unknown> {
  config?: RunConfig;
  /** Maximum super-steps for this call (default 25). */
  recursionLimit?: number;
  signal?: AbortSignal;
  /** Passed to nodes as `runtime.context`; never checkpointed. */
  context?: C;
  /**
   * Observe the graph's actors as they run, e.g. with the Stately Inspector
   * (`createBrowserInspector().inspect`) or any XState inspection observer.
   */
  inspect?: InspectionObserver;
  /** Breakpoints for this call, on top of the compiled ones. */
  interruptBefore?: readonly string[];
  interruptAfter?: readonly string[];
  /**
   * When checkpoints must be stored: `"async"` (the default) writes each one while
   * the next step runs, and all before the call returns; `"sync"` starts a step
   * only once the checkpoint before it is stored. See `Durability`.
   */
  durability?: Durability;
  /**
   * JSON merged into the thread's metadata (key by key), which `searchThreads` and
   * `graph.threads.search` can filter on.
   *
   * @example
   * await graph.invoke(input, { config, metadata: { user: "u1", ticket: 42 } });
   */
  metadata?: Record<string, unknown>;
}

/** The outcome of a run: finished, or paused waiting for `resume`. */
export type RunResult<S extends State = State> =
  | { status: "done"; state: S }
  | { status: "interrupted"; interrupt: InterruptRecord; interrupts: InterruptRecord[]; state: S };

type Plan =
  | { kind: "input"; update: unknown; goto?: unknown }
  | { kind: "resume"; value: unknown; update?: unknown }
  | { kind: "continue" };

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
  readonly #options: CompileOptions;

  constructor(g: GraphInternals, machine: AnyStateMachine, options: CompileOptions) {
    this.#g = g;
    this.machine = machine;
    this.name = g.spec.name;
    this.checkpointer = options.checkpointer;
    this.threads = new GraphThreads(this.name, options.checkpointer);
    this.#options = options;
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
    return this.#run(planFor(input), options, undefined);
  }

  /**
   * Continue a paused run. With one pending interrupt pass its value; with
   * several, an object keyed by interrupt id. `nullResume` resumes with `null`;
   * no value is only for static breakpoints.
   */
  async resume(value?: unknown, options: InvokeOptions<C> = {}): Promise<RunResult<S>> {
    return this.#run({ kind: "resume", value }, options, undefined);
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
    const run = this.#run(planFor(input), options, emit).finally(() => {
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
    const { checkpointer, threadId } = this.#thread(config, "getState");
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
   * names), newest first.
   */
  async *getStateHistory(
    config: RunConfig,
    options: { limit?: number } = {},
  ): AsyncGenerator<StateSnapshot<S>> {
    const { checkpointer, threadId } = this.#thread(config, "getStateHistory");
    const ns = config.configurable?.checkpoint_ns ?? "";
    const list = await checkpointer.list(threadId, { ns, limit: options.limit });
    for (const checkpoint of list) {
      yield await viewCheckpoint<S>({ checkpoint, pendingWrites: [] }, this.#g.channels, undefined);
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
    const thread = this.#thread(config, "updateState");
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
    const { actor, writer, env } = await this.#start({ config, options: {}, thread, run, asNode });
    let first: GraphEvent;
    try {
      const context = actor.getSnapshot().context as GraphContext;
      const writes = this.#writes(context, values, asNode ?? "updateState");
      // As a node, the update runs as that node's task, so its edges pick what is next (none
      // for END: the pending work is dropped); the run stops at the barrier after it.
      // Without, the machine stays where it is.
      first = { type: "UPDATE", update: Object.fromEntries(writes), asNode };
    } catch (error) {
      actor.stop();
      throw error;
    }
    writer!.startedBy("update");
    await this.#drive(actor, env, writer, { first, stopAtBarrier: true });
    return withNamespace(
      { configurable: { thread_id: thread.threadId, checkpoint_id: writer!.latestId! } },
      "",
    );
  }

  /** Internal: this graph as a node of a parent graph — it runs nested and hands back its writes. */
  asNode(name: string): NodeFn<any, any> {
    return async (state, runtime) => {
      const pad = currentTask.getStore();
      if (!pad) throw new Error(`Subgraph node "${name}" ran outside a task.`);
      const input = this.#g.channels.pick(state as Record<string, unknown>);
      const { journal } = await this.#runNested(input, { context: runtime.context as C }, pad);
      return new WriteList(journal) as never;
    };
  }

  #thread(
    config: RunConfig | undefined,
    what: string,
  ): { checkpointer: Checkpointer; threadId: string } {
    if (!this.checkpointer) {
      throw new InvalidConfigError(
        `${what}() needs a checkpointer: compile the graph with compile({ checkpointer }) (e.g. new MemoryCheckpointer()).`,
      );
    }
    const threadId = config?.configurable?.thread_id;
    if (typeof threadId !== "string" || threadId.length === 0) {
      throw new InvalidConfigError(
        `${what}() needs a thread id: pass { config: { configurable: { thread_id: "..." } } }.`,
      );
    }
    return { checkpointer: this.checkpointer, threadId };
  }

  /**
   * A started actor of this graph's machine: fresh, or restored from `tuple`. A
   * barrier restored with pending writes gets its finished tasks back (crash
   * recovery): only the others run again.
   */
  #actor(
    tuple: CheckpointTuple | undefined,
    env: RunEnv,
    run: RunOptions,
    inspect: InspectionObserver | undefined,
    asNode?: string,
  ) {
    let actor: AnyActor;
    if (tuple) {
      let snapshot = expandSnapshot(tuple.checkpoint, run) as {
        value: unknown;
        context: GraphContext;
      };
      try {
        assertFitsGraph(this.#g, tuple.checkpoint, snapshot);
      } catch (error) {
        // An update as a node replaces what was next anyway: keep only finished writes.
        if (asNode === undefined) throw error;
        snapshot = withOnlyFinishedTasks(snapshot);
      }
      if (snapshot.value === "barrier" && tuple.pendingWrites.length > 0) {
        snapshot.context.tasks = recoverTasks(snapshot.context.tasks, tuple.pendingWrites);
      }
      actor = createActor(this.machine, { snapshot: snapshot as never, inspect });
    } else {
      actor = createActor(this.machine, {
        input: { values: this.#g.channels.initialValues(), run },
        inspect,
      });
    }
    // The driver reads failures off the snapshot; without an error observer XState would
    // also rethrow them from a timer, where nobody can catch them.
    actor.subscribe({ error: ignoreError });
    attachRunEnv(actor.system, env);
    actor.start();
    return actor;
  }

  /**
   * A run on the thread `config` names (or none): its checkpoint restored into a started
   * actor, the writer its checkpoints go through, and what its nodes can reach.
   */
  async #start(start: {
    config: RunConfig;
    options: InvokeOptions<C>;
    thread: { checkpointer: Checkpointer; threadId: string } | undefined;
    run: RunOptions;
    emit?: RunEnv["emit"];
    asNode?: string;
  }) {
    const { config, options, thread } = start;
    let tuple: CheckpointTuple | undefined;
    let writer: CheckpointWriter | undefined;
    if (thread) {
      const { checkpointer, threadId } = thread;
      const wanted = config.configurable?.checkpoint_id;
      const latest = await checkpointer.getLatest(threadId, "");
      tuple = wanted ? await checkpointer.get(threadId, "", wanted) : latest;
      if (wanted && !tuple) {
        throw new InvalidConfigError(
          `Thread "${threadId}" has no checkpoint "${wanted}"; pick one from getStateHistory().`,
        );
      }
      const forked = wanted !== undefined && wanted !== latest?.checkpoint.id;
      const metadata = threadMetadata(options.metadata);
      writer = new CheckpointWriter(checkpointer, threadId, "", {
        parentId: tuple?.checkpoint.id ?? null,
        latestId: latest?.checkpoint.id ?? null,
        source: forked ? "fork" : "loop",
        thread: { graph: this.name, metadata },
      });
    }
    const env: RunEnv = {
      config: withNamespace(config, ""),
      context: options.context ?? {},
      signal: options.signal,
      persistent: thread !== undefined,
      ns: "",
      emit: start.emit,
      thread,
      stepOrigin: tuple ? stepOriginOf(tuple.checkpoint) : undefined,
    };
    const actor = this.#actor(tuple, env, start.run, options.inspect, start.asNode);
    return { actor, writer, env };
  }

  /**
   * Drive a started run to its next rest, then end it: a top-level run claims its thread
   * first, so nothing runs unless this call holds the thread; and whatever way it ends, the
   * actor stops and nothing is stored for it afterwards.
   */
  async #drive(
    actor: AnyActor,
    env: RunEnv,
    writer: CheckpointWriter | undefined,
    options: DriveOptions,
  ): Promise<DriveResult> {
    // How the run ended, for the thread's record (a failure marks it "error").
    const ended: { failed?: unknown } = {};
    try {
      if (writer && env.ns === "") await writer.claim(randomUUID());
      const result = await drive(actor, env, writer, options);
      if (result.status !== "interrupted") return result;
      // A paused step shows what its finished tasks wrote, as getState does.
      const context = actor.getSnapshot().context as GraphContext;
      return { ...result, state: valuesWithFinished(this.#g.channels, context) };
    } catch (error) {
      ended.failed = error;
      throw error;
    } finally {
      actor.stop();
      await writer?.close(ended);
    }
  }

  /**
   * Run this graph inside a task of another graph: same thread, its own
   * namespace (`node:taskId`, levels joined by `|`). A pause becomes the calling
   * task's pause; on the task's re-run the nested run resumes where it stopped,
   * and a nested run that already finished in this step is replayed, not re-run.
   */
  async #runNested(
    input: unknown,
    options: InvokeOptions<C>,
    pad: Scratchpad,
  ): Promise<{ result: RunResult<S>; journal: Array<[string, unknown]> }> {
    const call = pad.graphCalls++;
    const ns = `${pad.ns ? `${pad.ns}|` : ""}${pad.node}:${pad.taskId}${call > 0 ? `~${call}` : ""}`;
    const parent = pad.env;
    const thread = parent.thread;
    let tuple: CheckpointTuple | undefined;
    let writer: CheckpointWriter | undefined;
    if (thread) {
      const latest = await thread.checkpointer.getLatest(thread.threadId, ns);
      // Only a run started by this very step counts; anything else is from another branch or run.
      if (latest && latest.checkpoint.metadata.parentStep === parent.stepOrigin) tuple = latest;
      writer = new CheckpointWriter(thread.checkpointer, thread.threadId, ns, {
        parentId: tuple?.checkpoint.id ?? null,
        latestId: latest?.checkpoint.id ?? null,
        source: tuple ? "loop" : "input",
        metadata: { parentStep: parent.stepOrigin },
      });
    }
    if (tuple && tuple.checkpoint.next.length === 0 && tuple.checkpoint.interrupts.length === 0) {
      const context = contextOf(tuple.checkpoint);
      return {
        result: { status: "done", state: tuple.checkpoint.values as S },
        journal: context.journal ?? [],
      };
    }
    const env: RunEnv = {
      config: withNamespace(parent.config, ns),
      context: options.context ?? parent.context,
      signal: pad.runtime.signal,
      persistent: thread !== undefined,
      ns,
      emit: parent.emit,
      thread,
      stepOrigin: tuple ? stepOriginOf(tuple.checkpoint) : undefined,
    };
    const run = this.#runOptions(options, thread !== undefined);
    const actor = this.#actor(tuple, env, run, options.inspect);
    let first: DriveOptions["first"];
    try {
      if (tuple && tuple.checkpoint.interrupts.length > 0) {
        const pending = tuple.checkpoint.interrupts;
        const answers: Record<string, unknown> = {};
        for (const i of pending)
          if (i.id in pad.nestedAnswers) answers[i.id] = pad.nestedAnswers[i.id];
        if (Object.keys(answers).length === 0) {
          pad.raised = true;
          throw new GraphInterrupt(pad, pending);
        }
        const atBreakpoint = actor.getSnapshot().matches("breakpoint");
        first = { type: "RESUME", answers: atBreakpoint ? {} : answers };
      } else if (!tuple) {
        first = this.#input(actor, input, { journal: true });
      }
    } catch (error) {
      actor.stop();
      throw error;
    }
    let result: DriveResult;
    try {
      result = await this.#drive(actor, env, writer, { first });
    } catch (error) {
      // Command.PARENT ends the child run: what it wrote before goes up with the command's
      // own update, in order, so the parent's reducers see every write exactly once.
      if (error instanceof ParentCommand) throw error.after(journalOf(actor));
      throw error;
    }
    const journal = journalOf(actor);
    if (result.status === "interrupted") {
      pad.raised = true;
      throw new GraphInterrupt(pad, result.interrupts);
    }
    return { result: result as RunResult<S>, journal };
  }

  /** The input as writes (in JSON form, checked against the schema): the event that starts a run with it. */
  #input(
    actor: AnyActor,
    input: unknown,
    extra: { goto?: unknown; journal?: boolean },
  ): GraphEvent {
    const context = actor.getSnapshot().context as GraphContext;
    const update = this.#writes(context, input, START);
    return { type: "INPUT", update: Object.fromEntries(update), ...extra };
  }

  /** An update applied in place through the reducers (no task runs for it), or none. */
  #update(context: GraphContext, update: unknown, node: string): GraphEvent | undefined {
    if (update === undefined || update === null) return undefined;
    const writes = this.#writes(context, update, node);
    return writes.length > 0 ? { type: "UPDATE", update: Object.fromEntries(writes) } : undefined;
  }

  /** An update's writes, checked against the schema and turned into their JSON form. */
  #writes(context: GraphContext, update: unknown, node: string): Array<[string, unknown]> {
    return this.#g.channels.toWrites(update, context.values, { node, step: context.step });
  }

  /** This call's run options: its recursion limit, breakpoints and durability. */
  #runOptions(options: InvokeOptions<C>, persistent: boolean): RunOptions {
    const { durability } = options;
    if (durability !== undefined && durability !== "sync" && durability !== "async") {
      throw new InvalidConfigError(
        `durability "${String(durability)}" is not one of "sync" or "async". Use "async" (the default) to write checkpoints while the next step runs, or "sync" to store each before the next step starts.`,
      );
    }
    return {
      recursionLimit: options.recursionLimit ?? DEFAULT_RUN.recursionLimit,
      interruptBefore: [
        ...(this.#options.interruptBefore ?? []),
        ...(options.interruptBefore ?? []),
      ],
      interruptAfter: [...(this.#options.interruptAfter ?? []), ...(options.interruptAfter ?? [])],
      holds: persistent && durability === "sync",
    };
  }

  async #run(plan: Plan, options: InvokeOptions<C>, emit: RunEnv["emit"]): Promise<RunResult<S>> {
    const config = options.config ?? {};
    const pad = currentTask.getStore();
    if (
      pad &&
      plan.kind === "input" &&
      plan.goto === undefined &&
      config.configurable?.thread_id === undefined
    ) {
      return (await this.#runNested(plan.update, options, pad)).result;
    }
    const checkpointer = this.checkpointer;
    const thread =
      checkpointer || plan.kind !== "input"
        ? this.#thread(config, plan.kind === "input" ? "invoke" : "resume")
        : undefined;
    if (options.signal?.aborted) throw new AbortError(options.signal.reason);
    const run = this.#runOptions(options, thread !== undefined);
    const { actor, writer, env } = await this.#start({ config, options, thread, run, emit });
    const snap = actor.getSnapshot();
    const context = snap.context as GraphContext;
    const threadId = thread?.threadId ?? "<none>";
    let first: DriveOptions["first"];
    try {
      if (plan.kind === "resume") {
        const answers = this.#answers(snap, plan.value, env, threadId);
        // Command({ resume, update }): the update goes through the reducers first, so the
        // resumed tasks see it (as in LangGraph.js). Checked before anything is sent.
        const update = this.#update(context, plan.update, START);
        if (update) actor.send(update);
        first = { type: "RESUME", answers };
      } else if (plan.kind === "continue") {
        first = continueEvent(snap, env, threadId);
      } else {
        writer?.startedBy("input");
        first = this.#input(actor, plan.update, { goto: plan.goto });
      }
    } catch (error) {
      actor.stop();
      throw error;
    }
    return (await this.#drive(actor, env, writer, { first })) as RunResult<S>;
  }

  /** Pair a resume value with the pending interrupts, or explain why it does not fit. */
  #answers(
    snap: { matches(v: string): boolean; context: unknown },
    value: unknown,
    env: RunEnv,
    threadId: string,
  ) {
    const context = snap.context as GraphContext;
    const pending = pendingInterrupts(context, env);
    if (pending.length === 0) {
      throw new InvalidResumeError(
        `Thread "${threadId}" has no pending interrupt to resume. Check getState(config).interrupts, or start a new run with invoke(input).`,
      );
    }
    if (snap.matches("breakpoint")) return {};
    const resolved = value === nullResume ? null : value;
    if (value === undefined && pending.every((p) => p.timing !== "during")) {
      // Breakpoints inside subgraphs: continuing needs no value.
      return Object.fromEntries(pending.map((p) => [p.id, null]));
    }
    if (value === undefined) {
      throw new InvalidResumeError(
        `resume() without a value only continues a static breakpoint; thread "${threadId}" waits on interrupt(). Pass the value to resume with (or nullResume to resume with null).`,
      );
    }
    const ids = new Set(pending.map((p) => p.id));
    let answers: Record<string, unknown>;
    if (
      isPlainObject(resolved) &&
      Object.keys(resolved).length > 0 &&
      Object.keys(resolved).every((k) => ids.has(k))
    ) {
      answers = { ...resolved }; // converted below: the caller's object stays as given
    } else if (
      isPlainObject(resolved) &&
      Object.keys(resolved).some((k) => /^[0-9a-f]{24}$/.test(k))
    ) {
      const unknown = Object.keys(resolved).filter((k) => !ids.has(k));
      throw new InvalidResumeError(
        `Unknown interrupt id${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} for thread "${threadId}". Pending: ${pending.map((p) => `${p.id} (${p.node})`).join(", ")}.`,
      );
    } else if (pending.length === 1) {
      answers = { [pending[0]!.id]: resolved };
    } else {
      throw new InvalidResumeError(
        `Thread "${threadId}" has ${pending.length} pending interrupts, so a single value is ambiguous. Resume with an object keyed by interrupt id: { ${pending.map((p) => `"${p.id}": … /* ${p.node} */`).join(", ")} }.`,
      );
    }
    for (const [k, v] of Object.entries(answers)) {
      if (v === nullResume) answers[k] = null;
      else answers[k] = toJsonValue(v, `resume value for ${k}`);
    }
    return answers;
  }
}

const ignoreError = () => {};

/**
 * What `invoke(null)` sends to continue a thread: nothing from a barrier (the driver steps
 * on), `RESUME` past a breakpoint; a thread paused in a step re-runs its paused tasks,
 * breakpoints inside subgraphs continued, interrupts reached and reported again.
 */
function continueEvent(
  snap: { matches(v: string): boolean; context: unknown },
  env: RunEnv,
  threadId: string,
): GraphEvent | undefined {
  if (snap.matches("barrier")) return undefined;
  if (snap.matches("breakpoint")) return { type: "RESUME", answers: {} };
  const context = snap.context as GraphContext;
  const pending = pendingInterrupts(context, env);
  if (pending.length === 0) {
    throw new InvalidConfigError(
      `invoke(null) continues a thread from its checkpoint, but thread "${threadId}" has none to continue (it has not started, or it finished). Pass an input object.`,
    );
  }
  const answers: Record<string, unknown> = {};
  for (const p of pending) if (p.timing !== "during") answers[p.id] = null;
  return { type: "RESUME", answers, rerun: true };
}

/** The config as nodes and views see it: `checkpoint_ns` names the graph's namespace. */
function withNamespace(config: RunConfig, ns: string): RunConfig {
  if (config.configurable?.checkpoint_ns === ns) return config;
  return { ...config, configurable: { ...config.configurable, checkpoint_ns: ns } };
}

/** A snapshot resting at its barrier with only the tasks that finished (their writes kept). */
function withOnlyFinishedTasks(snapshot: { value: unknown; context: GraphContext }) {
  const tasks = snapshot.context.tasks.filter((t) => t.status === "done");
  return {
    ...snapshot,
    value: "barrier",
    context: { ...snapshot.context, tasks, breakpoint: null },
  };
}

/** The writes a nested run's steps merged so far, in order. */
function journalOf(actor: AnyActor): Array<[string, unknown]> {
  return (actor.getSnapshot().context as GraphContext).journal ?? [];
}

/** `InvokeOptions.metadata` in its JSON form, checked before the run starts. */
function threadMetadata(metadata: unknown): Record<string, unknown> | undefined {
  if (metadata === undefined) return undefined;
  const json = toJsonValue(metadata, "metadata");
  assertThreadMetadata("metadata", json);
  return json as Record<string, unknown>;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

function planFor(input: unknown): Plan {
  if (input instanceof Command) {
    if (input.hasResume) return { kind: "resume", value: input.resume, update: input.update };
    return { kind: "input", update: input.update, goto: input.goto };
  }
  if (input === null || input === undefined) return { kind: "continue" };
  return { kind: "input", update: input };
}
