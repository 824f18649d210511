import type { Context } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";
import type { RunEvent, Runs } from "../runs/index.js";

/** Events every stream carries, whatever modes were asked. */
const ALWAYS = new Set(["metadata", "error"]);

/** The SSE event names a LangGraph stream mode produces (most: its own name). */
const EVENTS_OF_MODE: Record<string, string[]> = {
  "messages-tuple": ["messages"],
  messages: ["messages/metadata", "messages/partial", "messages/complete"],
};

/** Which of a run's events the `modes` asked for let through (all, without modes). */
export function eventsOfModes(modes: readonly string[]): (event: string) => boolean {
  if (modes.length === 0) return () => true;
  const wanted = new Set(modes.flatMap((m) => EVENTS_OF_MODE[m] ?? [m]));
  return (event) => ALWAYS.has(event) || wanted.has(event);
}

/** How one run's events are relayed onto an SSE stream (see `relayRun`). */
export interface RunRelay {
  /** Its events after this one of the run's log (which counts from 1); 0 for all. */
  afterSeq: number;
  /** Ends the relay (the client went away). */
  signal: AbortSignal;
  /** The events to send; the others are skipped. */
  pass: (event: string) => boolean;
  /** The SSE `id` of the event with this log sequence number. */
  id: (seq: number) => string;
  /** What the run ended with (its final values, or `__error__`), for a run that relayed nothing. */
  ended?: () => Promise<Record<string, unknown>>;
}

/**
 * Relay one run's events onto `stream`: what it reported after `afterSeq`, then each new
 * event until it ends or `signal` aborts. A run another process executed reports only its
 * end here: then what it ended with is sent (its `metadata`, then its final `values` or
 * its `error`). Returns the log sequence number of the last event relayed (`afterSeq` if none).
 */
export async function relayRun(
  stream: SSEStreamingApi,
  runs: Runs,
  runId: string,
  relay: RunRelay,
): Promise<number> {
  let last = relay.afterSeq;
  for await (const e of runs.events(runId, { afterSeq: relay.afterSeq, signal: relay.signal })) {
    last = e.seq;
    if (relay.pass(e.event)) await writeEvent(stream, e, relay.id(e.seq));
  }
  if (last === relay.afterSeq && relay.ended && !relay.signal.aborted) {
    const { __error__, ...values } = await relay.ended();
    const events: Array<[string, unknown]> = [["metadata", { run_id: runId }]];
    events.push(__error__ ? ["error", __error__] : ["values", values]);
    for (const [event, data] of events)
      if (relay.pass(event)) await stream.writeSSE({ event, data: JSON.stringify(data) });
  }
  return last;
}

const writeEvent = (stream: SSEStreamingApi, e: RunEvent, id: string) =>
  stream.writeSSE({ event: e.event, data: JSON.stringify(e.data), id });

/**
 * Stream a run's events as SSE (LangGraph's event names; `id` counts the run's events from
 * 0, as LangGraph's do, so a client reconnecting with `Last-Event-ID` gets only what it
 * missed, and `-1` asks for all of them), then
 * close the stream when the run ends, as LangGraph does (no closing event: the SDK would
 * pass one on as a chunk). With `modes`, only those modes' events are sent.
 */
export function streamRun(
  c: Context,
  runs: Runs,
  runId: string,
  options: {
    modes?: readonly string[];
    headers?: Record<string, string>;
    /** What the run ended with (its final values, or `__error__`), for a stream that relayed nothing. */
    ended?: () => Promise<Record<string, unknown>>;
    /** Called when the client goes away before the run ends (LangGraph's `on_disconnect: "cancel"`). */
    onDisconnect?: () => void;
  } = {},
): Response {
  // The log counts from 1; the wire, as LangGraph, from 0.
  const lastEventId = Number(c.req.header("last-event-id") ?? -1) + 1;
  for (const [name, value] of Object.entries(options.headers ?? {})) c.header(name, value);
  return streamSSE(c, async (stream) => {
    const stop = new AbortController();
    stream.onAbort(() => stop.abort());
    await relayRun(stream, runs, runId, {
      afterSeq: Number.isFinite(lastEventId) ? lastEventId : 0,
      signal: stop.signal,
      pass: eventsOfModes(options.modes ?? []),
      id: (seq) => String(seq - 1),
      ...(options.ended && { ended: options.ended }),
    });
    if (stop.signal.aborted) options.onDisconnect?.();
  });
}
