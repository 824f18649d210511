// One run's recorded stream events (LangGraph's SSE names and shapes) as protocol events.
import {
  type AgentStatus,
  type AgentTreeNode,
  agentTree,
  type NamespaceStatus,
} from "./agent-tree.js";
import { MessageEvents } from "./message-events.js";
import { protocolSegment } from "./namespace.js";
import { isRecord, protocolEvent, type UnnumberedEvent } from "./protocol-event.js";

/** How a run ended, for its last `lifecycle` events. */
export type RunOutcome =
  | { event: "completed" | "interrupted" }
  | { event: "failed"; error: string };

/** A subgraph's name from its namespace segment (`child:<task id>` is `child`). */
const graphNameOf = (segment: string) => segment.split(":")[0]!;

const keyOf = (ns: string[]) => ns.join("|");

/** The interrupts a `values` or `updates` payload carries, as `input.requested` data. */
function inputRequests(interrupts: unknown): Array<{ interrupt_id: string; payload: unknown }> {
  if (!Array.isArray(interrupts)) return [];
  return interrupts.flatMap((i) =>
    isRecord(i) && typeof i.id === "string" ? [{ interrupt_id: i.id, payload: i.value }] : [],
  );
}

/** A checkpoint of the `checkpoints` stream mode as the protocol's lightweight envelope. */
function checkpointEnvelope(data: unknown): Record<string, unknown> | undefined {
  if (!isRecord(data)) return undefined;
  const config =
    isRecord(data.config) && isRecord(data.config.configurable) ? data.config.configurable : {};
  const own = isRecord(data.checkpoint) ? data.checkpoint : config;
  const parent = isRecord(data.parent_checkpoint) ? data.parent_checkpoint : undefined;
  const step =
    isRecord(data.metadata) && typeof data.metadata.step === "number" ? data.metadata.step : 0;
  if (typeof own.checkpoint_id !== "string") return undefined;
  return {
    id: own.checkpoint_id,
    ...(typeof parent?.checkpoint_id === "string" && { parent_id: parent.checkpoint_id }),
    step,
    // The stream carries no source: the input's checkpoint is step -1, the rest the loop's.
    source: step < 0 ? "input" : "loop",
  };
}

/**
 * One run's events as LangGraph's server turns them into protocol events: `start()` gives
 * the root `lifecycle` `running`; `push()` each recorded event (`values`, `updates`,
 * `messages` (messages-tuple), `custom`, `tasks`, `checkpoints`, `tools`, each under
 * `<mode>|<namespace>` for a subgraph); `end()` how it ended. A subgraph's first event is
 * preceded by its `lifecycle` `started`; it `completed` once its parent's update (or task
 * result) for its node is out, and takes the run's end if it had none. Pure: the same
 * events make the same protocol events, so every stream of the thread numbers them alike.
 *
 * @example
 * const run = new RunProtocolEvents("question");
 * const events = [...run.start(), ...run.push("values", { question: "Why?" }), ...run.end({ event: "completed" })];
 */
export class RunProtocolEvents {
  readonly #root: NamespaceStatus;
  readonly #namespaces = new Map<string, NamespaceStatus>();
  readonly #requested = new Set<string>();
  readonly #messages = new MessageEvents();
  /** Subgraphs whose end is due: told before the next event, after the one that ended them. */
  #ending: string[][] = [];

  constructor(graphName: string) {
    this.#root = { namespace: [], status: "running", graph_name: graphName };
  }

  /** Whether the run asked for input (an interrupt reached the stream). */
  get requestedInput(): boolean {
    return this.#requested.size > 0;
  }

  start(): UnnumberedEvent[] {
    return [this.#lifecycle([], "running")];
  }

  push(name: string, data: unknown): UnnumberedEvent[] {
    const [mode, ...segments] = name.split("|");
    const namespace = segments.map(protocolSegment);
    if (
      !["values", "updates", "messages", "custom", "tasks", "checkpoints", "tools"].includes(mode!)
    )
      return [];
    const out = this.#endDue();
    out.push(...this.#started(namespace));
    switch (mode) {
      case "values": {
        if (!isRecord(data)) break;
        const { __interrupt__, ...values } = data;
        this.#messages.known(values.messages);
        out.push(...this.#requests(namespace, __interrupt__));
        // The stream's interrupt-only values say nothing of the state: the request is the event.
        if (__interrupt__ === undefined || Object.keys(values).length > 0)
          out.push(protocolEvent("values", namespace, values));
        break;
      }
      case "updates":
        if (isRecord(data)) out.push(...this.#updates(namespace, data));
        break;
      case "messages": {
        // Whole messages are framed from the update that wrote them; tokens from here.
        const [chunk, metadata] = Array.isArray(data) ? data : [];
        if (!isRecord(chunk) || chunk.type !== "AIMessageChunk") break;
        const node =
          isRecord(metadata) && typeof metadata.langgraph_node === "string"
            ? metadata.langgraph_node
            : undefined;
        out.push(...this.#messages.chunk(namespace, node, chunk));
        break;
      }
      case "custom":
        out.push(protocolEvent("custom", namespace, { payload: data }));
        break;
      case "tasks": {
        const ended = isRecord(data) && "result" in data && typeof data.name === "string";
        // A reply its node streamed is whole once the node's task ended.
        if (ended) {
          const messages = writtenMessages(data.result);
          out.push(...this.#messages.finishNode(namespace, String(data.name), messages));
        }
        out.push(protocolEvent("tasks", namespace, data));
        // A task that paused or failed leaves its subgraph to the run's end.
        const paused = ended && Array.isArray(data.interrupts) && data.interrupts.length > 0;
        if (ended && !paused && data.error == null)
          this.#due([...namespace, protocolSegment(`${data.name}:${String(data.id)}`)]);
        break;
      }
      case "checkpoints": {
        const envelope = checkpointEnvelope(data);
        if (envelope) out.push(protocolEvent("checkpoints", namespace, envelope));
        break;
      }
      case "tools": {
        const tool = toolData(data);
        if (tool) out.push(protocolEvent("tools", namespace, tool));
        break;
      }
    }
    return out;
  }

  /** The run ended: replies still streaming finish, subgraphs still going take its end, then the root. */
  end(outcome: RunOutcome): UnnumberedEvent[] {
    const out = this.#endDue();
    out.push(...this.#messages.finishAll());
    for (const ns of this.#namespaces.values()) {
      if (ns.status === "started") out.push(this.#lifecycle(ns.namespace, outcome.event));
    }
    const error = outcome.event === "failed" ? { error: outcome.error } : {};
    out.push(this.#lifecycle([], outcome.event, error));
    return out;
  }

  /** The run's namespaces as `agent.getTree` answers: the root and each subgraph seen. */
  tree(): AgentTreeNode {
    return agentTree(this.#root, [...this.#namespaces.values()]);
  }

  #updates(namespace: string[], data: Record<string, unknown>): UnnumberedEvent[] {
    const out: UnnumberedEvent[] = [];
    for (const [node, update] of Object.entries(data)) {
      if (node === "__interrupt__") {
        out.push(...this.#requests(namespace, update));
        continue;
      }
      const written = isRecord(update) && Array.isArray(update.messages) ? update.messages : [];
      if (!node.startsWith("__")) out.push(...this.#messages.written(namespace, node, written));
      out.push(protocolEvent("updates", namespace, update, node));
      // The subgraph this node ran is done once its update is out.
      for (const ns of this.#namespaces.values()) {
        const last = ns.namespace.at(-1)!;
        const child =
          ns.namespace.length === namespace.length + 1 &&
          namespace.every((p, i) => ns.namespace[i] === p);
        if (child && (last === node || last.startsWith(`${node}:`))) this.#due(ns.namespace);
      }
    }
    return out;
  }

  /** An interrupt reaches both the `values` and the `updates` stream: requested once. */
  #requests(namespace: string[], interrupts: unknown): UnnumberedEvent[] {
    return inputRequests(interrupts).flatMap((r) => {
      if (this.#requested.has(r.interrupt_id)) return [];
      this.#requested.add(r.interrupt_id);
      return [protocolEvent("input.requested", namespace, r)];
    });
  }

  /** `started` for each namespace of `namespace`'s path not seen yet, outermost first. */
  #started(namespace: string[]): UnnumberedEvent[] {
    const out: UnnumberedEvent[] = [];
    for (let length = 1; length <= namespace.length; length += 1) {
      const ns = namespace.slice(0, length);
      if (this.#namespaces.has(keyOf(ns))) continue;
      this.#namespaces.set(keyOf(ns), {
        namespace: ns,
        status: "started",
        graph_name: graphNameOf(ns.at(-1)!),
      });
      out.push(this.#lifecycle(ns, "started"));
    }
    return out;
  }

  #due(namespace: string[]): void {
    if (this.#namespaces.get(keyOf(namespace))?.status !== "started") return;
    if (this.#ending.some((ns) => keyOf(ns) === keyOf(namespace))) return;
    this.#ending.push(namespace);
  }

  #endDue(): UnnumberedEvent[] {
    const due = this.#ending;
    this.#ending = [];
    return due
      .filter((ns) => this.#namespaces.get(keyOf(ns))?.status === "started")
      .map((ns) => this.#lifecycle(ns, "completed"));
  }

  #lifecycle(
    namespace: string[],
    status: AgentStatus,
    extra: { error?: string } = {},
  ): UnnumberedEvent {
    const record = namespace.length === 0 ? this.#root : this.#namespaces.get(keyOf(namespace))!;
    record.status = status;
    return protocolEvent("lifecycle", namespace, {
      event: status,
      graph_name: record.graph_name,
      ...extra,
    });
  }
}

/** The messages a task result (`[channel, value]` pairs) wrote. */
function writtenMessages(result: unknown): unknown[] {
  if (!Array.isArray(result)) return [];
  return result.flatMap((write) =>
    Array.isArray(write) && write[0] === "messages" ? [write[1]].flat() : [],
  );
}

/** A `tools` stream event (LangChain's callback names) as the protocol's tool event. */
function toolData(data: unknown): Record<string, unknown> | undefined {
  if (!isRecord(data) || typeof data.toolCallId !== "string") return undefined;
  const tool_call_id = data.toolCallId;
  switch (data.event) {
    case "on_tool_start":
      return { event: "tool-started", tool_call_id, tool_name: data.name, input: data.input };
    case "on_tool_end":
      return { event: "tool-finished", tool_call_id, output: data.output };
    case "on_tool_error": {
      const error = data.error;
      const message =
        isRecord(error) && typeof error.message === "string" ? error.message : String(error);
      return { event: "tool-error", tool_call_id, message };
    }
    default:
      return undefined;
  }
}
