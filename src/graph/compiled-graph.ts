import {
  type AnyActor,
  type AnyStateMachine,
  createActor,
  type InspectionEvent,
  type Observer,
} from "xstate";
import type { Checkpointer, CheckpointTuple, InterruptRecord } from "../checkpoint/checkpointer.js";
import { toJsonValue } from "../checkpoint/serde.js";
import { AbortError, InvalidConfigError, InvalidResumeError } from "../errors/index.js";
import { CheckpointWriter, type Durability } from "../runtime/checkpoint-writer.js";
import { type DriveOptions, drive, pendingInterrupts, recoverTasks } from "../runtime/drive.js";
import { currentTask, GraphInterrupt, type Scratchpad } from "../runtime/interrupt.js";
import { attachRunEnv, type RunEnv } from "../runtime/run-env.js";
import { WriteList } from "../runtime/run-task.js";
import { contextOf, expandSnapshot, stepOriginOf } from "../runtime/snapshot-format.js";
import { DEFAULT_RUN, type GraphContext, type RunOptions } from "../runtime/task.js";
import type { StreamEvent } from "../stream/events.js";
import { Command, nullResume } from "./command.js";
import type { GraphEvent } from "./compile.js";
import { END, START } from "./constants.js";
import type { CompileOptions } from "./graph.js";
import type { GraphInternals } from "./internals.js";
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
}

/** The outcome of a run: finished, or paused waiting for `resume`. */
export type RunResult<S extends State = State> =
  | { status: "done"; state: S }
  | { status: "interrupted"; interrupt: InterruptRecord; interrupts: InterruptRecord[]; state: S };

type Plan =
  | { kind: "input"; update: unknown; goto?: unknown }
  | { kind: "resume"; value: unknown }
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
  readonly #g: GraphInternals;
  readonly #options: CompileOptions;

  constructor(g: GraphInternals, machine: AnyStateMachine, options: CompileOptions) {
    this.#g = g;
    this.machine = machine;
    this.name = g.spec.name;
    this.checkpointer = options.checkpointer;
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
   * The thread's state at its latest checkpoint (or at `configurable.checkpoint_id`).
   * With `{ subgraphs: true }`, each task that ran a subgraph carries that run's state as `task.state`.
   */
  async getState(
    config: RunConfig,
    options: { subgraphs?: boolean } = {},
  ): Promise<StateSnapshot<S>> {
    const { checkpointer, threadId } = this.#thread(config, "getState");
    const id = config.configurable?.checkpoint_id;
    const tuple = id
      ? await checkpointer.get(threadId, "", id)
      : await checkpointer.getLatest(threadId, "");
    if (!tuple) {
      if (id) throw new InvalidConfigError(`Thread "${threadId}" has no checkpoint "${id}".`);
      return {
        values: this.#g.channels.initialValues() as S,
        next: [],
        interrupts: [],
        tasks: [],
        config: { configurable: { thread_id: threadId, checkpoint_ns: "" } },
        parentConfig: undefined,
        metadata: undefined,
        createdAt: undefined,
      };
    }
    return viewCheckpoint<S>(tuple.checkpoint, options.subgraphs ? checkpointer : undefined);
  }

  /** Every checkpoint of the thread, newest first. */
  async *getStateHistory(
    config: RunConfig,
    options: { limit?: number } = {},
  ): AsyncGenerator<StateSnapshot<S>> {
    const { checkpointer, threadId } = this.#thread(config, "getStateHistory");
    const list = await checkpointer.list(threadId, { ns: "", limit: options.limit });
    for (const checkpoint of list) yield await viewCheckpoint<S>(checkpoint, undefined);
  }

  /**
   * Write `values` into the thread as a new checkpoint, through the reducers.
   * With `asNode` the update counts as that node's output and its edges decide
   * what runs next; without it, what was next (or paused) stays so.
   * Returns the config of the new checkpoint.
   */
  async updateState(config: RunConfig, values: Partial<S>, asNode?: string): Promise<RunConfig> {
    const { checkpointer, threadId } = this.#thread(config, "updateState");
    if (asNode !== undefined && !this.#g.spec.nodes.has(asNode)) {
      throw new InvalidConfigError(
        `updateState(…, asNode: "${asNode}"): no such node. Known nodes: ${this.nodes.join(", ")}.`,
      );
    }
    // No limit, no breakpoints: the update is applied, not run; it stops at the next barrier.
    const run = {
      recursionLimit: Number.POSITIVE_INFINITY,
      interruptBefore: [],
      interruptAfter: [],
      holds: true,
    };
    const { actor, writer, env } = await this.#start(
      config,
      {},
      undefined,
      checkpointer,
      threadId,
      run,
    );
    let first: GraphEvent;
    try {
      const context = actor.getSnapshot().context as GraphContext;
      const writes = this.#g.channels.toWrites(values, context.values, {
        node: asNode ?? "updateState",
        step: context.step,
      });
      // As a node, the update runs as that node's task, so its edges pick what is next; the
      // run stops at the barrier after it. Without, the machine stays where it is.
      first = { type: "UPDATE", update: Object.fromEntries(writes), asNode };
    } catch (error) {
      actor.stop();
      throw error;
    }
    writer!.source = "update";
    await drive(actor, env, writer, { first, stopAtBarrier: true });
    actor.stop();
    return {
      configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: writer!.latestId! },
    };
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
  ) {
    let actor: AnyActor;
    if (tuple) {
      const snapshot = expandSnapshot(tuple.checkpoint, run) as {
        value: unknown;
        context: GraphContext;
      };
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
    attachRunEnv(actor.system, env);
    actor.start();
    return actor;
  }

  async #start(
    config: RunConfig,
    options: InvokeOptions<C>,
    emit: RunEnv["emit"],
    checkpointer: Checkpointer | undefined,
    threadId: string | undefined,
    run = this.#runOptions(options, checkpointer !== undefined),
  ) {
    let tuple: CheckpointTuple | undefined;
    let writer: CheckpointWriter | undefined;
    if (checkpointer && threadId) {
      const wanted = config.configurable?.checkpoint_id;
      const latest = await checkpointer.getLatest(threadId, "");
      tuple = wanted ? await checkpointer.get(threadId, "", wanted) : latest;
      if (wanted && !tuple) {
        throw new InvalidConfigError(
          `Thread "${threadId}" has no checkpoint "${wanted}"; pick one from getStateHistory().`,
        );
      }
      const forked = wanted !== undefined && wanted !== latest?.checkpoint.id;
      writer = new CheckpointWriter(checkpointer, threadId, "", {
        parentId: tuple?.checkpoint.id ?? null,
        latestId: latest?.checkpoint.id ?? null,
        source: forked ? "fork" : "loop",
      });
    }
    const env: RunEnv = {
      config,
      context: options.context ?? {},
      signal: options.signal,
      persistent: checkpointer !== undefined,
      ns: "",
      emit,
      thread: checkpointer && threadId ? { checkpointer, threadId } : undefined,
      stepOrigin: tuple ? stepOriginOf(tuple.checkpoint) : undefined,
    };
    return { actor: this.#actor(tuple, env, run, options.inspect), writer, env, tuple };
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
      config: parent.config,
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
    const result = await drive(actor, env, writer, { first });
    const journal = (actor.getSnapshot().context as GraphContext).journal ?? [];
    actor.stop();
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
    const writes = this.#g.channels.toWrites(input, context.values, {
      node: START,
      step: context.step,
    });
    return { type: "INPUT", update: Object.fromEntries(writes), ...extra };
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
    let threadId = config.configurable?.thread_id;
    if (checkpointer || plan.kind !== "input")
      threadId = this.#thread(config, plan.kind === "input" ? "invoke" : "resume").threadId;
    if (options.signal?.aborted) throw new AbortError(options.signal.reason);
    const { actor, writer, env } = await this.#start(config, options, emit, checkpointer, threadId);
    const snap = actor.getSnapshot();
    const context = snap.context as GraphContext;
    let first: DriveOptions["first"];
    try {
      if (plan.kind === "resume") {
        first = {
          type: "RESUME",
          answers: this.#answers(snap, plan.value, threadId!),
        };
      } else if (plan.kind === "continue") {
        // From a barrier the driver steps on by itself; past a breakpoint, RESUME goes on.
        if (snap.matches("breakpoint")) first = { type: "RESUME", answers: {} };
        else if (!snap.matches("barrier")) {
          const pending = pendingInterrupts(context, "");
          throw pending.length > 0
            ? new InvalidResumeError(
                `Thread "${threadId}" is paused at ${pending.length} interrupt(s); continue it with resume(value, { config }) instead of invoke(null).`,
              )
            : new InvalidConfigError(
                `invoke(null) continues a thread from its checkpoint, but thread "${threadId ?? "<none>"}" has none. Pass an input object.`,
              );
        }
      } else {
        if (writer && writer.source !== "fork") writer.source = "input";
        first = this.#input(actor, plan.update, { goto: plan.goto });
      }
    } catch (error) {
      actor.stop();
      throw error;
    }
    const result = await drive(actor, env, writer, { first });
    actor.stop();
    return result as RunResult<S>;
  }

  /** Pair a resume value with the pending interrupts, or explain why it does not fit. */
  #answers(
    snap: { matches(v: string): boolean; context: unknown },
    value: unknown,
    threadId: string,
  ) {
    const context = snap.context as GraphContext;
    const pending = pendingInterrupts(context, "");
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

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

function planFor(input: unknown): Plan {
  if (input instanceof Command) {
    if (input.hasResume) return { kind: "resume", value: input.resume };
    return { kind: "input", update: input.update, goto: input.goto };
  }
  if (input === null || input === undefined) return { kind: "continue" };
  return { kind: "input", update: input };
}
