import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { Runs } from "../runs/index.js";

/** Events every stream carries, whatever modes were asked. */
const ALWAYS = new Set(["metadata", "error"]);

/** The SSE event names a LangGraph stream mode produces (most: its own name). */
const EVENTS_OF_MODE: Record<string, string[]> = {
  "messages-tuple": ["messages"],
  messages: ["messages/metadata", "messages/partial", "messages/complete"],
};

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
  const wanted = options.modes?.length
    ? new Set(options.modes.flatMap((m) => EVENTS_OF_MODE[m] ?? [m]))
    : undefined;
  // The log counts from 1; the wire, as LangGraph, from 0.
  const lastEventId = Number(c.req.header("last-event-id") ?? -1) + 1;
  for (const [name, value] of Object.entries(options.headers ?? {})) c.header(name, value);
  return streamSSE(c, async (stream) => {
    const stop = new AbortController();
    stream.onAbort(() => stop.abort());
    const events = runs.events(runId, {
      afterSeq: Number.isFinite(lastEventId) ? lastEventId : 0,
      signal: stop.signal,
    });
    let relayed = 0;
    for await (const e of events) {
      relayed++;
      if (wanted && !ALWAYS.has(e.event) && !wanted.has(e.event)) continue;
      await stream.writeSSE({
        event: e.event,
        data: JSON.stringify(e.data),
        id: String(e.seq - 1),
      });
    }
    if (stop.signal.aborted) {
      options.onDisconnect?.();
      return;
    }
    // A run another process executed reports only its end here: send what it ended with.
    if (relayed === 0 && options.ended) {
      const { __error__, ...values } = await options.ended();
      await stream.writeSSE({ event: "metadata", data: JSON.stringify({ run_id: runId }) });
      if (__error__) await stream.writeSSE({ event: "error", data: JSON.stringify(__error__) });
      else if (!wanted || wanted.has("values"))
        await stream.writeSSE({ event: "values", data: JSON.stringify(values) });
    }
  });
}
