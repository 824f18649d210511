import { NodeError, type StreamEvent } from "../index.js";
import {
  argOf,
  type BackgroundRun,
  type MultitaskStrategy,
  type RunExecutor,
  type RunInput,
  type Runs,
} from "../runs/index.js";
import { RequestError } from "./errors.js";
import type { HostedGraphs } from "./hosted-graphs.js";
import { fromWireValues, toWireValues } from "./wire/messages.js";
import { toWireInterrupt } from "./wire/threads.js";

/** Stream modes the server speaks (LangGraph's names). `messages` is read as `messages-tuple`. */
export const STREAM_MODES = ["values", "updates", "messages-tuple", "messages", "custom"] as const;
export type StreamMode = (typeof STREAM_MODES)[number];

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
  metadata?: Record<string, unknown>;
  interruptBefore?: string[];
  interruptAfter?: string[];
  checkpointId?: string;
  /** Passed to nodes as `runtime.context` (LangGraph's run `context`); never stored. */
  context?: unknown;
  /** The authenticated user who started the run: nodes get it as `config.configurable.langgraph_auth_user`. */
  authUser?: Record<string, unknown>;
  /** The run's id, when the caller chose it. */
  runId?: string;
  multitaskStrategy?: MultitaskStrategy;
  /** The thread's latest checkpoint a resume was checked against: refused (409) if it moved. */
  expectedCheckpointId?: string;
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
  hosted.get(request.graphId);
  const input = fromWireValues(request.input);
  if (input.badIndex !== undefined) {
    throw new RequestError(
      400,
      "INVALID_INPUT",
      `input.messages[${input.badIndex}] is not a message: send { type: "human", content } (LangChain) or { role: "user", content }.`,
      { fields: [{ path: `input.messages.${input.badIndex}`, message: "not a message" }] },
    );
  }
  const update = request.update ? fromWireValues(request.update).values : undefined;
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
    ...(request.multitaskStrategy && { multitaskStrategy: request.multitaskStrategy }),
    ...(request.metadata && { metadata: request.metadata }),
    ...(request.runId && { runId: request.runId }),
    ...(request.context !== undefined && { context: request.context }),
    ...(request.authUser && { configurable: { langgraph_auth_user: request.authUser } }),
    ...(request.interruptBefore && { interruptBefore: request.interruptBefore }),
    ...(request.interruptAfter && { interruptAfter: request.interruptAfter }),
    ...(request.checkpointId && { checkpointId: request.checkpointId }),
    ...(request.expectedCheckpointId && { expectedCheckpointId: request.expectedCheckpointId }),
  });
}

/**
 * How this server's processes execute runs: stream the graph and keep what it streams as
 * the run's events, in LangGraph's SSE event names and shapes, for the modes the client
 * asked.
 */
export function graphRunExecutor(): RunExecutor {
  return async ({ graph, run, input, signal, emit }) => {
    const modes = new Set<string>(run.request.streamModes ?? ["values"]);
    if (modes.has("messages")) modes.add("messages-tuple");
    emit("metadata", { run_id: run.runId, thread_id: run.threadId, attempt: run.attempt });
    const frames = new FrameWriter(modes, emit, {
      runId: run.runId,
      threadId: run.threadId,
      graphName: graph.name,
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
      ...(request.context !== undefined && { context: request.context }),
      ...(Object.keys(run.metadata).length > 0 && { metadata: run.metadata }),
      ...(request.interruptBefore && { interruptBefore: request.interruptBefore }),
      ...(request.interruptAfter && { interruptAfter: request.interruptAfter }),
    });
    for (;;) {
      const next = await stream.next().catch((error: unknown) => {
        throw ownError(error);
      });
      if (next.done) return next.value.status === "done" ? "success" : "interrupted";
      frames.write(next.value);
    }
  };
}

/**
 * What a failed run reports: the error the node threw, under its own name and message, as
 * LangGraph's server sends it (`{ error: "CustomError", message: "Boo!" }`), rather than
 * our `NodeError` around it. Other errors (a recursion limit, say) are reported as they are.
 */
function ownError(error: unknown): unknown {
  return error instanceof NodeError && error.cause instanceof Error ? error.cause : error;
}

/** Turns our stream events into LangGraph's SSE events for the modes asked. */
class FrameWriter {
  readonly #modes: Set<string>;
  readonly #emit: (event: string, data: unknown) => void;
  readonly #ids: { runId: string; threadId: string; graphName: string };
  #values: Record<string, unknown> = {};
  // How many messages the thread has: where an update's new messages land.
  #messageCount = 0;

  constructor(
    modes: Set<string>,
    emit: (event: string, data: unknown) => void,
    ids: { runId: string; threadId: string; graphName: string },
  ) {
    this.#modes = modes;
    this.#emit = emit;
    this.#ids = ids;
  }

  write(ev: StreamEvent): void {
    // Subgraph runs stream inside their parent's events; only the top level is sent.
    if (ev.ns !== "") return;
    switch (ev.type) {
      case "values": {
        this.#values = ev.values;
        const messages = ev.values.messages;
        if (Array.isArray(messages)) this.#messageCount = messages.length;
        if (this.#modes.has("values")) this.#emit("values", toWireValues(ev.values));
        return;
      }
      case "updates":
        if (this.#modes.has("updates"))
          this.#emit("updates", { [ev.node]: toWireValues(ev.update, this.#messageCount) });
        return;
      case "messages":
        if (this.#modes.has("messages-tuple")) {
          this.#emit("messages", [
            {
              type: "AIMessageChunk",
              content: ev.delta,
              // The id the agent's model node gives its reply (`<agent>:<task id>`, the
              // step's only model task), so clients merge the chunks into that message.
              id: `${this.#ids.graphName}:${ev.step}:${ev.node}:0`,
              tool_calls: [],
              tool_call_chunks: [],
              additional_kwargs: {},
              response_metadata: {},
            },
            {
              langgraph_node: ev.node,
              langgraph_step: ev.step,
              run_id: this.#ids.runId,
              thread_id: this.#ids.threadId,
            },
          ]);
        }
        return;
      case "custom":
        if (this.#modes.has("custom")) this.#emit("custom", ev.data);
        return;
      case "interrupt": {
        const pending = ev.interrupts.map(toWireInterrupt);
        if (this.#modes.has("updates")) this.#emit("updates", { __interrupt__: pending });
        if (this.#modes.has("values"))
          this.#emit("values", {
            ...(toWireValues(this.#values) as object),
            __interrupt__: pending,
          });
        return;
      }
      case "done":
        return;
    }
  }
}
