import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import {
  Command,
  END,
  Graph,
  InterruptReplayError,
  InterruptSwallowedError,
  InvalidConfigError,
  InvalidResumeError,
  interrupt,
  nullResume,
  START,
} from "../../src/index.js";

let threads = 0;
const thread = () => ({ configurable: { thread_id: `t-${++threads}` } });
const append = (existing: unknown[] = [], update: unknown) => [...existing, ...[update].flat()];

function approvalFlow(checkpointer = new MemoryCheckpointer()) {
  return new Graph({ name: "ApprovalFlow" })
    .addNode("approval", (state) => ({
      approved: interrupt({ question: "Go ahead with this?", details: state.details }),
    }))
    .addEdge(START, "approval")
    .addEdge("approval", END)
    .compile({ checkpointer });
}

describe("pausing with interrupt()", () => {
  it("pauses inside the node, saves the thread and returns the interrupt", async () => {
    const graph = approvalFlow();
    const config = thread();
    const r = await graph.invoke({ details: "Transfer $500" }, { config });
    expect(r.status).toBe("interrupted");
    if (r.status !== "interrupted") return;
    expect(r.interrupt).toMatchObject({
      value: { question: "Go ahead with this?", details: "Transfer $500" },
      node: "approval",
      ns: "",
      timing: "during",
    });
    expect(r.interrupt.id).toMatch(/^[0-9a-f]{24}$/);
    expect(r.interrupts).toEqual([r.interrupt]);
    const snapshot = await graph.getState(config);
    expect(snapshot.next).toEqual(["approval"]);
    expect(snapshot.interrupts).toEqual([r.interrupt]);
  });

  it("returns the resume value from interrupt() when the same thread resumes", async () => {
    const graph = approvalFlow();
    const config = thread();
    await graph.invoke({ details: "Transfer $500" }, { config });
    const r = await graph.resume(true, { config });
    expect(r).toEqual({ status: "done", state: { details: "Transfer $500", approved: true } });
  });

  it("resumes through invoke(new Command({ resume }))", async () => {
    const graph = approvalFlow();
    const config = thread();
    await graph.invoke({ details: "x" }, { config });
    expect((await graph.invoke(new Command({ resume: "yes" }), { config })).state.approved).toBe(
      "yes",
    );
  });

  it("works with runtime.interrupt as well as the free function", async () => {
    const graph = new Graph()
      .addNode("ask", (_s, runtime) => ({ name: runtime.interrupt<string>("Name?") }))
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    await graph.invoke({}, { config });
    expect((await graph.resume("Ada", { config })).state).toEqual({ name: "Ada" });
  });

  it("resumes with null only through nullResume", async () => {
    const graph = approvalFlow();
    const config = thread();
    await graph.invoke({ details: "x" }, { config });
    await expect(graph.resume(undefined, { config })).rejects.toThrow(/nullResume/);
    const r = await graph.resume(nullResume, { config });
    expect(r.state.approved).toBeNull();
    const config2 = thread();
    await graph.invoke({ details: "x" }, { config: config2 });
    expect(
      (await graph.invoke(new Command({ resume: null }), { config: config2 })).state.approved,
    ).toBeNull();
  });

  it("re-runs the node from its start: the k-th interrupt gets the k-th answer", async () => {
    let runs = 0;
    const graph = new Graph()
      .addNode("form", () => {
        runs++;
        const name = interrupt("What is your name?");
        const age = interrupt("What is your age?");
        const city = interrupt("What is your city?");
        return { name, age, city };
      })
      .addEdge(START, "form")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    let r = await graph.invoke({}, { config });
    expect(r.status === "interrupted" && r.interrupt.value).toBe("What is your name?");
    r = await graph.resume("Ada", { config });
    expect(r.status === "interrupted" && r.interrupt.value).toBe("What is your age?");
    r = await graph.resume(36, { config });
    expect(r.status === "interrupted" && r.interrupt.value).toBe("What is your city?");
    r = await graph.resume("London", { config });
    expect(r).toEqual({ status: "done", state: { name: "Ada", age: 36, city: "London" } });
    expect(runs).toBe(4);
  });

  it("validates human input by interrupting again until the answer is valid", async () => {
    const graph = new Graph()
      .addNode("age", () => {
        let prompt = "What is your age?";
        for (;;) {
          const answer = interrupt(prompt);
          if (Number.isInteger(answer) && answer > 0) return { age: answer };
          prompt = `'${answer}' is not an age we can use: answer with a whole number above zero.`;
        }
      })
      .addEdge(START, "age")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    await graph.invoke({}, { config });
    let r = await graph.resume("abc", { config });
    expect(r.status === "interrupted" && r.interrupt.value).toBe(
      "'abc' is not an age we can use: answer with a whole number above zero.",
    );
    r = await graph.resume(-3, { config });
    expect(r.status === "interrupted" && r.interrupt.value).toBe(
      "'-3' is not an age we can use: answer with a whole number above zero.",
    );
    r = await graph.resume(42, { config });
    expect(r).toEqual({ status: "done", state: { age: 42 } });
  });

  it("reviews and edits generated state", async () => {
    const graph = new Graph()
      .addNode("generate", () => ({ text: "Draft v1" }))
      .addNode("review", (s) => ({
        text: interrupt({
          instruction: "Check this draft and send back your version",
          content: s.text,
        }),
      }))
      .addEdge(START, "generate")
      .addEdge("generate", "review")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    const r = await graph.invoke({}, { config });
    expect(r.status === "interrupted" && r.interrupt.value).toEqual({
      instruction: "Check this draft and send back your version",
      content: "Draft v1",
    });
    expect((await graph.resume("Draft v2 (edited)", { config })).state.text).toBe(
      "Draft v2 (edited)",
    );
  });
});

describe("parallel interrupts", () => {
  function parallelQuestions(counter: { calls: number }) {
    return new Graph({ name: "ParallelQuestions" })
      .addReducer("answers", append)
      .addNode("left", () => ({ answers: [`a:${interrupt("question_a")}`] }))
      .addNode("right", () => ({ answers: [`b:${interrupt("question_b")}`] }))
      .addNode("quiet", () => {
        counter.calls++;
        return { answers: ["quiet"] };
      })
      .addEdge(START, "left")
      .addEdge(START, "right")
      .addEdge(START, "quiet")
      .addEdge("left", END)
      .addEdge("right", END)
      .compile({ checkpointer: new MemoryCheckpointer() });
  }

  it("resumes several pending interrupts with a map keyed by interrupt id", async () => {
    const graph = parallelQuestions({ calls: 0 });
    const config = thread();
    const r = await graph.invoke({ answers: [] }, { config });
    expect(r.status === "interrupted" && r.interrupts.map((i) => i.value)).toEqual([
      "question_a",
      "question_b",
    ]);
    const { interrupts } = await graph.getState(config);
    const answers = Object.fromEntries(interrupts.map((i) => [i.id, `answer for ${i.value}`]));
    const done = await graph.resume(answers, { config });
    expect(done).toEqual({
      status: "done",
      state: { answers: ["a:answer for question_a", "b:answer for question_b", "quiet"] },
    });
  });

  it("rejects a scalar when several are pending, listing the ids, and leaves the thread intact", async () => {
    const graph = parallelQuestions({ calls: 0 });
    const config = thread();
    await graph.invoke({ answers: [] }, { config });
    const before = await graph.getState(config);
    const error = await graph.resume("x", { config }).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidResumeError);
    for (const i of before.interrupts) expect(error.message).toContain(i.id);
    expect(await graph.getState(config)).toEqual(before);
  });

  it("continues the answered ones and keeps the rest pending", async () => {
    const graph = parallelQuestions({ calls: 0 });
    const config = thread();
    const r = await graph.invoke({ answers: [] }, { config });
    if (r.status !== "interrupted") throw new Error("expected a pause");
    const [a, b] = r.interrupts;
    const partial = await graph.resume({ [a!.id]: "A" }, { config });
    expect(partial.status).toBe("interrupted");
    if (partial.status !== "interrupted") return;
    expect(partial.interrupts.map((i) => i.id)).toEqual([b!.id]);
    // Now a scalar is fine: exactly one is pending.
    const done = await graph.resume("B", { config });
    expect(done.state.answers).toEqual(["a:A", "b:B", "quiet"]);
  });

  it("does not re-run siblings that finished in the interrupted step", async () => {
    const counter = { calls: 0 };
    const graph = parallelQuestions(counter);
    const config = thread();
    const r = await graph.invoke({ answers: [] }, { config });
    if (r.status !== "interrupted") throw new Error("expected a pause");
    await graph.resume({ [r.interrupts[0]!.id]: "A" }, { config });
    await graph.resume("B", { config });
    expect(counter.calls).toBe(1);
    const snapshot = await graph.getState(config);
    expect(snapshot.values.answers).toEqual(["a:A", "b:B", "quiet"]);
  });

  it("rejects an unknown interrupt id", async () => {
    const graph = parallelQuestions({ calls: 0 });
    const config = thread();
    await graph.invoke({ answers: [] }, { config });
    await expect(graph.resume({ "0123456789abcdef01234567": "?" }, { config })).rejects.toThrow(
      /Unknown interrupt id 0123456789abcdef01234567/,
    );
  });
});

describe("invoke(null) on a paused thread", () => {
  it("re-runs the paused tasks and reports the same interrupt again, as LangGraph.js does", async () => {
    let runs = 0;
    const graph = new Graph({ name: "Rerun" })
      .addNode("ask", () => {
        runs++;
        return { answer: interrupt("name?") };
      })
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    const first = await graph.invoke({}, { config });
    const again = await graph.invoke(null, { config });
    expect(again.status).toBe("interrupted");
    expect(first.status === "interrupted" && again.status === "interrupted").toBe(true);
    if (first.status !== "interrupted" || again.status !== "interrupted") return;
    expect(again.interrupt.id).toBe(first.interrupt.id);
    expect(runs).toBe(2);
    expect(await graph.resume("Ada", { config })).toEqual({
      status: "done",
      state: { answer: "Ada" },
    });
  });

  it("keeps siblings that finished and answered interrupts: only the waiting task runs again", async () => {
    const counter = { calls: 0 };
    const graph = new Graph({ name: "RerunSiblings" })
      .addReducer("answers", append)
      .addNode("left", () => ({ answers: [`a:${interrupt("question_a")}`] }))
      .addNode("quiet", () => {
        counter.calls++;
        return { answers: ["quiet"] };
      })
      .addEdge(START, "left")
      .addEdge(START, "quiet")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    await graph.invoke({ answers: [] }, { config });
    expect((await graph.invoke(null, { config })).status).toBe("interrupted");
    expect(counter.calls).toBe(1);
    expect((await graph.resume("A", { config })).state.answers).toEqual(["a:A", "quiet"]);
  });
});

describe("interrupt ids", () => {
  it("are unique across threads and checkpoints, and stable while a node replays", async () => {
    const graph = new Graph({ name: "Ids" })
      .addNode("ask", () => ({ a: interrupt("first?"), b: interrupt("second?") }))
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const one = thread();
    const two = thread();
    const r1 = await graph.invoke({}, { config: one });
    const r2 = await graph.invoke({}, { config: two });
    if (r1.status !== "interrupted" || r2.status !== "interrupted") throw new Error("paused");
    // Same graph, node, step and task: different threads, different ids.
    expect(r1.interrupt.taskId).toBe(r2.interrupt.taskId);
    expect(r1.interrupt.id).not.toBe(r2.interrupt.id);
    // The same run again on the same thread (new checkpoints): a new id.
    const r3 = await graph.invoke({}, { config: one });
    if (r3.status !== "interrupted") throw new Error("paused");
    expect(r3.interrupt.id).not.toBe(r1.interrupt.id);
    // Replaying the node (re-run by invoke(null), and on resume) keeps the first id.
    const replayed = await graph.invoke(null, { config: one });
    expect(replayed.status === "interrupted" && replayed.interrupt.id).toBe(r3.interrupt.id);
    const next = await graph.resume({ [r3.interrupt.id]: "A" }, { config: one });
    if (next.status !== "interrupted") throw new Error("second interrupt");
    expect(next.interrupts.map((i) => i.id)).not.toContain(r3.interrupt.id);
    expect((await graph.resume("B", { config: one })).state).toEqual({ a: "A", b: "B" });
  });
});

describe("approve or cancel with Command goto", () => {
  it("routes on the human decision", async () => {
    const graph = new Graph()
      .addNode(
        "approval",
        (s) => {
          const ok = interrupt({ question: "Proceed?", details: s.details });
          return new Command({ goto: ok ? "proceed" : "cancel" });
        },
        { ends: ["proceed", "cancel"] },
      )
      .addNode("proceed", () => ({ outcome: "done" }))
      .addNode("cancel", () => ({ outcome: "cancelled" }))
      .addEdge(START, "approval")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const yes = thread();
    await graph.invoke({ details: "deploy" }, { config: yes });
    expect((await graph.resume(true, { config: yes })).state.outcome).toBe("done");
    const no = thread();
    await graph.invoke({ details: "deploy" }, { config: no });
    expect((await graph.resume(false, { config: no })).state.outcome).toBe("cancelled");
  });
});

describe("rules of interrupts", () => {
  it("raises InterruptSwallowedError when node code catches the signal", async () => {
    const graph = new Graph()
      .addNode("risky", () => {
        try {
          interrupt("Approve?");
        } catch {
          return { error: "caught graph control signal" };
        }
        return {};
      })
      .addEdge(START, "risky")
      .compile({ checkpointer: new MemoryCheckpointer() });
    await expect(graph.invoke({}, { config: thread() })).rejects.toBeInstanceOf(
      InterruptSwallowedError,
    );
  });

  it("raises InterruptReplayError when a node reaches its interrupts differently on resume", async () => {
    let question = "first";
    const graph = new Graph()
      .addNode("unstable", () => ({ a: interrupt(question) }))
      .addEdge(START, "unstable")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    await graph.invoke({}, { config });
    question = "second";
    const error = await graph.resume("x", { config }).catch((e) => e);
    expect(error).toBeInstanceOf(InterruptReplayError);
    expect(error.message).toMatch(/different payload/);
    // The thread is still paused on the original interrupt; a stable node resumes fine.
    question = "first";
    expect((await graph.resume("x", { config })).state).toEqual({ a: "x" });
  });

  it("keeps a side effect after the interrupt from running twice", async () => {
    const audit: string[] = [];
    const graph = new Graph()
      .addNode("audit", () => {
        const approved = interrupt("Record this in the audit trail?");
        if (approved) audit.push("event-1");
        return { approved };
      })
      .addEdge(START, "audit")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    await graph.invoke({}, { config });
    await graph.resume(true, { config });
    expect(audit).toEqual(["event-1"]);
  });
});

describe("resume errors leave the thread untouched", () => {
  it("rejects resume with nothing pending", async () => {
    const graph = approvalFlow();
    const config = thread();
    await graph.invoke({ details: "x" }, { config });
    await graph.resume(true, { config });
    await expect(graph.resume(true, { config })).rejects.toThrow(/no pending interrupt/);
  });

  it("rejects a run without thread_id when there is a checkpointer", async () => {
    const graph = approvalFlow();
    await expect(graph.invoke({ details: "x" })).rejects.toBeInstanceOf(InvalidConfigError);
    await expect(graph.resume(true, {})).rejects.toThrow(/thread_id/);
  });

  it("rejects interrupt() in a graph without a checkpointer", async () => {
    const graph = new Graph()
      .addNode("ask", () => ({ a: interrupt("?") }))
      .addEdge(START, "ask")
      .compile();
    await expect(graph.invoke({})).rejects.toThrow(/no checkpointer/);
  });

  it("rejects interrupt() outside a node", () => {
    expect(() => interrupt("?")).toThrow(/outside a running graph node/);
  });

  it("accepts a corrected resume after a rejected one", async () => {
    const graph = approvalFlow();
    const config = thread();
    await graph.invoke({ details: "x" }, { config });
    const before = await graph.getState(config);
    await expect(graph.resume(undefined, { config })).rejects.toBeInstanceOf(InvalidResumeError);
    await expect(graph.resume({ cb: () => 1 }, { config })).rejects.toThrow(
      /resume value for .*\.cb is a function/,
    );
    expect(await graph.getState(config)).toEqual(before);
    expect((await graph.resume("ok", { config })).state.approved).toBe("ok");
  });
});
