// `threads.joinStream`: one SSE stream of a thread's runs, one run after another, kept open.
import type { Context } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";
import { z } from "zod";
import { FINAL_RUN_STATUSES } from "../../runs/index.js";
import { RequestError } from "../errors.js";
import { findThread, type ServerContext } from "../server-context.js";
import { relayRun } from "../sse.js";
import { threadRuns } from "../thread-runs.js";
import type { StateUpdate } from "../thread-state-updates.js";
import { finalValues } from "./runs.js";

/** What a thread's stream may carry, as LangGraph Platform names it (`ThreadStreamMode`). */
export const THREAD_STREAM_MODES = ["run_modes", "lifecycle", "state_update"] as const;
type ThreadStreamMode = (typeof THREAD_STREAM_MODES)[number];

/** The thread's latest runs looked at for the next one to relay: newer ones come later. */
const RUN_WINDOW = 100;
/** A comment this often keeps proxies (and the SDK's idle check) from taking it for dead. */
const HEARTBEAT_MS = 15_000;

/** Where a join starts, from its `Last-Event-ID`. */
type Start =
  | { from: "active" }
  | { from: "beginning" }
  | { from: "event"; runId: string; after: number | "done" };

function startOf(lastEventId: string | undefined): Start {
  if (lastEventId === undefined || lastEventId === "") return { from: "active" };
  if (lastEventId === "-" || lastEventId === "-1") return { from: "beginning" };
  const id = /^(.+):(-?\d+|done)$/.exec(lastEventId);
  if (!id) {
    throw new RequestError(
      422,
      "INVALID_LAST_EVENT_ID",
      `Last-Event-ID ${JSON.stringify(lastEventId)} is not an id a thread's stream sent (they read "<run id>:<n>" or "<run id>:done"); send the last one you got, "-" to replay what this server keeps of the thread's runs, or none to start with the runs active now.`,
    );
  }
  return { from: "event", runId: id[1]!, after: id[2] === "done" ? "done" : Number(id[2]) };
}

const modesSchema = z.array(z.enum(THREAD_STREAM_MODES));

function modesOf(c: Context): Set<ThreadStreamMode> {
  // `stream_mode` is the SDK's name, `stream_modes` LangGraph's: each a list or comma-separated.
  const asked = [...(c.req.queries("stream_mode") ?? []), ...(c.req.queries("stream_modes") ?? [])]
    .flatMap((m) => m.split(","))
    .map((m) => m.trim())
    .filter((m) => m !== "");
  const parsed = modesSchema.safeParse(asked);
  if (!parsed.success) {
    const unknown = asked.filter((m) => !(THREAD_STREAM_MODES as readonly string[]).includes(m));
    throw new RequestError(
      422,
      "INVALID_STREAM_MODE",
      `A thread's stream has no mode ${unknown.map((m) => JSON.stringify(m)).join(", ")}; ask for ${THREAD_STREAM_MODES.join(", ")} (a run's own modes, such as "values", are chosen when the run is created).`,
      { fields: unknown.map((m) => ({ path: "stream_mode", message: `unknown mode ${m}` })) },
    );
  }
  return new Set(parsed.data.length > 0 ? parsed.data : ["run_modes"]);
}

/**
 * `GET /threads/:id/stream` (LangGraph's join thread stream): the thread's runs one after
 * another as their own streams carry them, each closed by a `metadata` event
 * `{ status: "run_done", run_id }`, the runs active now first and then each run that
 * starts while joined, until the client goes away; between runs, `state_update` events
 * `{ state, thread_id }` for updates of the state outside a run. Run events' ids read
 * `<run id>:<n>` (`n` the run's own event id) and `<run id>:done`, so `Last-Event-ID`
 * resumes after that event and goes on with the runs after that one; `-` replays every
 * run of the thread this server still keeps the events of.
 *
 * Modes, as LangGraph's: `run_modes` (the default) every run event and `run_done`;
 * `lifecycle` a run's start (its `metadata`) and its `run_done`; `state_update` the
 * `state_update` events.
 */
export async function joinThreadStream(
  c: Context,
  ctx: ServerContext,
  threadId: string,
): Promise<Response> {
  const modes = modesOf(c);
  const start = startOf(c.req.header("last-event-id"));
  await findThread(ctx, threadId);
  const oldestFirst = async () => (await ctx.runs.list({ threadId, limit: RUN_WINDOW })).reverse();
  // Runs not to relay (before the start, or relayed), and where a resumed one goes on.
  const done = new Set<string>();
  const resumeAfter = new Map<string, number>();
  const runs = await oldestFirst();
  if (start.from === "event") {
    const at = runs.findIndex((r) => r.runId === start.runId);
    if (at === -1) {
      throw new RequestError(
        404,
        "RUN_NOT_FOUND",
        `The run ${JSON.stringify(start.runId)} of Last-Event-ID is not one of thread "${threadId}"'s latest ${RUN_WINDOW} runs (deleted, or too old); join again without Last-Event-ID to start with the runs active now.`,
      );
    }
    for (const r of runs.slice(0, start.after === "done" ? at + 1 : at)) done.add(r.runId);
    // The log counts from 1; the wire, as a run's stream, from 0.
    if (start.after !== "done") resumeAfter.set(start.runId, start.after + 1);
  } else if (start.from === "active") {
    const firstActive = runs.findIndex((r) => !FINAL_RUN_STATUSES.has(r.status));
    for (const r of firstActive === -1 ? runs : runs.slice(0, firstActive)) done.add(r.runId);
  }
  const lifecycle = modes.has("lifecycle");
  const pass = (event: string) => modes.has("run_modes") || (lifecycle && event === "metadata");
  const runDone = modes.has("run_modes") || lifecycle;
  // The SDK reconnects here (with Last-Event-ID) if the connection breaks.
  c.header("Location", `/threads/${encodeURIComponent(threadId)}/stream`);
  return streamSSE(c, async (stream) => {
    const stop = new AbortController();
    stream.onAbort(() => stop.abort());
    const heartbeat = setInterval(() => void stream.write(": heartbeat\n\n"), HEARTBEAT_MS);
    // Subscribed before ": joined" is written (what a client waits for): an update made
    // from then on is queued even before the runs' loop first waits.
    const updates: StateUpdate[] = [];
    let wakeJoin: (() => void) | undefined;
    const unsubscribe = modes.has("state_update")
      ? ctx.stateUpdates.subscribe(threadId, (update) => {
          updates.push(update);
          wakeJoin?.();
        })
      : () => {};
    const listen = (wake: () => void) => {
      wakeJoin = wake;
      return () => {
        wakeJoin = undefined;
      };
    };
    const runs = threadRuns(ctx, threadId, {
      window: RUN_WINDOW,
      done,
      signal: stop.signal,
      listen,
    });
    try {
      await stream.write(": joined\n\n");
      for await (const next of runs) {
        // No id of their own: a client resuming after one goes on from the run event before it.
        for (const update of updates.splice(0))
          await stream.writeSSE({ event: "state_update", data: JSON.stringify(update) });
        if (!next) continue;
        await relayOne(stream, ctx, next.runId, {
          afterSeq: resumeAfter.get(next.runId) ?? 0,
          // Only a run still going when reached reports its end values (a finished one's
          // would be the thread's values now, not what it ended with).
          active: !FINAL_RUN_STATUSES.has(next.status),
          signal: stop.signal,
          pass,
          runDone,
        });
      }
    } finally {
      clearInterval(heartbeat);
      unsubscribe();
    }
  });
}

/** One run onto the thread's stream: its events, then its `run_done`. */
async function relayOne(
  stream: SSEStreamingApi,
  ctx: ServerContext,
  runId: string,
  options: {
    afterSeq: number;
    active: boolean;
    signal: AbortSignal;
    pass: (event: string) => boolean;
    runDone: boolean;
  },
): Promise<void> {
  await relayRun(stream, ctx.runs, runId, {
    afterSeq: options.afterSeq,
    signal: options.signal,
    pass: options.pass,
    id: (seq) => `${runId}:${seq - 1}`,
    ...(options.active && {
      ended: async () => finalValues(ctx, await ctx.runs.join(runId)),
    }),
  });
  if (!options.runDone || options.signal.aborted) return;
  // The run's log ends as the run does; its record may say so a moment later.
  await ctx.runs.join(runId, { signal: options.signal }).catch(() => undefined);
  if (options.signal.aborted) return;
  await stream.writeSSE({
    event: "metadata",
    data: JSON.stringify({ status: "run_done", run_id: runId }),
    id: `${runId}:done`,
  });
}
