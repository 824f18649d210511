import type { AuditLog } from "../audit/index.js";
import { NodeError, RecursionLimitError } from "../index.js";
import {
  argOf,
  type BackgroundRun,
  type MultitaskStrategy,
  type RunExecutor,
  type RunInput,
  type Runs,
  type RunValues,
} from "../runs/index.js";
import { recordToolResults } from "./decision-audit.js";
import { RequestError } from "./errors.js";
import type { HostedGraphs } from "./hosted-graphs.js";
import { admitQueuedResume, type DecisionTeller } from "./resume-decisions.js";
import { fromWireValues, holdsMessages, toWireValues } from "./wire/messages.js";
import {
  graphModesFor,
  StreamFrames,
  WIRE_STREAM_MODES,
  type WireStreamMode,
} from "./wire/stream-frames.js";

/** Stream modes the server speaks (LangGraph's names). */
export const STREAM_MODES = WIRE_STREAM_MODES;
export type StreamMode = WireStreamMode;

/**
 * One run to start: new input (LangChain-shaped messages accepted), a resume, or nothing
 * (continue from the checkpoint, e.g. past a breakpoint).
 *
 * @example
 * const request: GraphRunRequest = { graphId: "ops", threadId: "t1",
 *   resume: { value: { decisions: [{ type: "approve" }] } }, streamModes: ["values"] };
 */
export interface GraphRunRequest {
  graphId: string;
  threadId: string;
  input?: unknown;
  resume?: { value: unknown };
  update?: Record<string, unknown>;
  goto?: string | string[];
  streamModes: readonly StreamMode[];
  /** Whether the subgraphs' events are streamed too (LangGraph's `stream_subgraphs`). */
  streamSubgraphs?: boolean;
  metadata?: Record<string, unknown>;
  interruptBefore?: string[];
  interruptAfter?: string[];
  checkpointId?: string;
  /** The client's `config.configurable` keys, for the nodes (`config.configurable`). */
  configurable?: Record<string, unknown>;
  /** The run's `config.recursion_limit`: most super-steps it may take. */
  recursionLimit?: number;
  /** LangGraph's `after_seconds`, in ms: the run stays `pending` until then. */
  delayMs?: number;
  /** Passed to nodes as `runtime.context` (LangGraph's run `context`); never stored. */
  context?: unknown;
  /** The authenticated user who started the run: nodes get it as `config.configurable.langgraph_auth_user`. */
  authUser?: Record<string, unknown>;
  /** The run's id, when the caller chose it. */
  runId?: string;
  multitaskStrategy?: MultitaskStrategy;
  /** The thread's latest checkpoint a resume was checked against: refused (409) if it moved. */
  expectedCheckpointId?: string;
  /** LangGraph's per-run `webhook`: the URL the run is posted to when it ends. */
  webhook?: string;
  /** The resume was recorded as decisions naming the run, before it (see `RunRequest`). */
  decisionsRecorded?: { toolReviews: boolean };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The input without the keys the graph's state has not: LangGraph's server drops them
 * (its input schema maps only its channels), where our graphs would refuse the run.
 */
function knownKeys(input: unknown, keys: readonly string[] | undefined): unknown {
  if (!keys || !isPlainObject(input)) return input;
  return Object.fromEntries(Object.entries(input).filter(([key]) => keys.includes(key)));
}

/**
 * Enqueue a run of a hosted graph on a thread. Bad input is refused here (a `RequestError`),
 * before any run; the run is kept with what the client asked to stream, and executed by
 * `graphRunExecutor` in whichever process takes it.
 */
export async function createGraphRun(
  hosted: HostedGraphs,
  runs: Runs,
  request: GraphRunRequest,
): Promise<BackgroundRun> {
  const graph = hosted.get(request.graphId);
  const messages = holdsMessages(graph);
  const input = fromWireValues(knownKeys(request.input, graph.stateKeys), { messages });
  if (input.badIndex !== undefined) {
    throw new RequestError(
      400,
      "INVALID_INPUT",
      `input.messages[${input.badIndex}] is not a message: send { type: "human", content } (LangChain) or { role: "user", content }.`,
      { fields: [{ path: `input.messages.${input.badIndex}`, message: "not a message" }] },
    );
  }
  const update = request.update ? fromWireValues(request.update, { messages }).values : undefined;
  const runInput: RunInput =
    request.resume || request.goto !== undefined || update !== undefined
      ? {
          command: {
            ...(request.resume && { resume: request.resume.value }),
            ...(update !== undefined && { update: update as Record<string, unknown> }),
            ...(request.goto !== undefined && { goto: request.goto }),
          },
        }
      : input.values === undefined || input.values === null
        ? null
        : { input: input.values };
  return runs.create({
    graphId: request.graphId,
    threadId: request.threadId,
    input: runInput,
    streamModes: [...request.streamModes],
    ...(request.streamSubgraphs && { streamSubgraphs: true }),
    ...(request.multitaskStrategy && { multitaskStrategy: request.multitaskStrategy }),
    ...(request.metadata && { metadata: request.metadata }),
    ...(request.runId && { runId: request.runId }),
    ...(request.context !== undefined && { context: request.context }),
    ...((request.configurable || request.authUser) && {
      configurable: {
        ...request.configurable,
        ...(request.authUser && { langgraph_auth_user: request.authUser }),
      },
    }),
    ...(request.recursionLimit && { recursionLimit: request.recursionLimit }),
    ...(request.delayMs && { delayMs: request.delayMs }),
    ...(request.interruptBefore && { interruptBefore: request.interruptBefore }),
    ...(request.interruptAfter && { interruptAfter: request.interruptAfter }),
    ...(request.checkpointId && { checkpointId: request.checkpointId }),
    ...(request.expectedCheckpointId && { expectedCheckpointId: request.expectedCheckpointId }),
    ...(request.webhook && { webhook: request.webhook }),
    ...(request.decisionsRecorded && { decisionsRecorded: request.decisionsRecorded }),
  });
}

/** A thread's values as LangGraph's per-run webhook carries them (messages in LangChain's shape). */
export const wireRunValues: RunValues = async (graph, threadId) =>
  toWireValues((await graph.getState({ configurable: { thread_id: threadId } })).values);

/**
 * How this server's processes execute runs: stream the graph and keep what it streams as
 * the run's events, in LangGraph's SSE event names and shapes, for the modes the client
 * asked (see `StreamFrames`). With `audit`: a resume nobody recorded yet (a queued one) is
 * checked against its starter's rights and recorded as their decision first, told to
 * `webhooks` (see `admitQueuedResume`); a run that carries out a decision appends what its
 * tools returned.
 */
export function graphRunExecutor(
  options: { audit?: AuditLog; webhooks?: DecisionTeller } = {},
): RunExecutor {
  return async ({ graph, run, input, signal, emit }) => {
    if (options.audit) {
      await admitQueuedResume(
        { audit: options.audit, webhooks: options.webhooks },
        graph,
        run,
        input,
      );
    }
    const modes = new Set<string>(run.request.streamModes ?? ["values"]);
    // As LangGraph: the run and its attempt (the SDK reads the thread from Content-Location).
    emit("metadata", { run_id: run.runId, attempt: run.attempt });
    const frames = new StreamFrames(modes, emit, {
      runId: run.runId,
      threadId: run.threadId,
      graphId: run.graphId,
    });
    const { request } = run;
    const stream = graph.stream(argOf(input) as never, {
      config: {
        configurable: {
          ...request.configurable,
          thread_id: run.threadId,
          ...(request.checkpointId && { checkpoint_id: request.checkpointId }),
        },
      },
      signal,
      runId: run.runId,
      streamMode: graphModesFor(modes),
      ...(request.streamSubgraphs && { subgraphs: true }),
      ...(request.recursionLimit && { recursionLimit: request.recursionLimit }),
      ...(request.context !== undefined && { context: request.context }),
      ...(Object.keys(run.metadata).length > 0 && { metadata: run.metadata }),
      ...(request.interruptBefore && { interruptBefore: request.interruptBefore }),
      ...(request.interruptAfter && { interruptAfter: request.interruptAfter }),
    });
    for (;;) {
      const next = await stream.next().catch((error: unknown) => {
        throw ownError(error);
      });
      if (next.done) {
        frames.finish();
        if (options.audit) await recordToolResults(options.audit, graph, run);
        return next.value.status === "done" ? "success" : "interrupted";
      }
      frames.write(next.value);
    }
  };
}

/**
 * What a failed run reports: the error the node threw, under its own name and message, as
 * LangGraph's server sends it (`{ error: "CustomError", message: "Boo!" }`), rather than
 * our `NodeError` around it. A recursion limit goes under LangGraph's name for it,
 * `GraphRecursionError` (clients match on it), with our message; other errors as they are.
 */
function ownError(error: unknown): unknown {
  if (error instanceof RecursionLimitError) {
    const named = new Error(error.message, { cause: error });
    named.name = "GraphRecursionError";
    return named;
  }
  return error instanceof NodeError && error.cause instanceof Error ? error.cause : error;
}
