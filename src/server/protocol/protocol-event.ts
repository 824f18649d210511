// One event of the SDK's thread protocol ("v2"), as `@langchain/protocol` shapes it.

/** The protocol channels a thread's events go out on (`input.requested` is matched as `input`). */
export type ProtocolMethod =
  | "values"
  | "updates"
  | "messages"
  | "tools"
  | "tasks"
  | "checkpoints"
  | "custom"
  | "lifecycle"
  | "input.requested";

/**
 * One event of a thread's protocol log: `seq` counts the thread's events from 1 and
 * `event_id` is `seq` as a string, so `since` replays. `namespace` names the (sub)graph run
 * it comes from: `[]` for the root, `["child:<task id>"]` for a subgraph its `child` node ran.
 *
 * @example
 * const e: ProtocolEvent = { type: "event", event_id: "1", seq: 1, method: "lifecycle",
 *   params: { namespace: [], timestamp: 0, data: { event: "running", graph_name: "question" } } };
 */
export interface ProtocolEvent {
  type: "event";
  event_id: string;
  seq: number;
  method: ProtocolMethod;
  params: { namespace: string[]; timestamp: number; node?: string; data: unknown };
}

/** A protocol event before the thread's log numbers it. */
export type UnnumberedEvent = Omit<ProtocolEvent, "type" | "event_id" | "seq">;

/**
 * A protocol event of `method` from the (sub)graph run at `namespace`, stamped now.
 *
 * @example
 * protocolEvent("updates", [], { answer: "Because." }, "ask");
 */
export const protocolEvent = (
  method: ProtocolMethod,
  namespace: string[],
  data: unknown,
  node?: string,
): UnnumberedEvent => ({
  method,
  params: { namespace, timestamp: Date.now(), ...(node !== undefined && { node }), data },
});

/** Whether a recorded payload is a plain object (the stream's payloads are JSON). */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
