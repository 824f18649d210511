import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgent, type ReviewDeadlinePolicy } from "../../src/agent/index.js";
import {
  type Checkpointer,
  MemoryCheckpointer,
  type PGliteCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import { FakeChatModel, type FakeResponse, message, tool } from "../../src/models/index.js";
import {
  createRuns,
  type DeliveryOutcome,
  deliveryOutboxFor,
  InProcessRunQueue,
  PostgresRunQueue,
  type RunQueue,
  type Runs,
  verifyWebhookSignature,
  type WebhookOptions,
  webhookOptionsOf,
} from "../../src/runs/index.js";
import { tempDataDir } from "../server/fixtures/server.js";
import { dropRunQueueTables, dropStoreTables } from "../setup/store-tables.js";
import { startReceiver, type WebhookReceiver } from "./fixtures/webhook-receiver.js";

const pgUrl = process.env.STATEWEAVER_PG_URL;
const SECRET = "test-secret-for-webhooks";

const transfer = tool({
  name: "transfer",
  description: "Send money.",
  schema: z.object({ amount: z.number() }),
  run: ({ amount }) => `sent ${amount}`,
});

// Asks for one transfer, then reports what the tool answered.
const reply: FakeResponse = (messages) =>
  messages.at(-1)?.role === "tool"
    ? "Paid."
    : { toolCalls: [{ name: "transfer", args: { amount: 500 } }] };

const agentWith = (checkpointer: Checkpointer, deadline?: ReviewDeadlinePolicy) =>
  createAgent({
    name: "payments",
    model: new FakeChatModel({ responses: Array.from({ length: 50 }, () => reply) }),
    tools: [transfer],
    interruptOn: {
      transfer: {
        allowedDecisions: ["approve", "reject"],
        reviewers: { approve: { permission: "payments:approve" } },
        ...(deadline && { deadline }),
      },
    },
    checkpointer,
  });

/** A real queue whose delivery outcomes are recorded as they happen, so tests can wait for them. */
function observed(
  queue: RunQueue,
  record: (key: string, outcome: DeliveryOutcome) => void,
): RunQueue {
  return new Proxy(queue, {
    get(target, key) {
      if (key === "consume") {
        return (handler: never, options: Parameters<RunQueue["consume"]>[1]) =>
          target.consume(handler, {
            ...options,
            onDelivery: async (delivery, attempt) => {
              const outcome = await options.onDelivery!(delivery, attempt);
              record(delivery.key, outcome);
              return outcome;
            },
          });
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

async function until<T>(
  what: string,
  read: () => T | Promise<T>,
  ok: (v: T) => boolean,
): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = await read();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`Gave up waiting for ${what}; last seen: ${JSON.stringify(await read())}`);
}

interface Setup {
  checkpointer: Checkpointer;
  queue(): Promise<RunQueue>;
  /** The delivery row, on PostgreSQL. */
  row?(key: string): Promise<{ status: string; attempts: number } | undefined>;
  cleanup(): Promise<void>;
}

const setups: Array<[string, () => Setup, boolean]> = [
  [
    "in this process",
    () => ({
      checkpointer: new MemoryCheckpointer(),
      queue: async () => new InProcessRunQueue(),
      cleanup: async () => {},
    }),
    true,
  ],
  [
    "on PostgreSQL (graphile-worker)",
    () => {
      const tablePrefix = `sw_wh_${randomUUID().slice(0, 8)}_`;
      const pool = new pg.Pool({ connectionString: pgUrl });
      return {
        checkpointer: new PostgresCheckpointer({ connectionString: pgUrl!, tablePrefix }),
        queue: () =>
          PostgresRunQueue.open({ connectionString: pgUrl!, tablePrefix, pollInterval: 50 }),
        row: async (key) =>
          (
            await pool.query(
              `select status, attempts from ${tablePrefix}deliveries where key = $1`,
              [key],
            )
          ).rows[0],
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

describe.each(setups)("webhooks %s", (_name, makeSetup, enabled) => {
  let setup: Setup;
  let receiver: WebhookReceiver;
  let outcomes: Array<[string, DeliveryOutcome]> = [];
  const opened: Runs[] = [];

  const optionsFor = (extra: Partial<Parameters<typeof webhookOptionsOf>[0] & object> = {}) =>
    webhookOptionsOf({
      endpoints: [{ url: receiver.url, secret: SECRET }],
      inboxUrl: "https://reviews.example.com/",
      // Short pauses, so retries come quickly; nothing below waits on the clock.
      initialDelayMs: 20,
      maxDelayMs: 100,
      ...extra,
    });
  const open = async (webhooks: WebhookOptions, deadline?: ReviewDeadlinePolicy) => {
    const runs = createRuns({
      graphs: [agentWith(setup.checkpointer, deadline)],
      queue: observed(await setup.queue(), (key, outcome) => outcomes.push([key, outcome])),
      webhooks,
    });
    await runs.work({ concurrency: 2 });
    opened.push(runs);
    return runs;
  };
  const pause = async (runs: Runs, threadId: string) => {
    const run = await runs.create({
      graphId: "payments",
      threadId,
      input: { input: { messages: [message.user("Pay the invoice")] } },
    });
    expect((await runs.join(run.runId)).status).toBe("interrupted");
    return run;
  };
  const ofEvent = (event: string, threadId: string) => (r: { json: any }) =>
    r.json?.event === event && r.json?.thread_id === threadId;

  beforeAll(() => {
    if (enabled) setup = makeSetup();
  });
  afterEach(async () => {
    for (const r of opened.splice(0)) await r.close();
    await receiver?.close();
    outcomes = [];
  });
  afterAll(async () => {
    if (!enabled) return;
    await setup.checkpointer.close?.();
    await setup.cleanup();
  });

  it.skipIf(!enabled)(
    "a review waiting arrives once, signed, after the receiver failed the first two attempts",
    async () => {
      receiver = await startReceiver(2);
      const runs = await open(
        optionsFor({
          endpoints: [{ url: receiver.url, secret: SECRET, events: ["review.waiting"] }],
        }),
      );
      const threadId = `wait-${randomUUID()}`;
      await pause(runs, threadId);
      const hit = await receiver.waitFor(ofEvent("review.waiting", threadId), "review.waiting");
      const key = hit.json.delivery_id as string;
      // Every attempt was the same delivery: attempts 1 and 2 answered 503, the third 204.
      const attempts = receiver.received.filter((r) => r.headers["stateweaver-delivery"] === key);
      expect(attempts.map((r) => [r.headers["stateweaver-attempt"], r.answered])).toEqual([
        ["1", 503],
        ["2", 503],
        ["3", 204],
      ]);
      expect(verifyWebhookSignature(SECRET, hit.headers, hit.body)).toBe(true);
      expect(verifyWebhookSignature("another-secret", hit.headers, hit.body)).toBe(false);
      expect(hit.headers["stateweaver-event"]).toBe("review.waiting");
      const interrupt = (await setup.checkpointer.getThread(threadId))!.interrupts[0]!;
      expect(hit.json).toMatchObject({
        event: "review.waiting",
        title: `Review waiting: approve transfer on thread ${threadId}`,
        thread_id: threadId,
        graph_id: "payments",
        interrupt_id: interrupt.id,
        kind: "tool_review",
        tool: "transfer",
        args: { amount: 500 },
        asked: "approve needs permission payments:approve",
        reviewers: { approve: { permission: "payments:approve" } },
        url: `https://reviews.example.com/reviews/${interrupt.id}`,
      });
      expect(hit.json.text).toContain("transfer(amount: 500)");
      expect(hit.json.text).toContain(`https://reviews.example.com/reviews/${interrupt.id}`);
      // Delivered: the queue attempts it no more, and adding it again adds nothing.
      const ofKey = () => outcomes.filter(([k]) => k === key).map(([, o]) => o.status);
      await until("the delivery's end", ofKey, (o) => o.includes("delivered"));
      expect(ofKey()).toEqual(["failed", "failed", "delivered"]);
      expect(await runs.queue.addDelivery({ key, payload: {} })).toBe(false);
      if (setup.row) expect(await setup.row(key)).toEqual({ status: "delivered", attempts: 3 });
    },
  );

  it.skipIf(!enabled)(
    "a receiver that keeps failing is given up after the set number of attempts, and the run is as it ended",
    async () => {
      receiver = await startReceiver(1000);
      const runs = await open(
        optionsFor({
          endpoints: [{ url: receiver.url, secret: SECRET, events: ["run.ended"] }],
          attempts: 3,
        }),
      );
      const threadId = `down-${randomUUID()}`;
      const run = await pause(runs, threadId);
      const given = await until(
        "the delivery to be given up",
        () => outcomes.find(([, o]) => o.status === "failed" && o.retryInMs === undefined),
        (o) => o !== undefined,
      );
      const key = given![0];
      expect(key.startsWith(`run.ended|${run.runId}|`)).toBe(true);
      expect(outcomes.filter(([k]) => k === key)).toHaveLength(3);
      const sent = receiver.received.filter((r) => r.headers["stateweaver-delivery"] === key);
      expect(sent.map((r) => r.headers["stateweaver-attempt"])).toEqual(["1", "2", "3"]);
      expect(sent[0]!.json).toMatchObject({
        event: "run.ended",
        run_id: run.runId,
        status: "interrupted",
        title: `Run ${run.runId} on thread ${threadId} ended: interrupted`,
      });
      // Only run.ended was asked for: no review.waiting went to this endpoint.
      expect(receiver.received.every((r) => r.json.event === "run.ended")).toBe(true);
      expect((await runs.get(run.runId))!.status).toBe("interrupted");
      expect((await setup.checkpointer.getThread(threadId))!.status).toBe("interrupted");
      if (setup.row) expect(await setup.row(key)).toEqual({ status: "failed", attempts: 3 });
    },
  );

  it.skipIf(!enabled)(
    "a deadline that hands a review off is told as review.expired, naming the group",
    async () => {
      receiver = await startReceiver();
      const runs = await open(
        optionsFor({
          endpoints: [{ url: receiver.url, secret: SECRET, events: ["review.expired"] }],
        }),
        // Long enough that the run has let the thread go when it passes (a busy thread makes
        // the deadline job wait for the queue's retry).
        { after: 400, onExpiry: { handOff: { group: "oncall", message: "Nobody answered." } } },
      );
      const threadId = `late-${randomUUID()}`;
      await pause(runs, threadId);
      const hit = await receiver.waitFor(ofEvent("review.expired", threadId), "review.expired");
      expect(hit.json).toMatchObject({
        event: "review.expired",
        title: `Review expired: transfer on thread ${threadId} was handed to oncall`,
        review_group: "oncall",
        tool: "transfer",
        expiry: { action: "handed_off", group: "oncall", message: "Nobody answered." },
      });
      expect(hit.json.asked).toContain("group oncall");
      expect(verifyWebhookSignature(SECRET, hit.headers, hit.body)).toBe(true);
    },
  );

  it.skipIf(!enabled)(
    "a run's own webhook gets the run as LangGraph posts it: status, times and final values",
    async () => {
      receiver = await startReceiver(1);
      const runs = await open(optionsFor({ endpoints: [] }));
      const threadId = `own-${randomUUID()}`;
      const run = await runs.create({
        graphId: "payments",
        threadId,
        input: { input: { messages: [message.user("Pay the invoice")] } },
        webhook: receiver.url,
      });
      const hit = await receiver.waitFor((r) => r.json?.run_id === run.runId, "the run's webhook");
      expect(hit.headers["stateweaver-event"]).toBe("run.webhook");
      expect(hit.headers["stateweaver-attempt"]).toBe("2");
      // Unsigned, as LangGraph sends it, unless runWebhook has a secret.
      expect(hit.headers["stateweaver-signature"]).toBeUndefined();
      expect(hit.json).toMatchObject({
        run_id: run.runId,
        thread_id: threadId,
        assistant_id: "payments",
        status: "interrupted",
        multitask_strategy: "reject",
      });
      expect(hit.json.values.messages.length).toBeGreaterThan(0);
      for (const at of ["run_started_at", "run_ended_at", "webhook_sent_at", "created_at"])
        expect(Number.isNaN(Date.parse(hit.json[at]))).toBe(false);
    },
  );

  it.skipIf(!enabled)(
    "a run's webhook that is not an http(s) URL is refused before anything runs",
    async () => {
      receiver = await startReceiver();
      const runs = await open(optionsFor({ endpoints: [] }));
      const threadId = `bad-${randomUUID()}`;
      await expect(
        runs.create({ graphId: "payments", threadId, input: null, webhook: "file:///etc/passwd" }),
      ).rejects.toThrow(/webhook "file:\/\/\/etc\/passwd" is not an http:\/\/ or https:\/\/ URL/);
      expect(await runs.list({ threadId })).toEqual([]);
    },
  );
});

describe.skipIf(pgUrl === undefined)("webhooks on PostgreSQL with several workers", () => {
  const tablePrefix = `sw_whw_${randomUUID().slice(0, 8)}_`;
  let pool: pg.Pool;
  let checkpointer: PostgresCheckpointer;
  let receiver: WebhookReceiver;
  const opened: Runs[] = [];

  const open = async (
    webhooks: WebhookOptions,
    outcomes: Array<[string, DeliveryOutcome]>,
    onOutcome?: (outcome: DeliveryOutcome) => void,
  ) => {
    const queue = await PostgresRunQueue.open({
      connectionString: pgUrl!,
      tablePrefix,
      pollInterval: 50,
    });
    const runs = createRuns({
      graphs: [agentWith(checkpointer)],
      queue: observed(queue, (key, outcome) => {
        outcomes.push([key, outcome]);
        onOutcome?.(outcome);
      }),
      webhooks,
    });
    await runs.work({ concurrency: 2 });
    opened.push(runs);
    return runs;
  };
  const row = async (key: string) =>
    (
      await pool.query(`select status, attempts from ${tablePrefix}deliveries where key = $1`, [
        key,
      ])
    ).rows[0];

  beforeAll(() => {
    pool = new pg.Pool({ connectionString: pgUrl });
    checkpointer = new PostgresCheckpointer({ connectionString: pgUrl!, tablePrefix });
  });
  afterEach(async () => {
    for (const r of opened.splice(0)) await r.close();
    await receiver?.close();
  });
  afterAll(async () => {
    await checkpointer.close();
    await dropStoreTables(pool, tablePrefix);
    await dropRunQueueTables(pool, tablePrefix);
    await pool.end();
  });

  it("an event two workers both queue is delivered once, whichever worker attempts it", async () => {
    receiver = await startReceiver(2);
    const outcomes: Array<[string, DeliveryOutcome]> = [];
    const settings = webhookOptionsOf({
      endpoints: [{ url: receiver.url, secret: SECRET }],
      initialDelayMs: 20,
      maxDelayMs: 50,
    });
    const [a, b, c] = [
      await open(settings, outcomes),
      await open(settings, outcomes),
      await open(settings, outcomes),
    ];
    const threadId = `many-${randomUUID()}`;
    const review = {
      graphId: "payments",
      threadId,
      interrupt: {
        id: "i-1",
        value: {
          actionRequests: [{ id: "c1", name: "transfer", args: { amount: 5 }, description: "" }],
          reviewConfigs: [{ actionName: "transfer", allowedDecisions: ["approve" as const] }],
        },
        node: "humanInTheLoop",
        ns: "",
        step: 1,
        taskId: "t",
        timing: "during" as const,
      },
      reviewer: "alice",
      decidedAt: new Date().toISOString(),
      answer: { decisions: [{ type: "approve" }] },
      runId: "r-1",
    };
    // Every process that saw the decision queues it: the key makes it one delivery.
    await Promise.all([a, b, c].map((r) => r.webhooks.reviewDecided(review)));
    const hit = await receiver.waitFor((r) => r.json?.thread_id === threadId, "review.decided");
    const key = hit.json.delivery_id as string;
    await until(
      "the delivery's end",
      () => row(key),
      (r) => r?.status === "delivered",
    );
    const sent = receiver.received.filter((r) => r.headers["stateweaver-delivery"] === key);
    expect(sent.map((r) => [r.headers["stateweaver-attempt"], r.answered])).toEqual([
      ["1", 503],
      ["2", 503],
      ["3", 204],
    ]);
    expect(outcomes.filter(([k]) => k === key).map(([, o]) => o.status)).toEqual([
      "failed",
      "failed",
      "delivered",
    ]);
    expect(await row(key)).toEqual({ status: "delivered", attempts: 3 });
    expect(hit.json).toMatchObject({
      event: "review.decided",
      title: `Review decided: alice approved transfer on thread ${threadId}`,
      decision: { reviewer: "alice", types: ["approve"] },
    });
  });

  it("the sweep forgets deliveries that ended over a week ago, and keeps the rest", async () => {
    const queue = await PostgresRunQueue.open({ connectionString: pgUrl!, tablePrefix });
    try {
      const rows: Array<[string, string, string]> = [
        ["old-delivered", "delivered", "8 days"],
        ["old-failed", "failed", "8 days"],
        ["old-pending", "pending", "8 days"],
        ["new-delivered", "delivered", "1 day"],
      ];
      for (const [key, status, age] of rows) {
        await pool.query(
          `insert into ${tablePrefix}deliveries (key, payload, status, updated_at)
           values ($1, '{}', $2, clock_timestamp() - $3::interval)`,
          [`sweep-${key}`, status, age],
        );
      }
      await queue.sweep(30_000);
      const left = await pool.query(
        `select key from ${tablePrefix}deliveries where key like 'sweep-%' order by key`,
      );
      expect(left.rows.map((r) => r.key)).toEqual(["sweep-new-delivered", "sweep-old-pending"]);
    } finally {
      await queue.close();
    }
  });

  it("a delivery that failed before its worker stopped is delivered by the next worker", async () => {
    receiver = await startReceiver(1);
    const outcomes: Array<[string, DeliveryOutcome]> = [];
    const settings = webhookOptionsOf({
      endpoints: [{ url: receiver.url, secret: SECRET, events: ["run.ended"] }],
      initialDelayMs: 300,
    });
    // The first worker stops as soon as its first attempt failed: it makes no other.
    let closing: Promise<void> | undefined;
    let first: Runs | undefined;
    first = await open(settings, outcomes, (o) => {
      if (o.status === "failed" && !closing) closing = first!.close();
    });
    const threadId = `restart-${randomUUID()}`;
    const run = await first.create({
      graphId: "payments",
      threadId,
      input: { input: { messages: [message.user("Pay the invoice")] } },
    });
    await until(
      "the first attempt to fail",
      () => closing !== undefined,
      (started) => started,
    );
    await closing;
    expect(receiver.received.map((r) => r.answered)).toEqual([503]);
    const key = receiver.received[0]!.headers["stateweaver-delivery"] as string;
    expect(await row(key)).toEqual({ status: "pending", attempts: 1 });

    // A new process on the same database picks the retry up where the first left it.
    await open(settings, outcomes);
    const hit = await receiver.waitFor((r) => r.json?.run_id === run.runId, "run.ended");
    expect(hit.headers["stateweaver-attempt"]).toBe("2");
    expect(verifyWebhookSignature(SECRET, hit.headers, hit.body)).toBe(true);
    await until(
      "the delivery's end",
      () => row(key),
      (r) => r?.status === "delivered",
    );
    expect(await row(key)).toEqual({ status: "delivered", attempts: 2 });
  });
});

describe("webhooks on PGlite, kept in its outbox", () => {
  let receiver: WebhookReceiver;
  let data: Awaited<ReturnType<typeof tempDataDir>>;
  const opened: Array<{ runs: Runs; checkpointer: PGliteCheckpointer }> = [];

  /** One embedded process: the data directory's checkpointer and an in-process queue with the outbox. */
  const start = async (
    webhooks: WebhookOptions,
    onOutcome?: (outcome: DeliveryOutcome) => void,
  ) => {
    const checkpointer = data.open();
    const queue = new InProcessRunQueue({ outbox: deliveryOutboxFor(checkpointer) });
    const runs = createRuns({
      graphs: [agentWith(checkpointer)],
      queue: observed(queue, (_key, outcome) => onOutcome?.(outcome)),
      webhooks,
    });
    await runs.work({ concurrency: 1 });
    opened.push({ runs, checkpointer });
    return { runs, queue, checkpointer };
  };
  /** The process ends: its runs stop and its database closes. */
  const stop = async (process: { runs: Runs; checkpointer: PGliteCheckpointer }) => {
    await process.runs.close();
    await process.checkpointer.close();
    opened.splice(opened.indexOf(process), 1);
  };
  const row = async (checkpointer: PGliteCheckpointer, key: string) => {
    const driver = await checkpointer.sharedDriver();
    const { rows } = await driver.query(
      `select status, attempts from ${checkpointer.tablePrefix}delivery_outbox where key = $1`,
      [key],
    );
    return rows[0];
  };

  beforeAll(async () => {
    data = await tempDataDir();
  });
  afterEach(async () => {
    for (const process of [...opened]) await stop(process);
    await receiver?.close();
  });
  afterAll(() => data.dispose());

  it("is kept only on PGlite, whose data directory has one owner", async () => {
    expect(deliveryOutboxFor(new MemoryCheckpointer())).toBeUndefined();
    const shared = new PostgresCheckpointer({ connectionString: "postgres://unused/none" });
    expect(deliveryOutboxFor(shared)).toBeUndefined();
    await shared.close();
  });

  it("a delivery waiting for its retry when the process stopped is delivered by the next process, once", async () => {
    receiver = await startReceiver(1);
    const settings = webhookOptionsOf({
      endpoints: [{ url: receiver.url, secret: SECRET, events: ["run.ended"] }],
      initialDelayMs: 300,
    });
    let failed!: () => void;
    const firstFailure = new Promise<void>((resolve) => {
      failed = resolve;
    });
    const first = await start(settings, (o) => {
      if (o.status === "failed") failed();
    });
    const run = await first.runs.create({
      graphId: "payments",
      threadId: `outbox-${randomUUID()}`,
      input: { input: { messages: [message.user("Pay the invoice")] } },
    });
    await firstFailure;
    await stop(first);
    expect(receiver.received.map((r) => r.answered)).toEqual([503]);
    const key = receiver.received[0]!.headers["stateweaver-delivery"] as string;

    // The next process on the same data directory takes the retry up where the first left it.
    const second = await start(settings);
    const hit = await receiver.waitFor((r) => r.json?.run_id === run.runId, "run.ended");
    expect(hit.headers["stateweaver-attempt"]).toBe("2");
    expect(verifyWebhookSignature(SECRET, hit.headers, hit.body)).toBe(true);
    await until(
      "the delivery's end",
      () => row(second.checkpointer, key),
      (r) => r?.status === "delivered",
    );
    expect(await row(second.checkpointer, key)).toEqual({ status: "delivered", attempts: 2 });
    // The same event seen again (another process, a replay) is not sent twice.
    expect(await second.queue.addDelivery({ key, payload: {} })).toBe(false);
    await stop(second);
    await start(settings);
    await new Promise((r) => setTimeout(r, 100));
    expect(receiver.received.filter((r) => r.json?.run_id === run.runId)).toHaveLength(2);
  });
});
