import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgent, type ReviewDeadlinePolicy } from "../../src/agent/index.js";
import {
  type Checkpointer,
  MemoryCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import { FakeChatModel, type FakeResponse, message, tool } from "../../src/models/index.js";
import {
  createRuns,
  InProcessRunQueue,
  PostgresRunQueue,
  type RunQueue,
  type Runs,
  type ScheduledJob,
} from "../../src/runs/index.js";
import { DEADLINES_KEY, REVIEW_GROUP_KEY } from "../../src/runs/review-deadlines.js";
import { dropRunQueueTables, dropStoreTables } from "../setup/store-tables.js";

const pgUrl = process.env.STATEWEAVER_PG_URL;

const transfer = tool({
  name: "transfer",
  description: "Send money.",
  schema: z.object({ amount: z.number() }),
  run: ({ amount }) => `sent ${amount}`,
});

// Asks for one transfer, then reports what the tool answered.
const reply: FakeResponse = (messages) => {
  const last = messages.at(-1);
  return last?.role === "tool"
    ? `Tool said: ${last.content}`
    : { toolCalls: [{ name: "transfer", args: { amount: 500 } }] };
};

const agentWith = (checkpointer: Checkpointer, deadline: ReviewDeadlinePolicy) =>
  createAgent({
    name: "payments",
    model: new FakeChatModel({ responses: Array.from({ length: 50 }, () => reply) }),
    tools: [transfer],
    interruptOn: { transfer: { allowedDecisions: ["approve", "reject"], deadline } },
    checkpointer,
  });

const notify = tool({
  name: "notify",
  description: "Tell the customer.",
  schema: z.object({ text: z.string() }),
  run: () => "told",
});
// One turn with both calls, so one review holds both.
const both: FakeResponse = (messages) =>
  messages.at(-1)?.role === "tool"
    ? "Done."
    : {
        toolCalls: [
          { name: "transfer", args: { amount: 5 } },
          { name: "notify", args: { text: "paid" } },
        ],
      };

/** A real queue whose scheduled jobs are counted as they finish, so tests can wait for them. */
function observed(queue: RunQueue, fired: ScheduledJob[]): RunQueue {
  return new Proxy(queue, {
    get(target, key) {
      if (key === "consume") {
        return (handler: never, options: Parameters<RunQueue["consume"]>[1]) =>
          target.consume(handler, {
            ...options,
            onScheduled: async (job) => {
              await options.onScheduled?.(job);
              fired.push(job);
            },
          });
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await read();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  const last = await read();
  throw new Error(`Gave up waiting for ${what}; last seen: ${JSON.stringify(last)}`);
}

interface Setup {
  checkpointer: Checkpointer;
  /** A queue; in process, the same one again unless `fresh` (a restarted process). */
  queue(fresh?: boolean): Promise<RunQueue>;
  jobsWaiting?(key: string): Promise<number>;
  /** The test's queues were closed: the next one is new. */
  forget?(): void;
  cleanup(): Promise<void>;
}

const setups: Array<[string, () => Setup, boolean]> = [
  [
    "in this process",
    () => {
      let shared: InProcessRunQueue | undefined;
      return {
        checkpointer: new MemoryCheckpointer(),
        queue: async (fresh) => {
          if (fresh || !shared) shared = new InProcessRunQueue();
          return shared;
        },
        forget: () => {
          shared = undefined;
        },
        cleanup: async () => {},
      };
    },
    true,
  ],
  [
    "on PostgreSQL (graphile-worker)",
    () => {
      const tablePrefix = `sw_dl_${randomUUID().slice(0, 8)}_`;
      const pool = new pg.Pool({ connectionString: pgUrl });
      return {
        checkpointer: new PostgresCheckpointer({ connectionString: pgUrl!, tablePrefix }),
        queue: () =>
          PostgresRunQueue.open({ connectionString: pgUrl!, tablePrefix, pollInterval: 100 }),
        jobsWaiting: async (key) =>
          (
            await pool.query(
              `select count(*)::int as n from ${tablePrefix}queue.jobs where key = $1`,
              [key],
            )
          ).rows[0].n,
        cleanup: async () => {
          await dropStoreTables(pool, tablePrefix);
          await dropRunQueueTables(pool, tablePrefix);
          await pool.end();
        },
      };
    },
    pgUrl !== undefined,
  ],
];

describe.each(setups)("review deadlines %s", (_name, makeSetup, enabled) => {
  let setup: Setup;
  const opened: Runs[] = [];
  let fired: ScheduledJob[] = [];

  const open = async (deadline: ReviewDeadlinePolicy, fresh = false) => {
    const runs = createRuns({
      graphs: [agentWith(setup.checkpointer, deadline)],
      queue: observed(await setup.queue(fresh), fired),
      leaseMs: 2000,
    });
    await runs.work({ concurrency: 2 });
    opened.push(runs);
    return runs;
  };
  const threadOf = (threadId: string) => setup.checkpointer.getThread(threadId);
  /** Start a thread and wait until it pauses on the transfer's review. */
  const pause = async (runs: Runs, threadId: string) => {
    const run = await runs.create({
      graphId: "payments",
      threadId,
      input: { input: { messages: [message.user("Pay the invoice")] } },
    });
    expect((await runs.join(run.runId)).status).toBe("interrupted");
    return (await threadOf(threadId))!;
  };

  beforeAll(() => {
    if (enabled) setup = makeSetup();
  });
  afterEach(async () => {
    for (const r of opened.splice(0)) await r.close();
    setup?.forget?.();
    fired = [];
  });
  afterAll(async () => {
    if (!enabled) return;
    await setup.checkpointer.close?.();
    await setup.cleanup();
  });

  it.skipIf(!enabled)(
    "a passed deadline rejects the review once, as a run recorded like a decision, with two workers",
    async () => {
      const deadline: ReviewDeadlinePolicy = {
        after: 300,
        onExpiry: { reject: { message: "Nobody approved in time." } },
      };
      const a = await open(deadline);
      const b = await open(deadline);
      const threadId = randomUUID();
      const paused = await pause(a, threadId);
      const interrupt = paused.interrupts[0]!;
      expect((interrupt.value as { deadline: unknown }).deadline).toEqual({
        at: expect.any(String),
        onExpiry: { reject: { message: "Nobody approved in time." } },
      });
      // Both workers may take the job; it is applied once.
      expect(b).not.toBe(a);
      const { record } = await until(
        "the deadline's run to finish",
        async () => ({ record: await threadOf(threadId), runs: await a.list({ threadId }), fired }),
        (seen) => seen.record?.status === "idle",
      );
      const state = await a.graph("payments")!.getState({ configurable: { thread_id: threadId } });
      const messages = (state.values as { messages: Array<{ role: string; content: string }> })
        .messages;
      expect(messages.filter((m) => m.role === "tool")).toEqual([
        expect.objectContaining({ content: "Nobody approved in time.", status: "error" }),
      ]);
      expect(messages.at(-1)?.content).toBe("Tool said: Nobody approved in time.");
      const decisions = record!.metadata["stateweaver:decisions"] as Array<Record<string, unknown>>;
      expect(decisions).toHaveLength(1);
      expect(decisions[0]).toMatchObject({ interruptId: interrupt.id, reviewer: "deadline" });
      // The thread is idle a moment before its run's record says so.
      expect((await a.join(decisions[0]!.runId as string)).status).toBe("success");
      const threadRuns = await a.list({ threadId });
      expect(threadRuns.map((r) => r.status).sort()).toEqual(["interrupted", "success"]);
      expect(record!.metadata[DEADLINES_KEY]).toMatchObject({
        [interrupt.id]: { action: "rejected", runId: decisions[0]!.runId },
      });
    },
  );

  it.skipIf(!enabled)(
    "a hand-off deadline names the new group in the thread's metadata and leaves the review pending",
    async () => {
      const runs = await open({ after: 250, onExpiry: { handOff: { group: "oncall" } } });
      const heard: string[] = [];
      runs.onDeadline((threadId, outcome) => heard.push(`${threadId} ${outcome.action}`));
      const threadId = randomUUID();
      const paused = await pause(runs, threadId);
      const record = await until(
        "the hand-off",
        () => threadOf(threadId),
        (r) => r?.metadata[REVIEW_GROUP_KEY] === "oncall" && r.status !== "busy",
      );
      expect(record!.status).toBe("interrupted");
      expect(record!.latestCheckpointId).toBe(paused.latestCheckpointId);
      expect(record!.metadata[DEADLINES_KEY]).toMatchObject({
        [paused.interrupts[0]!.id]: { action: "handed_off", group: "oncall" },
      });
      expect(await runs.list({ threadId })).toHaveLength(1);
      await until(
        "the hand-off to be heard",
        async () => heard.length,
        (n) => n > 0,
      );
      expect(heard).toEqual([`${threadId} handed_off`]);
    },
  );

  it.skipIf(!enabled)("a waiting deadline marks the review overdue and keeps it", async () => {
    const runs = await open({ after: "250ms", onExpiry: "wait" });
    const threadId = randomUUID();
    const paused = await pause(runs, threadId);
    const id = paused.interrupts[0]!.id;
    const record = await until(
      "the review to be marked overdue",
      () => threadOf(threadId),
      // The note is written under a claim let go at once: "busy" for that moment.
      (r) =>
        (r?.metadata[DEADLINES_KEY] as Record<string, unknown> | undefined)?.[id] !== undefined &&
        r?.status !== "busy",
    );
    expect(record!.metadata[DEADLINES_KEY]).toMatchObject({ [id]: { action: "overdue" } });
    expect(record!.status).toBe("interrupted");
    expect(record!.metadata[REVIEW_GROUP_KEY]).toBeUndefined();
    expect(await runs.list({ threadId })).toHaveLength(1);
  });

  it.skipIf(!enabled)(
    "a reject deadline on a review with a call that may not be rejected marks it overdue, saying why",
    async () => {
      const runs = createRuns({
        graphs: [
          createAgent({
            name: "payments",
            model: new FakeChatModel({ responses: Array.from({ length: 10 }, () => both) }),
            tools: [transfer, notify],
            interruptOn: {
              transfer: {
                allowedDecisions: ["approve", "reject"],
                deadline: { after: 250, onExpiry: { reject: { message: "Late." } } },
              },
              notify: { allowedDecisions: ["approve"] },
            },
            checkpointer: setup.checkpointer,
          }),
        ],
        queue: observed(await setup.queue(), fired),
      });
      await runs.work({ concurrency: 2 });
      opened.push(runs);
      const threadId = randomUUID();
      const paused = await pause(runs, threadId);
      const id = paused.interrupts[0]!.id;
      const record = await until(
        "the review to be marked overdue",
        () => threadOf(threadId),
        (r) =>
          (r?.metadata[DEADLINES_KEY] as Record<string, unknown> | undefined)?.[id] !== undefined &&
          r?.status !== "busy",
      );
      expect(record!.metadata[DEADLINES_KEY]).toMatchObject({
        [id]: { action: "overdue", reason: expect.stringContaining("notify may not be rejected") },
      });
      expect(record!.status).toBe("interrupted");
      expect(await runs.list({ threadId })).toHaveLength(1);
    },
  );

  it.skipIf(!enabled)(
    "a decision made before the deadline leaves nothing for it to do",
    async () => {
      const runs = await open({ after: 400, onExpiry: { reject: { message: "Too late." } } });
      const threadId = randomUUID();
      await pause(runs, threadId);
      const decided = await runs.create({
        graphId: "payments",
        threadId,
        input: { command: { resume: { decisions: [{ type: "approve" }] } } },
      });
      expect((await runs.join(decided.runId)).status).toBe("success");
      await until(
        "the deadline's job to run",
        async () => fired.length,
        (n) => n >= 1,
      );
      const record = await threadOf(threadId);
      expect(record!.metadata[DEADLINES_KEY]).toBeUndefined();
      expect(await runs.list({ threadId })).toHaveLength(2);
      const state = await runs
        .graph("payments")!
        .getState({ configurable: { thread_id: threadId } });
      expect(
        (state.values as { messages: Array<{ content: string }> }).messages.at(-1)?.content,
      ).toBe("Tool said: sent 500");
    },
  );

  it.skipIf(!enabled)(
    "a deadline still fires after its process stopped and another started",
    async () => {
      const deadline: ReviewDeadlinePolicy = {
        after: 1500,
        onExpiry: { handOff: { group: "night" } },
      };
      const first = await open(deadline);
      const threadId = randomUUID();
      const paused = await pause(first, threadId);
      await first.close();
      opened.splice(opened.indexOf(first), 1);
      const key = `deadline:${threadId}:${paused.interrupts[0]!.id}`;
      // On PostgreSQL the job itself outlives the process; in process the next one finds the pause.
      if (setup.jobsWaiting) expect(await setup.jobsWaiting(key)).toBe(1);
      expect((await threadOf(threadId))!.metadata[REVIEW_GROUP_KEY]).toBeUndefined();
      await open(deadline, true);
      const record = await until(
        "the hand-off after the restart",
        () => threadOf(threadId),
        (r) => r?.metadata[REVIEW_GROUP_KEY] === "night" && r.status !== "busy",
      );
      expect(record!.status).toBe("interrupted");
      // The job ends after the hand-off is stored (it records it in the audit log then).
      await until(
        "the deadline's job to end",
        async () => fired.filter((j) => j.key === key).length,
        (n) => n >= 1,
      );
      expect(fired.filter((j) => j.key === key)).toHaveLength(1);
    },
  );
});
