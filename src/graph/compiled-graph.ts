import { type AnyStateMachine, createActor } from "xstate";
import type {
  Checkpoint,
  Checkpointer,
  CheckpointMetadata,
  CheckpointTuple,
  InterruptRecord,
} from "../checkpoint/checkpointer.js";
import { assertJson } from "../checkpoint/serde.js";
import { InvalidConfigError, InvalidResumeError } from "../errors/index.js";
import { type CheckpointTarget, drive, pendingInterrupts, snapshotOf } from "../runtime/drive.js";
import { attachRunEnv, type RunEnv } from "../runtime/run-env.js";
import type { GraphContext } from "../runtime/task.js";
import type { StreamEvent } from "../stream/events.js";
import { Command, nullResume } from "./command.js";
import type { CompileOptions } from "./graph.js";
import type { GraphInternals } from "./internals.js";
import type { NodeFn, RunConfig, State } from "./types.js";

/** Options of `invoke`, `resume` and `stream`. */
export interface InvokeOptions<C = unknown> {
  config?: RunConfig;
  /** Maximum super-steps for this call (default 25). */
  recursionLimit?: number;
  signal?: AbortSignal;
  /** Passed to nodes as `runtime.context`; never checkpointed. */
  context?: C;
  /** Breakpoints for this call, on top of the compiled ones. */
  interruptBefore?: readonly string[];
  interruptAfter?: readonly string[];
}

/** The outcome of a run: finished, or paused waiting for `resume`. */
export type RunResult<S extends State = State> =
  | { status: "done"; state: S }
  | { status: "interrupted"; interrupt: InterruptRecord; interrupts: InterruptRecord[]; state: S };

/** A task as `getState` shows it. */
export interface TaskView {
  id: string;
  name: string;
  status: "pending" | "done" | "interrupted";
  interrupts: InterruptRecord[];
}

/** A thread's state at one checkpoint. */
export interface StateSnapshot<S extends State = State> {
  values: S;
  /** Nodes that run next (or are paused). */
  next: string[];
  interrupts: InterruptRecord[];
  tasks: TaskView[];
  config: RunConfig;
  parentConfig: RunConfig | undefined;
  metadata: CheckpointMetadata | undefined;
  createdAt: string | undefined;
}

const DEFAULT_RECURSION_LIMIT = 25;

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

  /** The thread's state at its latest checkpoint (or at `configurable.checkpoint_id`). */
  async getState(config: RunConfig): Promise<StateSnapshot<S>> {
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
    return this.#view(tuple.checkpoint);
  }

  /** Every checkpoint of the thread, newest first. */
  async *getStateHistory(
    config: RunConfig,
    options: { limit?: number } = {},
  ): AsyncGenerator<StateSnapshot<S>> {
    const { checkpointer, threadId } = this.#thread(config, "getStateHistory");
    const list = await checkpointer.list(threadId, { ns: "", limit: options.limit });
    for (const checkpoint of list) yield this.#view(checkpoint);
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
    const { actor, target, env } = await this.#start(config, {}, undefined, checkpointer, threadId);
    const context = actor.getSnapshot().context as GraphContext;
    const writes = this.#g.channels.toWrites(values, context.values, {
      node: asNode ?? "updateState",
      step: context.step,
    });
    for (const [key, value] of writes) assertJson(value, `state.${key}`);
    target!.source = "update";
    const update = Object.fromEntries(writes);
    const step = {
      recursionLimit: Number.POSITIVE_INFINITY,
      interruptBefore: [],
      interruptAfter: [],
    };
    actor.send({ type: "UPDATE", update, asNode });
    // As a node: run the update as that node's task, so its edges pick what is next.
    if (asNode !== undefined) actor.send({ type: "STEP", ...step });
    await drive(actor, env, target, { ...step, stopAtBarrier: true });
    actor.stop();
    return {
      configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: target!.latestId! },
    };
  }

  /** Internal: this graph as a node function of a parent graph. */
  asNode(_name: string): NodeFn<any, any> {
    return async (state, runtime) => {
      const result = await this.invoke(state as Partial<S>, {
        context: runtime.context,
        signal: runtime.signal,
      });
      return result.state as Partial<State>;
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

  async #start(
    config: RunConfig,
    options: InvokeOptions<C>,
    emit: RunEnv["emit"],
    checkpointer: Checkpointer | undefined,
    threadId: string | undefined,
  ) {
    let tuple: CheckpointTuple | undefined;
    let target: CheckpointTarget | undefined;
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
      target = {
        checkpointer,
        threadId,
        ns: "",
        parentId: tuple?.checkpoint.id ?? null,
        latestId: latest?.checkpoint.id ?? null,
        source: forked ? "fork" : "loop",
      };
    }
    const env: RunEnv = {
      config,
      context: options.context,
      signal: options.signal,
      writer: () => {},
      persistent: checkpointer !== undefined,
      ns: "",
      emit,
    };
    const actor = tuple
      ? createActor(this.machine, { snapshot: snapshotOf(tuple.checkpoint) as never })
      : createActor(this.machine, { input: { values: this.#g.channels.initialValues() } });
    attachRunEnv(actor.system, env);
    actor.start();
    return { actor, target, env, tuple };
  }

  async #run(plan: Plan, options: InvokeOptions<C>, emit: RunEnv["emit"]): Promise<RunResult<S>> {
    const config = options.config ?? {};
    const checkpointer = this.checkpointer;
    let threadId = config.configurable?.thread_id;
    if (checkpointer || plan.kind !== "input")
      threadId = this.#thread(config, plan.kind === "input" ? "invoke" : "resume").threadId;
    if (options.signal?.aborted) {
      const { AbortError } = await import("../errors/index.js");
      throw new AbortError(options.signal.reason);
    }
    const { actor, target, env } = await this.#start(config, options, emit, checkpointer, threadId);
    const snap = actor.getSnapshot();
    const context = snap.context as GraphContext;
    try {
      if (plan.kind === "resume") {
        actor.send({
          type: "RESUME",
          answers: this.#answers(snap, plan.value, env.persistent, threadId!),
        });
      } else if (plan.kind === "continue") {
        if (snap.matches("breakpoint")) actor.send({ type: "RESUME", answers: {} });
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
        const writes = this.#g.channels.toWrites(plan.update, context.values, {
          node: "__start__",
          step: context.step,
        });
        if (env.persistent) for (const [key, value] of writes) assertJson(value, `input.${key}`);
        if (target && target.source !== "fork") target.source = "input";
        actor.send({ type: "INPUT", update: Object.fromEntries(writes), goto: plan.goto });
      }
    } catch (error) {
      actor.stop();
      throw error;
    }
    const result = await drive(actor, env, target, {
      recursionLimit: options.recursionLimit ?? DEFAULT_RECURSION_LIMIT,
      interruptBefore: [
        ...(this.#options.interruptBefore ?? []),
        ...(options.interruptBefore ?? []),
      ],
      interruptAfter: [...(this.#options.interruptAfter ?? []), ...(options.interruptAfter ?? [])],
    });
    actor.stop();
    return result as RunResult<S>;
  }

  /** Pair a resume value with the pending interrupts, or explain why it does not fit. */
  #answers(
    snap: { matches(v: string): boolean; context: unknown },
    value: unknown,
    persistent: boolean,
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
      answers = resolved as Record<string, unknown>;
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
      else if (persistent) assertJson(v, `resume value for ${k}`);
    }
    return answers;
  }

  #view(checkpoint: Checkpoint): StateSnapshot<S> {
    const context = (checkpoint.snapshot as { context: Omit<GraphContext, "values"> }).context;
    const byTask = new Map<string, InterruptRecord[]>();
    for (const i of checkpoint.interrupts)
      byTask.set(i.taskId, [...(byTask.get(i.taskId) ?? []), i]);
    return {
      values: checkpoint.values as S,
      next: checkpoint.next,
      interrupts: checkpoint.interrupts,
      tasks: context.tasks.map((t) => ({
        id: t.id,
        name: t.node,
        status: t.status,
        interrupts: byTask.get(t.id) ?? [],
      })),
      config: {
        configurable: {
          thread_id: checkpoint.threadId,
          checkpoint_ns: checkpoint.ns,
          checkpoint_id: checkpoint.id,
        },
      },
      parentConfig: checkpoint.parentId
        ? {
            configurable: {
              thread_id: checkpoint.threadId,
              checkpoint_ns: checkpoint.ns,
              checkpoint_id: checkpoint.parentId,
            },
          }
        : undefined,
      metadata: checkpoint.metadata,
      createdAt: checkpoint.createdAt,
    };
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
