/**
 * A project can hold two copies of stateweaver at once: the server's and the one a user's
 * graph module imports. Values made by one copy must be recognised by the other. The sources
 * imported again after the module registry is emptied are that second copy, with classes of
 * their own.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import * as errors from "../../src/errors/index.js";
import {
  Command,
  END,
  Graph,
  InvalidResumeError,
  isCommand,
  isGraphInterrupt,
  isSend,
  isStateweaverError,
  nullResume,
  Send,
  START,
  StateweaverError,
  ThreadNotFoundError,
} from "../../src/index.js";
import { GraphInterrupt } from "../../src/runtime/interrupt.js";

// Emptying the module registry makes the imports below evaluate every source file anew
// (the errors' files, the brands, …): a whole second copy, as a second install would be.
vi.resetModules();
const other = {
  command: await import("../../src/control/command.js"),
  send: await import("../../src/control/send.js"),
  nullResume: await import("../../src/control/null-resume.js"),
  errors: await import("../../src/errors/index.js"),
  interrupt: await import("../../src/runtime/interrupt.js"),
  graph: await import("../../src/graph/graph.js"),
};

let threads = 0;
const thread = () => ({ configurable: { thread_id: `copies-${++threads}` } });

describe("values made by another copy of stateweaver", () => {
  it("are second copies indeed: the classes differ", () => {
    expect(other.command.Command).not.toBe(Command);
    expect(other.send.Send).not.toBe(Send);
    expect(other.errors.StateweaverError).not.toBe(StateweaverError);
    expect(other.interrupt.GraphInterrupt).not.toBe(GraphInterrupt);
  });

  it("a Command and a Send from the other copy pass instanceof and the guards, both ways", () => {
    const command = new other.command.Command({ resume: true });
    expect(command instanceof Command).toBe(true);
    expect(isCommand(command)).toBe(true);
    expect(new Command({ goto: "a" }) instanceof other.command.Command).toBe(true);
    expect(other.command.isCommand(new Command({}))).toBe(true);
    const send = new other.send.Send("write", { topic: "x" });
    expect(send instanceof Send).toBe(true);
    expect(isSend(send)).toBe(true);
    expect(send instanceof Command).toBe(false);
    expect(isCommand(send)).toBe(false);
    expect(isSend({ node: "write", arg: 1 })).toBe(false);
    expect({ resume: true, hasResume: true } instanceof Command).toBe(false);
    expect(other.nullResume.nullResume).toBe(nullResume);
  });

  it("every error class of the other copy is recognised by its own class here, and only by it and its bases", () => {
    const classes = Object.entries(errors).filter(
      ([, value]) =>
        typeof value === "function" &&
        (value === StateweaverError || value.prototype instanceof StateweaverError),
    ) as Array<[string, typeof StateweaverError]>;
    expect(classes.length).toBeGreaterThan(30);
    for (const [name, mine] of classes) {
      const theirs = (other.errors as unknown as Record<string, typeof StateweaverError>)[name];
      expect(theirs, name).toBeDefined();
      expect(theirs).not.toBe(mine);
      const made = Object.create(theirs?.prototype ?? null) as object;
      expect(made instanceof mine, `${name} instanceof ${name}`).toBe(true);
      expect(made instanceof StateweaverError, `${name} instanceof StateweaverError`).toBe(true);
      expect(isStateweaverError(made)).toBe(true);
      for (const [otherName, otherClass] of classes) {
        const related = mine === otherClass || mine.prototype instanceof otherClass;
        expect(made instanceof otherClass, `${name} instanceof ${otherName}`).toBe(related);
      }
    }
    const refused = new other.errors.InvalidResumeError("No.");
    expect(refused instanceof InvalidResumeError).toBe(true);
    expect(refused instanceof ThreadNotFoundError).toBe(false);
    expect(refused instanceof Error).toBe(true);
    expect(isStateweaverError(new Error("plain"))).toBe(false);
  });

  it("the check above sees every error class src/errors declares (the index exports them all)", async () => {
    const folder = new URL("../../src/errors/", import.meta.url).pathname;
    const declared: string[] = [];
    for (const file of await readdir(folder)) {
      const text = await readFile(join(folder, file), "utf8");
      for (const [, name] of text.matchAll(/^export class (\w+)/gm)) declared.push(name!);
    }
    expect(declared.length).toBeGreaterThan(30);
    expect(declared.filter((name) => !(name in errors))).toEqual([]);
  });

  it("a user's own subclass of StateweaverError keeps ordinary instanceof", () => {
    class QuotaError extends StateweaverError {
      constructor() {
        super("QUOTA", "Over quota: wait a minute.");
      }
    }
    expect(new QuotaError() instanceof QuotaError).toBe(true);
    expect(new QuotaError() instanceof StateweaverError).toBe(true);
    expect(new StateweaverError("X", "x.") instanceof QuotaError).toBe(false);
    expect(new InvalidResumeError("x.") instanceof QuotaError).toBe(false);
  });

  it("a graph resumes with the other copy's Command, and its interrupt() pauses this copy's run", async () => {
    const graph = new Graph<{ asked?: string; answer?: unknown; after?: string }>()
      .addNode("ask", () => ({ answer: other.interrupt.interrupt({ question: "Ship it?" }) }))
      .addNode("route", () => new other.command.Command({ update: { after: "route" }, goto: END }))
      .addEdge(START, "ask")
      .addEdge("ask", "route")
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    const paused = await graph.invoke({ asked: "yes" }, { config });
    expect(paused.status).toBe("interrupted");
    const done = await graph.invoke(new other.command.Command({ resume: "shipped" }), { config });
    expect(done).toEqual({
      status: "done",
      state: { asked: "yes", answer: "shipped", after: "route" },
    });
  });

  it("a router's Sends from the other copy fan out", async () => {
    const graph = new Graph<{ topics: string[]; written?: string[] }>()
      .addReducer("written", (a: string[] = [], b: string[]) => [...a, ...b])
      .addNode("plan", () => ({}))
      .addNode("write", (arg: { topic: string }) => ({ written: [arg.topic] }))
      .addEdge(START, "plan")
      .addConditionalEdges("plan", (s) =>
        s.topics.map((t) => new other.send.Send("write", { topic: t })),
      )
      .addEdge("write", END)
      .compile();
    const done = await graph.invoke({ topics: ["a", "b"] });
    expect(done.status).toBe("done");
    expect([...((done.state as { written: string[] }).written ?? [])].sort()).toEqual(["a", "b"]);
  });

  it("a graph compiled by the other copy runs as a subgraph node, pause and resume included", async () => {
    const child = new other.graph.Graph<{ draft?: string; approved?: unknown }>({ name: "review" })
      .addNode("ask", (s) => ({ approved: other.interrupt.interrupt({ draft: s.draft }) }))
      .addEdge(START, "ask")
      .addEdge("ask", END)
      .compile();
    const parent = new Graph<{ draft?: string; approved?: unknown }>()
      .addNode("write", () => ({ draft: "v1" }))
      .addNode("review", child)
      .addEdge(START, "write")
      .addEdge("write", "review")
      .addEdge("review", END)
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = thread();
    const paused = await parent.invoke({}, { config });
    expect(paused.status).toBe("interrupted");
    const done = await parent.invoke(new Command({ resume: "ok" }), { config });
    expect(done).toEqual({ status: "done", state: { draft: "v1", approved: "ok" } });
  });

  it("the other copy's interrupt signal is recognised as one", () => {
    const signal = Object.create(other.interrupt.GraphInterrupt.prototype) as object;
    expect(isGraphInterrupt(signal)).toBe(true);
    expect(signal instanceof GraphInterrupt).toBe(true);
    expect(isStateweaverError(signal)).toBe(false);
  });
});
