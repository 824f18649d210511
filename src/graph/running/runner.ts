// The engine behind CompiledGraph: restores a thread, drives its machine, and writes its checkpoints.
import { randomUUID } from "node:crypto";
import { type AnyActor, type AnyStateMachine, createActor } from "xstate";
import type { Checkpointer, CheckpointTuple } from "../../checkpoint/checkpointer.js";
import { isPauseWrite, waitingInterrupts } from "../../checkpoint/paused-tasks.js";
import { copyOwn, toJsonValue } from "../../checkpoint/serde.js";
import { assertThreadMetadata } from "../../checkpoint/thread-records.js";
import { AbortError, InvalidConfigError } from "../../errors/index.js";
import { CheckpointWriter } from "../../runtime/checkpoint-writer.js";
import { claimTtlOf } from "../../runtime/claim-renewal.js";
import {
  type DriveOptions,
  type DriveResult,
  drive,
  pendingInterrupts,
} from "../../runtime/drive.js";
import {
  currentTask,
  GraphInterrupt,
  isParentCommand,
  type Scratchpad,
} from "../../runtime/interrupt.js";
import { recoverStep, stepOriginOfTuple } from "../../runtime/recover-step.js";
import { attachRunEnv, type RunEnv } from "../../runtime/run-env.js";
import {
  contextOf,
  expandSnapshot,
  machineValue,
  storedValue,
} from "../../runtime/snapshot-format.js";
import { DEFAULT_RUN, type GraphContext, type RunOptions } from "../../runtime/task.js";
import { valuesWithFinished } from "../compiling/barrier.js";
import { drivenMachine, type GraphEvent, RUN_INPUT } from "../compiling/compile.js";
import type { GraphInternals } from "../compiling/internals.js";
import { continueAnswers, resumeAnswers } from "../compiling/resume-answers.js";
import { assertFitsGraph } from "../compiling/snapshot-fit.js";
import { isCommand } from "../definition/command.js";
import { START } from "../definition/constants.js";
import type { CompileOptions } from "../definition/graph-spec.js";
import type { RunConfig, State } from "../definition/types.js";
import type { InspectionObserver, InvokeOptions, RunResult } from "./invoke-options.js";
import { pausedFrom, withOnlyFinishedTasks } from "./restore.js";
import { retryingAttempts } from "./retry-record.js";

/** What a call asks for: new input (or a Command as input), a resume, or to continue. */
export type Plan =
  | { kind: "input"; update: unknown; goto?: unknown }
  | { kind: "resume"; value: unknown; update?: unknown }
  | { kind: "continue" };

/**
 * The engine behind a `CompiledGraph`: a run on a thread restored from its checkpoint,
 * claimed, and driven to its next rest; and a graph run nested in another graph's task.
 * `CompiledGraph` is its public face; nothing else uses it.
 */
export class GraphRunner<S extends State = State, C = unknown> {
  readonly #g: GraphInternals;
  readonly #machine: AnyStateMachine;
  /** The same chart for runs that never hold at a barrier (see `drivenMachine`). */
  readonly #driven: AnyStateMachine;
  readonly #options: CompileOptions;
  readonly #checkpointer: Checkpointer | undefined;

  constructor(g: GraphInternals, machine: AnyStateMachine, options: CompileOptions) {
    this.#g = g;
    this.#machine = machine;
    this.#driven = drivenMachine(machine);
    this.#options = options;
    this.#checkpointer = options.checkpointer;
  }

  /** The thread `config` names, and the store it lives in; or a typed error. @internal */
  thread(
    config: RunConfig | undefined,
    what: string,
  ): { checkpointer: Checkpointer; threadId: string } {
    if (!this.#checkpointer) {
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
    return { checkpointer: this.#checkpointer, threadId };
  }

  /**
   * A started actor of this graph's machine: fresh, or restored from `tuple`. A
   * barrier restored with pending writes gets its finished tasks back (crash
   * recovery): only the others run again; a step that paused rests paused again.
   */
  #actor(
    tuple: CheckpointTuple | undefined,
    env: RunEnv,
    run: RunOptions,
    inspect: InspectionObserver | undefined,
    asNode?: string,
  ) {
    let actor: AnyActor;
    const machine = run.holds ? this.#machine : this.#driven;
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
      // A breakpoint is its step's barrier too: what was continued from it is recovered alike.
      snapshot = recoverStep(snapshot, tuple.pendingWrites);
      snapshot = { ...snapshot, value: machineValue(snapshot.value) };
      actor = createActor(machine, { snapshot: snapshot as never, inspect });
    } else {
      actor = createActor(machine, {
        input: { [RUN_INPUT]: true, values: this.#g.channels.initialValues(), run },
        inspect,
      });
    }
    // The driver reads failures off the snapshot; without an error observer XState would
    // also rethrow them from a timer, where nobody can catch them.
    actor.subscribe({ error: ignoreError });
    attachRunEnv(actor, env);
    actor.start();
    return actor;
  }

  /**
   * A run on the thread `config` names (or none): its checkpoint restored into a started
   * actor, the writer its checkpoints go through, and what its nodes can reach. A store
   * that reads and claims in one call (`claimLatest`) is claimed here, with the read: then
   * every refusal from here until the run is driven releases that claim, and only that,
   * so a refused run leaves the thread as it was. Otherwise (and for a run with
   * metadata) the thread is read here and claimed when the run is driven.
   * @internal
   */
  async start(start: {
    config: RunConfig;
    options: InvokeOptions<C>;
    thread: { checkpointer: Checkpointer; threadId: string } | undefined;
    run: RunOptions;
    emit?: RunEnv["emit"];
    asNode?: string;
    /** A resume: a named checkpoint whose step paused stands for that pause. */
    resuming?: boolean;
    /** Restore the checkpoint without its step's pause (its paused tasks' writes). */
    withoutPause?: boolean;
  }) {
    const { config, options, thread } = start;
    if (!thread) return this.#started(start, undefined, undefined, undefined);
    const { checkpointer, threadId } = thread;
    // Checked before the thread is claimed: a refusal here has nothing to release.
    const metadata = threadMetadata(options.metadata);
    // A run with metadata claims after its checks, as the claim merges that metadata into
    // the thread's record (searchable while the run holds it) and a refusal must not.
    const held =
      checkpointer.claimLatest && !hasKeys(metadata) ? (options.runId ?? randomUUID()) : undefined;
    const latest =
      held === undefined
        ? await checkpointer.getLatest(threadId, "")
        : await checkpointer.claimLatest!(threadId, {
            runId: held,
            ttlMs: claimTtlOf(checkpointer),
          });
    let writer: CheckpointWriter | undefined;
    try {
      const wanted = config.configurable?.checkpoint_id;
      let tuple = wanted ? await checkpointer.get(threadId, "", wanted) : latest;
      if (wanted && !tuple) {
        throw new InvalidConfigError(
          `Thread "${threadId}" has no checkpoint "${wanted}"; pick one from getStateHistory().`,
        );
      }
      // Resuming with a fork's config (its checkpoint_id) means the pause its step came to.
      // Only a named checkpoint differs from the latest: the usual resume skips the check.
      if (
        start.resuming &&
        tuple &&
        latest &&
        tuple !== latest &&
        (await pausedFrom(checkpointer, latest, tuple))
      ) {
        tuple = latest;
      }
      if (tuple && start.withoutPause) {
        tuple = { ...tuple, pendingWrites: tuple.pendingWrites.filter((w) => !isPauseWrite(w)) };
      }
      const forked = wanted !== undefined && tuple?.checkpoint.id !== latest?.checkpoint.id;
      // A fork starts its retries afresh; graphs without retry policies never look.
      const priorAttempts =
        tuple && !forked && this.#g.policies.size > 0
          ? await retryingAttempts(checkpointer, tuple)
          : undefined;
      writer = new CheckpointWriter(checkpointer, threadId, "", {
        parentId: tuple?.checkpoint.id ?? null,
        headParentId: tuple?.checkpoint.parentId ?? null,
        latestId: latest?.checkpoint.id ?? null,
        source: forked ? "fork" : "loop",
        thread: { graph: this.#g.spec.name, metadata },
        ...(tuple && { pendingWrites: tuple.pendingWrites }),
        ...(options.runId !== undefined && { runId: options.runId }),
        ...(metadata && { runMetadata: metadata }),
      });
      if (held !== undefined) writer.hold(held);
      return this.#started(start, tuple, writer, priorAttempts);
    } catch (error) {
      // The refusal is what the caller must see; a release that fails lets the claim run out.
      if (writer) await writer.close().catch(ignoreError);
      else if (held !== undefined) {
        await checkpointer.releaseThread(threadId, held).catch(ignoreError);
      }
      throw error;
    }
  }

  /** `start`'s actor and run environment, once the thread (if any) is read. */
  #started(
    start: Parameters<GraphRunner<S, C>["start"]>[0],
    tuple: CheckpointTuple | undefined,
    writer: CheckpointWriter | undefined,
    priorAttempts: RunEnv["priorAttempts"],
  ) {
    const { config, options, thread } = start;
    const env: RunEnv = {
      config: withNamespace(config, ""),
      context: options.context ?? {},
      store: this.#options.store,
      signal: options.signal,
      persistent: thread !== undefined,
      ns: "",
      emit: start.emit,
      thread: thread && options.runId !== undefined ? { ...thread, runId: options.runId } : thread,
      stepOrigin: tuple ? stepOriginOfTuple(tuple) : undefined,
      priorAttempts,
    };
    const actor = this.#actor(tuple, env, start.run, options.inspect, start.asNode);
    return { actor, writer, env };
  }

  /**
   * This graph's run as a subgraph of a thread (namespace `ns`), restored from that run's
   * latest checkpoint (or `checkpointId`) to be updated: its checkpoints keep the parent
   * step they belong to, so the parent's paused task goes on from the update. Driven with
   * `parentLatestId`, the update claims the whole thread, as its parent's run would.
   * @internal
   */
  async startNested(start: {
    thread: { checkpointer: Checkpointer; threadId: string };
    ns: string;
    checkpointId: string | undefined;
    run: RunOptions;
    asNode?: string;
  }) {
    const { thread, ns, checkpointId } = start;
    const { checkpointer, threadId } = thread;
    const latest = await checkpointer.getLatest(threadId, ns);
    const tuple = checkpointId ? await checkpointer.get(threadId, ns, checkpointId) : latest;
    if (!tuple) {
      throw new InvalidConfigError(
        `Thread "${threadId}" has no checkpoint${checkpointId ? ` "${checkpointId}"` : ""} in subgraph namespace "${ns}": take checkpoint_ns from a task's checkpoint in getState(config).tasks once that subgraph has run.`,
      );
    }
    const writer = new CheckpointWriter(checkpointer, threadId, ns, {
      parentId: tuple.checkpoint.id,
      headParentId: tuple.checkpoint.parentId,
      latestId: latest?.checkpoint.id ?? null,
      source: "update",
      metadata: { parentStep: tuple.checkpoint.metadata.parentStep },
    });
    const env: RunEnv = {
      config: { configurable: { thread_id: threadId, checkpoint_ns: ns } },
      context: {},
      store: this.#options.store,
      signal: undefined,
      persistent: true,
      ns,
      emit: undefined,
      thread,
      stepOrigin: stepOriginOfTuple(tuple),
    };
    const parentLatestId = (await checkpointer.getLatest(threadId, ""))?.checkpoint.id ?? null;
    const actor = this.#actor(tuple, env, start.run, undefined, start.asNode);
    return { actor, writer, env, parentLatestId };
  }

  /**
   * Drive a started run to its next rest, then end it: a top-level run claims its thread
   * first, so nothing runs unless this call holds the thread; and whatever way it ends, the
   * actor stops and nothing is stored for it afterwards.
   * @internal
   */
  async drive(
    actor: AnyActor,
    env: RunEnv,
    writer: CheckpointWriter | undefined,
    options: DriveOptions,
  ): Promise<DriveResult> {
    return this.#claimed(actor, env, writer, async () => {
      // A streamed top-level run shows a paused step's finished writes before the pause.
      const pauseValues = env.emit && env.ns === "" ? this.#pauseValues : undefined;
      const result = await drive(
        actor,
        env,
        writer,
        pauseValues ? { ...options, pauseValues } : options,
      );
      if (result.status !== "interrupted") return result;
      // A paused step shows what its finished tasks wrote, as getState does.
      const context = actor.getSnapshot().context as GraphContext;
      return { ...result, state: valuesWithFinished(this.#g.channels, context) };
    });
  }

  /**
   * Drive a run held at its barriers (`bulkUpdateState`) through one event after another,
   * each to the barrier after it, under one claim: no other run writes between them. The
   * first event is made by the caller (before the claim); each next one from the context
   * the last left.
   * @internal
   */
  async driveEach(
    actor: AnyActor,
    env: RunEnv,
    writer: CheckpointWriter | undefined,
    first: GraphEvent,
    then: ReadonlyArray<(context: GraphContext) => GraphEvent>,
    /** A subgraph run updated on its own: the parent's latest checkpoint, which its claim expects. */
    parentLatestId?: string | null,
  ): Promise<DriveResult> {
    return this.#claimed(
      actor,
      env,
      writer,
      async () => {
        let result = await drive(actor, env, writer, { first, stopAtBarrier: true });
        for (const eventAt of then) {
          const next = eventAt(actor.getSnapshot().context as GraphContext);
          result = await drive(actor, env, writer, { first: next, stopAtBarrier: true });
        }
        return result;
      },
      parentLatestId,
    );
  }

  /**
   * Run `body` on a started run, then end it: a top-level run claims its thread first, so
   * nothing runs unless this call holds the thread; and whatever way it ends, the actor
   * stops and nothing is stored for it afterwards.
   */
  async #claimed(
    actor: AnyActor,
    env: RunEnv,
    writer: CheckpointWriter | undefined,
    body: () => Promise<DriveResult>,
    /** A subgraph run updated on its own: the parent's latest checkpoint, which its claim expects. */
    parentLatestId?: string | null,
  ): Promise<DriveResult> {
    // How the run ended, for the thread's record (a failure marks it "error").
    const ended: { failed?: unknown } = {};
    try {
      // A thread read with its claim (see `start`) is held already.
      if (writer && !writer.holdsClaim) {
        if (env.ns === "") await writer.claim(writer.runId ?? randomUUID());
        else if (parentLatestId !== undefined) await writer.claim(randomUUID(), parentLatestId);
      }
      return await body();
    } catch (error) {
      ended.failed = error;
      throw error;
    } finally {
      actor.stop();
      await writer?.close(ended);
    }
  }

  /** The values a paused step shows if some of its tasks finished with writes; else none. */
  readonly #pauseValues = (context: GraphContext): Record<string, unknown> | undefined => {
    for (const t of context.tasks) {
      if (t.status === "done" && t.kind !== "input" && t.writes && t.writes.length > 0) {
        return valuesWithFinished(this.#g.channels, context);
      }
    }
    return undefined;
  };

  /**
   * Run this graph inside a task of another graph: same thread, its own
   * namespace (`node:taskId`, levels joined by `|`). A pause becomes the calling
   * task's pause; on the task's re-run the nested run resumes where it stopped,
   * and a nested run that already finished in this step is replayed, not re-run.
   * @internal
   */
  async runNested(
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
        headParentId: tuple?.checkpoint.parentId ?? null,
        latestId: latest?.checkpoint.id ?? null,
        source: tuple ? "loop" : "input",
        metadata: { parentStep: parent.stepOrigin },
        ...(thread.runId !== undefined && { runId: thread.runId }),
        ...(tuple && { pendingWrites: tuple.pendingWrites }),
      });
    }
    const waiting = tuple ? waitingInterrupts(tuple.checkpoint, tuple.pendingWrites) : [];
    if (tuple && tuple.checkpoint.next.length === 0 && waiting.length === 0) {
      const context = contextOf(tuple.checkpoint);
      return {
        result: { status: "done", state: tuple.checkpoint.values as S },
        journal: context.journal ?? [],
      };
    }
    const env: RunEnv = {
      config: withNamespace(parent.config, ns),
      context: options.context ?? parent.context,
      store: parent.store,
      signal: pad.runtime.signal,
      persistent: thread !== undefined,
      ns,
      emit: parent.emit,
      thread,
      stepOrigin: tuple ? stepOriginOfTuple(tuple) : undefined,
      priorAttempts:
        tuple && thread && this.#g.policies.size > 0
          ? await retryingAttempts(thread.checkpointer, tuple)
          : undefined,
    };
    const run = this.#runOptions(options, thread !== undefined);
    const actor = this.#actor(tuple, env, run, options.inspect);
    let first: DriveOptions["first"];
    try {
      if (tuple && waiting.length > 0) {
        const pending = waiting;
        const answers: Record<string, unknown> = {};
        for (const i of pending)
          if (i.id in pad.nestedAnswers) answers[i.id] = pad.nestedAnswers[i.id];
        if (Object.keys(answers).length === 0) {
          pad.raised = true;
          throw new GraphInterrupt(pad, pending);
        }
        const atBreakpoint = storedValue(actor.getSnapshot().value) === "breakpoint";
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
      result = await this.drive(actor, env, writer, { first });
    } catch (error) {
      // Command.PARENT ends the child run: what it wrote before goes up with the command's
      // own update, in order, so the parent's reducers see every write exactly once.
      if (isParentCommand(error)) throw error.after(journalOf(actor));
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
    const update = this.writes(context, input, START);
    return { type: "INPUT", update: Object.fromEntries(update), ...extra };
  }

  /** An update applied in place through the reducers (no task runs for it), or none. */
  #update(context: GraphContext, update: unknown, node: string): GraphEvent | undefined {
    if (update === undefined || update === null) return undefined;
    const writes = this.writes(context, update, node);
    return writes.length > 0 ? { type: "UPDATE", update: Object.fromEntries(writes) } : undefined;
  }

  /** An update's writes, checked against the schema and turned into their JSON form. @internal */
  writes(context: GraphContext, update: unknown, node: string): Array<[string, unknown]> {
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
      holds: false,
      waitsForWrites: persistent && durability === "sync",
    };
  }

  /** Run (or resume, or continue) on a thread: what invoke, resume and stream do. @internal */
  async run(plan: Plan, options: InvokeOptions<C>, emit: RunEnv["emit"]): Promise<RunResult<S>> {
    const config = options.config ?? {};
    const pad = currentTask.getStore();
    if (
      pad &&
      plan.kind === "input" &&
      plan.goto === undefined &&
      config.configurable?.thread_id === undefined
    ) {
      return (await this.runNested(plan.update, options, pad)).result;
    }
    const checkpointer = this.#checkpointer;
    const thread =
      checkpointer || plan.kind !== "input"
        ? this.thread(config, plan.kind === "input" ? "invoke" : "resume")
        : undefined;
    if (options.signal?.aborted) throw new AbortError(options.signal.reason);
    const run = this.#runOptions(options, thread !== undefined);
    const resuming = plan.kind === "resume";
    const start = { config, options, thread, run, emit, resuming };
    // Without a thread there is nothing to read: no await (each costs a promise's turn).
    const { actor, writer, env } = thread
      ? await this.start(start)
      : this.#started(start, undefined, undefined, undefined);
    const snap = actor.getSnapshot();
    const context = snap.context as GraphContext;
    const threadId = thread?.threadId ?? "<none>";
    let first: DriveOptions["first"];
    try {
      const at = storedValue(snap.value);
      if (plan.kind !== "input" && emit && at !== "barrier" && at !== "breakpoint") {
        // A streamed resume starts from the checkpoint's values, as in LangGraph.js: what the
        // paused step's finished tasks wrote shows at its barrier. A barrier, and a breakpoint
        // (continued through the barrier), emit their own.
        emit({ type: "values", ns: "", step: context.step, values: context.values });
      }
      if (plan.kind === "resume") {
        const pending = pendingInterrupts(context, env);
        const atBreakpoint = storedValue(snap.value) === "breakpoint";
        const answers = resumeAnswers(pending, plan.value, { threadId, atBreakpoint });
        // Command({ resume, update }): the update goes through the reducers first, so the
        // resumed tasks see it (as in LangGraph.js). Checked before anything is sent.
        const update = this.#update(context, plan.update, START);
        if (update) actor.send(update);
        first = { type: "RESUME", answers };
      } else if (plan.kind === "continue") {
        // From a barrier the driver steps on by itself; past a breakpoint, RESUME goes on.
        if (storedValue(snap.value) === "breakpoint") first = { type: "RESUME", answers: {} };
        else if (storedValue(snap.value) !== "barrier") {
          const answers = continueAnswers(pendingInterrupts(context, env), threadId);
          first = { type: "RESUME", answers, rerun: true };
        }
      } else {
        writer?.startedBy("input");
        first = this.#input(actor, plan.update, { goto: plan.goto });
      }
    } catch (error) {
      // Refused before anything ran: a claim taken with the read goes, and nothing else (if
      // that release fails, the claim runs out; the refusal is what the caller must see).
      actor.stop();
      await writer?.close().catch(ignoreError);
      throw error;
    }
    return (await this.drive(actor, env, writer, { first })) as RunResult<S>;
  }
}

const ignoreError = () => {};

/** The config as nodes and views see it: `checkpoint_ns` names the graph's namespace. */
function withNamespace(config: RunConfig, ns: string): RunConfig {
  if (config.configurable?.checkpoint_ns === ns) return config;
  // Copied key by key: a spread and then a key it lacks costs a new hidden class (see copyOwn).
  const configurable = copyOwn(config.configurable ?? {});
  configurable.checkpoint_ns = ns;
  return { ...config, configurable };
}

/** `InvokeOptions.metadata` in its JSON form, checked before the run starts. */
function threadMetadata(metadata: unknown): Record<string, unknown> | undefined {
  if (metadata === undefined) return undefined;
  const json = toJsonValue(metadata, "metadata");
  assertThreadMetadata("metadata", json);
  return json as Record<string, unknown>;
}

/** Whether run metadata has anything to merge into the thread's record (`{}` has not). */
function hasKeys(metadata: Record<string, unknown> | undefined): boolean {
  for (const _ in metadata) return true;
  return false;
}

/** The writes a nested run's steps merged so far, in order. */
function journalOf(actor: AnyActor): Array<[string, unknown]> {
  return (actor.getSnapshot().context as GraphContext).journal ?? [];
}

export function planFor(input: unknown): Plan {
  if (isCommand(input)) {
    if (input.hasResume) return { kind: "resume", value: input.resume, update: input.update };
    return { kind: "input", update: input.update, goto: input.goto };
  }
  if (input === null || input === undefined) return { kind: "continue" };
  return { kind: "input", update: input };
}
