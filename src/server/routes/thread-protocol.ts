// The SDK's `threads.stream` (its thread-centric "v2" protocol) over HTTP commands and SSE.
import type { Context } from "hono";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import type { CompiledGraph, StateSnapshot } from "../../index.js";
import type { BackgroundRun } from "../../runs/index.js";
import { FINAL_RUN_STATUSES } from "../../runs/index.js";
import { RequestError } from "../errors.js";
import { checkpointNamespace } from "../protocol/namespace.js";
import type { ProtocolEvent, UnnumberedEvent } from "../protocol/protocol-event.js";
import { type RunOutcome, RunProtocolEvents } from "../protocol/run-protocol-events.js";
import { parseBody } from "../request-body.js";
import { findThread, type ServerContext } from "../server-context.js";
import { threadRuns } from "../thread-runs.js";
import { toWireValues } from "../wire/messages.js";
import { finalValues, runBody, startRun } from "./runs.js";
import { graphOf } from "./threads.js";

/** The thread's latest runs numbered into its log (deleting one renumbers those after it). */
const RUN_WINDOW = 1000;
/** The run stream modes the thread's protocol log is made of (with the subgraphs' events). */
const RUN_MODES = [
  "values",
  "updates",
  "messages-tuple",
  "custom",
  "tasks",
  "checkpoints",
  "tools",
] as const;
/** A comment this often keeps proxies (and the SDK's idle check) from taking it for dead. */
const HEARTBEAT_MS = 15_000;

export type { ProtocolEvent } from "../protocol/protocol-event.js";

/** How a run that ended did, as its last root `lifecycle` event says. */
function outcomeOf(run: BackgroundRun, requestedInput: boolean): RunOutcome {
  if (run.status === "error")
    return { event: "failed", error: run.error?.message ?? "The run failed." };
  // A run paused on an interrupt, or cancelled (LangGraph's "interrupted" too), did not complete.
  return { event: run.status !== "success" || requestedInput ? "interrupted" : "completed" };
}

/**
 * One run's protocol events (see `RunProtocolEvents`), from its root `lifecycle` `running`
 * to its end (`completed`, `interrupted` or `failed`). A run another process executed
 * reports only its end here: then, if it was still going when reached, the values it
 * ended with.
 */
async function* runProtocolEvents(
  ctx: ServerContext,
  run: BackgroundRun,
  signal: AbortSignal,
): AsyncGenerator<UnnumberedEvent> {
  const events = new RunProtocolEvents(run.graphId);
  const wasActive = !FINAL_RUN_STATUSES.has(run.status);
  yield* events.start();
  let relayed = 0;
  for await (const e of ctx.runs.events(run.runId, { signal })) {
    relayed += 1;
    yield* events.push(e.event, e.data);
  }
  if (signal.aborted) return;
  // A run ended when listed is read as listed: its end follows its events at once.
  const ended = wasActive ? await ctx.runs.join(run.runId, { signal }).catch(() => undefined) : run;
  if (!ended || signal.aborted) return;
  if (relayed === 0 && wasActive && ended.status !== "error")
    yield* events.push("values", await finalValues(ctx, ended));
  yield* events.end(outcomeOf(ended, events.requestedInput));
}

/**
 * `agent.getTree`: the namespaces of the thread's latest run as its events so far tell them
 * (LangGraph's server answers from its current run's session too).
 */
async function agentTreeOf(ctx: ServerContext, run: BackgroundRun) {
  const events = new RunProtocolEvents(run.graphId);
  // An aborted signal reads what the run reported so far and stops, without waiting.
  const now = AbortSignal.abort();
  for await (const e of ctx.runs.events(run.runId, { signal: now })) events.push(e.event, e.data);
  const latest = (await ctx.runs.get(run.runId)) ?? run;
  if (FINAL_RUN_STATUSES.has(latest.status)) events.end(outcomeOf(latest, events.requestedInput));
  return events.tree();
}

/**
 * The thread's protocol log: each of its runs' events, oldest run first, numbered from 1,
 * then each run that starts, until `signal` aborts. The numbers come from the runs' own
 * logs, so every stream of the thread numbers an event alike and `since` replays.
 */
export async function* threadProtocolLog(
  ctx: ServerContext,
  threadId: string,
  signal: AbortSignal,
): AsyncGenerator<ProtocolEvent> {
  let seq = 0;
  const done = new Set<string>();
  for await (const run of threadRuns(ctx, threadId, { window: RUN_WINDOW, done, signal })) {
    if (!run) continue;
    for await (const e of runProtocolEvents(ctx, run, signal)) {
      seq += 1;
      yield { type: "event", event_id: String(seq), seq, ...e };
    }
  }
}

const namespaceSchema = z.array(z.string());

/**
 * Which of the thread's events one stream carries (`POST /threads/:id/stream/events`'s
 * body; a WebSocket's `subscription.subscribe` params): channels, namespace prefixes, depth
 * below them, and `since` (only events numbered after it).
 */
export const eventsFilterFields = {
  channels: z.array(z.string().min(1)).min(1),
  namespaces: z.array(namespaceSchema).optional(),
  depth: z.number().int().min(0).optional(),
  since: z.number().int().min(0).optional(),
};
const eventsFilterBody = z.strictObject(eventsFilterFields);
export type EventsFilter = z.infer<typeof eventsFilterBody>;

/** The channel an event is matched on (`input.requested` on `input`, as the SDK matches it). */
const channelOf = (e: ProtocolEvent) => (e.method === "input.requested" ? "input" : e.method);

/** Whether `e` is one `filter` asked for: its channel, under one of its namespaces, after `since`. */
export function matchesFilter(filter: EventsFilter, e: ProtocolEvent): boolean {
  if (filter.since !== undefined && e.seq <= filter.since) return false;
  const channel = channelOf(e);
  if (!filter.channels.includes(channel)) return false;
  if (!filter.namespaces || filter.namespaces.length === 0) return true;
  const ns = e.params.namespace;
  // A segment without its task id (`child`) names every run of that node (`child:<id>`).
  const matches = (part: string, i: number) =>
    ns[i] === part || (!part.includes(":") && ns[i]?.split(":")[0] === part);
  return filter.namespaces.some(
    (prefix) =>
      prefix.length <= ns.length &&
      prefix.every(matches) &&
      (filter.depth === undefined || ns.length - prefix.length <= filter.depth),
  );
}

/** `POST /threads/:id/commands`: one protocol command. */
export const commandBody = z.looseObject({
  id: z.number().int().min(0),
  method: z.string().min(1),
  params: z.unknown().optional(),
});
export type Command = z.infer<typeof commandBody>;

/** The protocol's error codes this server answers with (`@langchain/protocol`'s `ErrorCode`). */
export type ProtocolErrorCode =
  | "invalid_argument"
  | "unknown_command"
  | "unknown_error"
  | "no_such_run"
  | "no_such_subscription"
  | "no_such_interrupt"
  | "no_such_namespace"
  | "no_such_checkpoint"
  | "permission_denied"
  | "not_supported";

/**
 * The protocol's answer to one command (`id` is `null` for a frame that was no command).
 *
 * @example
 * const answer: ProtocolResponse = { type: "error", id: 3, error: "no_such_run", message: "…" };
 */
export type ProtocolResponse =
  | { type: "success"; id: number; result: unknown; meta?: { thread_id: string } }
  | {
      type: "error";
      id: number | null;
      error: ProtocolErrorCode;
      message: string;
      meta?: { thread_id: string };
    };

/** A command refused, as the protocol answers it: the SDK throws it as a `ProtocolError`. */
export class CommandRefusal extends Error {
  constructor(
    readonly code: ProtocolErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "CommandRefusal";
  }
}

/** The commands this server does not carry out, each with what to use instead. */
const NOT_BUILT: Record<string, string> = {
  "input.inject":
    "input.inject is not supported by this server; start a run with the new input (run.start) instead.",
  "subscription.subscribe":
    "subscription.subscribe is a WebSocket command: send it on the thread's WebSocket (GET /threads/:id/stream/events), or over HTTP open a stream with POST /threads/:id/stream/events.",
  "subscription.unsubscribe":
    "subscription.unsubscribe is a WebSocket command: send it on the thread's WebSocket, or over HTTP close the stream instead.",
  "subscription.reconnect":
    "subscription.reconnect is not supported (nor by LangGraph's server): on a new socket, subscribe again; with since set to the last seq you read, only what you missed is replayed.",
};

const runStartParams = z.looseObject({
  assistant_id: z.string().min(1),
  input: z.unknown().optional(),
  config: runBody.shape.config,
  metadata: runBody.shape.metadata,
  multitaskStrategy: runBody.shape.multitask_strategy,
});

// One answer (`interrupt_id`, `response`) or several at once (`responses`), as the SDK sends.
const inputRespondParams = z
  .looseObject({
    interrupt_id: z.string().min(1).optional(),
    response: z.unknown().optional(),
    responses: z
      .array(z.looseObject({ interrupt_id: z.string().min(1), response: z.unknown() }))
      .min(1)
      .optional(),
    config: runBody.shape.config,
    metadata: runBody.shape.metadata,
  })
  .refine((p) => p.interrupt_id !== undefined || p.responses !== undefined, {
    message: "give interrupt_id and response, or responses",
  });

const stateForkParams = z.looseObject({
  checkpoint_id: z.string().min(1),
  input: z.unknown().optional(),
  config: runBody.shape.config,
  metadata: runBody.shape.metadata,
});

const stateGetParams = z
  .looseObject({ namespace: z.array(z.string()).optional(), keys: z.array(z.string()).optional() })
  .optional();

const listCheckpointsParams = z
  .looseObject({
    namespace: z.array(z.string()).optional(),
    limit: z.number().int().min(1).max(1000).optional(),
    before: z.string().min(1).optional(),
  })
  .optional();

/** One entry of `state.listCheckpoints`, as `@langchain/protocol` shapes it. */
interface CheckpointSummary {
  id: string;
  timestamp: string;
  step: number;
  node_name?: string;
  metadata?: Record<string, unknown>;
}

function checkpointSummary(s: StateSnapshot): CheckpointSummary {
  const { metadata } = s;
  // The node that made the checkpoint: the one node whose writes it records, if only one did.
  const writers = metadata?.writes ? Object.keys(metadata.writes) : [];
  return {
    id: s.config.configurable!.checkpoint_id!,
    timestamp: s.createdAt ?? "",
    step: metadata?.step ?? -1,
    ...(writers.length === 1 && { node_name: writers[0] }),
    ...(metadata && { metadata: metadata as unknown as Record<string, unknown> }),
  };
}

/**
 * The run config reading the graph run a protocol namespace names: `[]` the thread's own,
 * `["child:<task id>", …]` a subgraph's (its segments are the checkpoint namespace's).
 */
async function namespaceConfig(
  graph: CompiledGraph<any, any>,
  threadId: string,
  namespace: string[],
  method: string,
): Promise<{ configurable: { thread_id: string; checkpoint_ns?: string } }> {
  if (namespace.length === 0) return { configurable: { thread_id: threadId } };
  const checkpoint_ns = checkpointNamespace(namespace);
  const state = await graph
    .getState({ configurable: { thread_id: threadId, checkpoint_ns } })
    .catch(() => undefined);
  if (!state?.config.configurable?.checkpoint_id) {
    throw new CommandRefusal(
      "no_such_namespace",
      `${method}: thread "${threadId}" has no subgraph run at namespace ${JSON.stringify(namespace)}; the namespaces are those its events carry (agent.getTree lists the latest run's).`,
    );
  }
  return { configurable: { thread_id: threadId, checkpoint_ns } };
}

export function paramsOf<T extends z.ZodType>(command: Command, schema: T): z.output<T> {
  const parsed = schema.safeParse(command.params);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues
    .map((i) => `${["params", ...i.path.map(String)].join(".")}: ${i.message}`)
    .join("; ");
  throw new CommandRefusal("invalid_argument", `${command.method}: ${problems}`);
}

/** Carries out one command on the thread; returns its `result`. */
async function carryOut(c: Context, ctx: ServerContext, threadId: string, command: Command) {
  const who = c.get("identity");
  const headers = c.req.raw.headers;
  switch (command.method) {
    case "run.start": {
      const p = paramsOf(command, runStartParams);
      // The thread is made on its first run, as the protocol's server does.
      const run = await startRun(
        ctx,
        threadId,
        {
          assistant_id: p.assistant_id,
          input: p.input,
          config: p.config,
          metadata: p.metadata,
          multitask_strategy: p.multitaskStrategy ?? "enqueue",
          stream_subgraphs: true,
          if_not_exists: "create",
        },
        RUN_MODES,
        who,
        headers,
      );
      return { run_id: run.runId };
    }
    case "input.respond": {
      const p = paramsOf(command, inputRespondParams);
      const answers = p.responses
        ? Object.fromEntries(p.responses.map((r) => [r.interrupt_id, r.response]))
        : { [p.interrupt_id!]: p.response };
      const view = await findThread(ctx, threadId).catch(() => undefined);
      if (!view || view.graphId === undefined || view.status !== "interrupted") {
        throw new CommandRefusal(
          "no_such_run",
          `Thread "${threadId}" has no interrupted run to respond to (it is ${view?.status ?? "not created"}); nothing was run.`,
        );
      }
      // A static breakpoint is a pause too, but asks for no input (as `input.requested` shows).
      const waiting = new Set(
        view.record.interrupts.filter((i) => i.timing === "during").map((i) => i.id),
      );
      const unknown = Object.keys(answers).filter((id) => !waiting.has(id));
      if (unknown.length > 0) {
        throw new CommandRefusal(
          "no_such_interrupt",
          `Thread "${threadId}" does not wait on interrupt ${unknown.join(", ")}; ${waiting.size > 0 ? `it waits on ${[...waiting].join(", ")}` : "it waits on none (it is paused at a breakpoint, or not at all)"}. The thread is unchanged.`,
        );
      }
      await startRun(
        ctx,
        threadId,
        {
          assistant_id: view.graphId,
          command: { resume: answers },
          stream_subgraphs: true,
          config: p.config,
          metadata: p.metadata,
        },
        RUN_MODES,
        who,
        headers,
      );
      return {};
    }
    case "state.fork": {
      // A run from the checkpoint, as run.start with the SDK's `forkFrom` starts one.
      const p = paramsOf(command, stateForkParams);
      const view = await findThread(ctx, threadId);
      if (view.graphId === undefined) {
        throw new CommandRefusal(
          "no_such_checkpoint",
          `Thread "${threadId}" has had no run, so no checkpoint "${p.checkpoint_id}" to fork from; start one with run.start.`,
        );
      }
      const run = await startRun(
        ctx,
        threadId,
        {
          assistant_id: view.graphId,
          input: p.input,
          config: p.config,
          metadata: p.metadata,
          checkpoint_id: p.checkpoint_id,
          multitask_strategy: "enqueue",
          stream_subgraphs: true,
        },
        RUN_MODES,
        who,
        headers,
      );
      return { run_id: run.runId, thread_id: threadId };
    }
    case "state.get": {
      const p = paramsOf(command, stateGetParams);
      const view = await findThread(ctx, threadId);
      const graph = await graphOf(ctx, view);
      const config = await namespaceConfig(graph, threadId, p?.namespace ?? [], command.method);
      const state = await graph.getState(config);
      const values = toWireValues(state.values) as Record<string, unknown>;
      const keys = p?.keys;
      const id = state.config.configurable?.checkpoint_id;
      const ns = p?.namespace?.join("|");
      return {
        values: keys
          ? Object.fromEntries(Object.entries(values).filter(([k]) => keys.includes(k)))
          : values,
        ...(typeof id === "string" && { checkpoint: { id, ...(ns && { ns }) } }),
      };
    }
    case "state.listCheckpoints": {
      const p = paramsOf(command, listCheckpointsParams);
      const view = await findThread(ctx, threadId);
      if (view.unwritten) return { checkpoints: [] };
      const graph = await graphOf(ctx, view);
      const config = await namespaceConfig(graph, threadId, p?.namespace ?? [], command.method);
      const checkpoints: CheckpointSummary[] = [];
      for await (const s of graph.getStateHistory(config, {
        limit: p?.limit ?? 10,
        ...(p?.before && { before: p.before }),
      })) {
        checkpoints.push(checkpointSummary(s));
      }
      return { checkpoints };
    }
    case "agent.getTree": {
      await findThread(ctx, threadId);
      const [latest] = await ctx.runs.list({ threadId, limit: 1 });
      if (!latest) {
        throw new CommandRefusal(
          "no_such_run",
          `Thread "${threadId}" has had no run, so no agent tree; start one with run.start.`,
        );
      }
      return { tree: await agentTreeOf(ctx, latest) };
    }
    default: {
      const refusal = NOT_BUILT[command.method];
      if (refusal) throw new CommandRefusal("not_supported", refusal);
      throw new CommandRefusal(
        "unknown_command",
        `No protocol command ${JSON.stringify(command.method)}; send run.start, input.respond, state.get, state.listCheckpoints, state.fork or agent.getTree.`,
      );
    }
  }
}

/**
 * Carries out `command` on the thread and answers it in the protocol's form; both
 * transports (HTTP commands, the WebSocket) answer through it. Who may not act (a
 * `RequestError` 401 or 403) is thrown, for the transport to tell as it tells refusals.
 *
 * @example
 * const answer = await answerCommand(c, ctx, "t1", { id: 1, method: "state.get", params: {} });
 */
export async function answerCommand(
  c: Context,
  ctx: ServerContext,
  threadId: string,
  command: Command,
): Promise<ProtocolResponse> {
  const meta = { thread_id: threadId };
  try {
    const result = await carryOut(c, ctx, threadId, command);
    return { type: "success", id: command.id, result, meta };
  } catch (error) {
    if (error instanceof RequestError && (error.status === 401 || error.status === 403))
      throw error;
    if (!(error instanceof CommandRefusal) && !(error instanceof RequestError)) throw error;
    // The request's own checks (a busy thread, an answer that does not fit) say what to
    // change in their message: the command's arguments, for the protocol.
    const code = error instanceof CommandRefusal ? error.code : "invalid_argument";
    return { type: "error", id: command.id, error: code, message: error.message, meta };
  }
}

/**
 * The SDK's `threads.stream` over HTTP and SSE (`@langchain/protocol`, the SDK's default
 * `"sse"` transport): `POST /:threadId/commands` carries out `run.start`, `input.respond`,
 * `state.get`, `state.fork` and `agent.getTree` and answers `{ type: "success", id, result }` or `{ type: "error", id,
 * error, message }`; `POST /:threadId/stream/events` streams the thread's protocol log,
 * filtered by channels, namespaces and depth, after `since`. The same protocol over a
 * WebSocket is `threadProtocolSocketRoutes`. See docs/streaming.md.
 *
 * @example
 * const thread = client.threads.stream({ assistantId: "question" });
 * await thread.run.start({ input: { question: "Why?" } });
 */
export function threadProtocolRoutes(ctx: ServerContext): Hono {
  return new Hono()
    .post("/:threadId/commands", async (c) => {
      const threadId = c.req.param("threadId");
      const command = await parseBody(c, commandBody);
      // Who may not act (401, 403) is told as on every route; the rest in the protocol's form.
      return c.json(await answerCommand(c, ctx, threadId, command));
    })
    .post("/:threadId/stream/events", async (c) => {
      const threadId = c.req.param("threadId");
      const filter = await parseBody(c, eventsFilterBody);
      await findThread(ctx, threadId);
      return streamSSE(c, async (stream) => {
        const stop = new AbortController();
        stream.onAbort(() => stop.abort());
        const heartbeat = setInterval(() => void stream.write(": heartbeat\n\n"), HEARTBEAT_MS);
        try {
          await stream.write(": connected\n\n");
          for await (const e of threadProtocolLog(ctx, threadId, stop.signal)) {
            if (!matchesFilter(filter, e)) continue;
            await stream.writeSSE({ id: e.event_id, event: e.method, data: JSON.stringify(e) });
          }
        } finally {
          clearInterval(heartbeat);
        }
      });
    });
}
