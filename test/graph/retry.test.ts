import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import { retryDelay } from "../../src/graph/definition/retry-policy.js";
import {
  AbortError,
  END,
  Graph,
  GraphValidationError,
  interrupt,
  NodeError,
  NodeTimeoutError,
  START,
} from "../../src/index.js";

const fast = { initialInterval: 1, jitter: false };

describe("retry policies", () => {
  it("a failing node runs maxAttempts times, then fails with a NodeError that counts them", async () => {
    let calls = 0;
    const graph = new Graph()
      .addNode(
        "flaky",
        () => {
          calls++;
          throw new Error("upstream 503");
        },
        { retryPolicy: { maxAttempts: 3, ...fast } },
      )
      .addEdge(START, "flaky")
      .compile();
    const error = await graph.invoke({}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeError);
    expect((error as NodeError).attempts).toBe(3);
    expect((error as NodeError).message).toMatch(/after 3 attempts: upstream 503/);
    expect(calls).toBe(3);
  });

  it("a node that succeeds on a later attempt finishes the run, and a retry never re-runs its finished siblings", async () => {
    const ran = { flaky: 0, steady: 0 };
    const graph = new Graph()
      .addReducer("log", (a: string[] = [], b: string[]) => [...a, ...b])
      .addNode(
        "flaky",
        async () => {
          ran.flaky++;
          if (ran.flaky < 3) throw new Error(`try ${ran.flaky}`);
          return { log: ["flaky"] };
        },
        { retryPolicy: fast },
      )
      .addNode("steady", () => {
        ran.steady++;
        return { log: ["steady"] };
      })
      .addEdge(START, "flaky")
      .addEdge(START, "steady")
      .addEdge(["flaky", "steady"], END)
      .compile({ checkpointer: new MemoryCheckpointer() });
    const r = await graph.invoke({}, { config: { configurable: { thread_id: "siblings" } } });
    expect(r).toEqual({ status: "done", state: { log: ["flaky", "steady"] } });
    expect(ran).toEqual({ flaky: 3, steady: 1 });
  });

  it("retryOn decides which errors are retried", async () => {
    class Declined extends Error {}
    let calls = 0;
    const graph = new Graph()
      .addNode(
        "pay",
        () => {
          calls++;
          throw new Declined("card declined");
        },
        { retryPolicy: { ...fast, retryOn: (e) => !(e instanceof Declined) } },
      )
      .addEdge(START, "pay")
      .compile();
    await expect(graph.invoke({})).rejects.toThrow(/card declined/);
    expect(calls).toBe(1);
  });

  it("waits initialInterval × backoffFactor^(n-1) before the n-th retry, capped at maxInterval", () => {
    const policy = {
      maxAttempts: 10,
      initialInterval: 100,
      backoffFactor: 3,
      maxInterval: 1000,
      jitter: false,
      retryOn: () => true,
    };
    expect([1, 2, 3, 4].map((n) => retryDelay(policy, n))).toEqual([100, 300, 900, 1000]);
    const jittered = retryDelay({ ...policy, jitter: true }, 1);
    expect(jittered).toBeGreaterThanOrEqual(100);
    expect(jittered).toBeLessThanOrEqual(200);
  });

  it("a policy with an impossible value is refused when the node is added", () => {
    expect(() => new Graph().addNode("n", () => ({}), { retryPolicy: { maxAttempts: 0 } })).toThrow(
      GraphValidationError,
    );
    expect(() => new Graph().addNode("n", () => ({}), { timeout: -1 })).toThrow(
      /timeout must be a positive number/,
    );
  });
});

describe("node timeouts", () => {
  it("an attempt past its timeout has its signal aborted and fails with NodeTimeoutError", async () => {
    let aborted: unknown;
    const graph = new Graph()
      .addNode(
        "slow",
        (_s, runtime) =>
          new Promise((resolve) => {
            const timer = setTimeout(() => resolve({ done: true }), 5_000);
            runtime.signal.addEventListener("abort", () => {
              clearTimeout(timer);
              aborted = runtime.signal.reason;
              resolve({ done: false });
            });
          }),
        { timeout: 20 },
      )
      .addEdge(START, "slow")
      .compile();
    const error = await graph.invoke({}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeTimeoutError);
    expect(aborted).toBe(error);
  });

  it("a timed-out attempt is retried, and only its own signal aborts, not its siblings'", async () => {
    let attempts = 0;
    let siblingAborted = false;
    const graph = new Graph()
      .addNode(
        "slow-then-fast",
        async () => {
          attempts++;
          if (attempts === 1) await new Promise((r) => setTimeout(r, 200));
          return { slow: attempts };
        },
        { timeout: 30, retryPolicy: fast },
      )
      .addNode("sibling", async (_s, runtime) => {
        await new Promise((r) => setTimeout(r, 60));
        siblingAborted = runtime.signal.aborted;
        return { sibling: true };
      })
      .addEdge(START, "slow-then-fast")
      .addEdge(START, "sibling")
      .compile();
    const r = await graph.invoke({});
    expect(r.state).toEqual({ slow: 2, sibling: true });
    expect(siblingAborted).toBe(false);
  });
});

describe("node timeouts and synchronous code", () => {
  /** Keeps the thread busy for `ms`: no timer can fire meanwhile. */
  const block = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until) {}
  };

  it("a node that blocks the thread past its timeout cannot be stopped, but its late result is refused", async () => {
    let finished = false;
    const graph = new Graph()
      .addNode(
        "blocking",
        () => {
          block(25);
          finished = true;
          return { kept: true };
        },
        { timeout: 5 },
      )
      .addEdge(START, "blocking")
      .compile();
    const error = await graph.invoke({}).catch((e: unknown) => e);
    expect(finished).toBe(true);
    expect(error).toBeInstanceOf(NodeTimeoutError);
    expect(error).toMatchObject({ node: "blocking", timeoutMs: 5, late: true });
    expect((error as Error).message).toMatch(/returned after its timeout of 5 ms.*worker thread/);
  });

  it("an async node that blocked before its first await is refused too, and retried like any timeout", async () => {
    let attempts = 0;
    const graph = new Graph()
      .addNode(
        "blocks-once",
        async () => {
          attempts++;
          if (attempts === 1) block(25);
          await Promise.resolve();
          return { attempts };
        },
        { timeout: 5, retryPolicy: fast },
      )
      .addEdge(START, "blocks-once")
      .compile();
    const r = await graph.invoke({});
    expect(r.state).toEqual({ attempts: 2 });
  });
});

describe("retries across a stopped run", () => {
  it("a run stopped while waiting to retry goes on counting its attempts when continued", async () => {
    const checkpointer = new MemoryCheckpointer();
    const config = { configurable: { thread_id: "mid-backoff" } };
    const controller = new AbortController();
    let calls = 0;
    const graph = new Graph()
      .addNode("prepare", () => ({ ready: true }))
      .addNode(
        "flaky",
        () => {
          calls++;
          // The first attempt fails; the run is stopped during the wait before the second.
          if (calls === 1) setTimeout(() => controller.abort(), 20);
          throw new Error(`attempt ${calls} failed`);
        },
        { retryPolicy: { maxAttempts: 3, initialInterval: 5_000, jitter: false } },
      )
      .addEdge(START, "prepare")
      .addEdge("prepare", "flaky")
      .compile({ checkpointer });
    await expect(graph.invoke({}, { config, signal: controller.signal })).rejects.toThrow(
      AbortError,
    );
    expect(calls).toBe(1);

    // Continued (as a new process would, from the store): attempts 2 and 3 are all that is left.
    const again = new Graph()
      .addNode("prepare", () => ({ ready: true }))
      .addNode(
        "flaky",
        () => {
          calls++;
          throw new Error(`attempt ${calls} failed`);
        },
        { retryPolicy: { maxAttempts: 3, initialInterval: 1, jitter: false } },
      )
      .addEdge(START, "prepare")
      .addEdge("prepare", "flaky")
      .compile({ checkpointer });
    const error = await again.invoke(null, { config }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeError);
    expect((error as NodeError).attempts).toBe(3);
    expect(calls).toBe(3);
  });

  it("a run paused by an interrupt in a later attempt keeps its count through the resume, in a new graph instance", async () => {
    const checkpointer = new MemoryCheckpointer();
    const config = { configurable: { thread_id: "paused-retry" } };
    let calls = 0;
    const build = () =>
      new Graph()
        .addNode(
          "charge",
          () => {
            calls++;
            if (calls === 1) throw new Error("gateway timeout");
            const go = interrupt("Charge the card?");
            // After the resume the gateway fails again: with 2 attempts spent, that is final.
            throw new Error(`gateway down (${String(go)})`);
          },
          { retryPolicy: { maxAttempts: 2, ...fast } },
        )
        .addEdge(START, "charge")
        .compile({ checkpointer });
    const paused = await build().invoke({}, { config });
    expect(paused.status).toBe("interrupted");
    expect(calls).toBe(2);
    const error = await build()
      .resume(true, { config })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeError);
    expect((error as NodeError).attempts).toBe(2);
    expect(calls).toBe(3);
  });

  it("a run that failed for good gives its node fresh attempts when continued", async () => {
    const checkpointer = new MemoryCheckpointer();
    const config = { configurable: { thread_id: "failed-for-good" } };
    let calls = 0;
    const graph = new Graph()
      .addNode(
        "flaky",
        () => {
          calls++;
          if (calls < 4) throw new Error(`attempt ${calls} failed`);
          return { ok: true };
        },
        { retryPolicy: { maxAttempts: 2, ...fast } },
      )
      .addEdge(START, "flaky")
      .compile({ checkpointer });
    await expect(graph.invoke({}, { config })).rejects.toThrow(/after 2 attempts/);
    const r = await graph.invoke(null, { config });
    expect(r).toEqual({ status: "done", state: { ok: true } });
    expect(calls).toBe(4);
  });
});
