import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seed, startTicket } from "../../examples/ops-agent/tickets.js";
import { createOpsAgent } from "../../examples/ops-agent.js";
import { PGliteCheckpointer } from "../../src/checkpoint/index.js";
import { END, Graph, START } from "../../src/index.js";
import { createServer, type StateweaverServer } from "../../src/server/index.js";
import { startReview } from "./review-session.js";

let dir: string;
let store: PGliteCheckpointer;
let server: StateweaverServer;
let url: string;
let sandboxRoot: string;

// A second graph with a static breakpoint, for the "continue" prompt.
const release = () =>
  new Graph({ name: "release" })
    .addNode("build", () => ({ artifact: "app-1.2.tgz" }))
    .addNode("publish", (state) => ({ published: state.artifact }))
    .addEdge(START, "build")
    .addEdge("build", "publish")
    .addEdge("publish", END)
    .compile({ interruptBefore: ["publish"] });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "review-cli-"));
  const ops = createOpsAgent({ dataDir: dir });
  sandboxRoot = ops.sandbox.root;
  store = new PGliteCheckpointer(join(dir, "db"));
  server = createServer({ graphs: { ops: ops.agent, release: release() }, checkpointer: store });
  await seed({ ops: server.context.hosted.get("ops") });
  await server.context.hosted
    .get("release")
    .invoke({}, { config: { configurable: { thread_id: "release-1" } } });
  ({ url } = await server.listen({ port: 0 }));
});
afterAll(async () => {
  await server?.close();
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The number the table gives the row that mentions `text`. */
function rowOf(table: string, text: string): string {
  const line = table.split("\n").find((l) => l.includes(text));
  if (!line) throw new Error(`No row mentions "${text}" in:\n${table}`);
  return line.trim().split(/\s+/)[0]!;
}

describe("stateweaver review --list", () => {
  it("prints every pending review as a table: graph, thread, kind, summary, waiting", async () => {
    const review = startReview(["--list", "--url", url, "--graph", "ops"]);
    expect(await review.exitCode).toBe(0);
    const [header, ...rows] = review.output().trim().split("\n");
    expect(header).toMatch(/^#\s+graph\s+thread\s+kind\s+summary\s+waiting$/);
    expect(rows).toHaveLength(4);
    expect(review.output()).toMatch(/ops\s+\S{8}\s+tool review\s+Clean up temp files: remove_file/);
    expect(review.output()).toMatch(
      /ops\s+\S{8}\s+question\s+Disk almost full: Which folder may I/,
    );
  });
});

describe("deciding at the prompt", () => {
  it("approves a tool review; the run goes on to its end and the list shrinks", async () => {
    const review = startReview(["--url", url, "--graph", "ops", "--reviewer", "dana"]);
    const table = await review.waitFor(/Pick a review by number.*: $/);
    review.type(rowOf(table, "Clean up temp files"));
    const shown = await review.waitFor(/Decide \(a approve, e edit, r reject; b back\): $/);
    expect(shown).toContain("Action 1 of 2: remove_file");
    expect(shown).toContain('"path": "build/bundle.tmp"');
    review.type("a");
    await review.waitFor(/Action 2 of 2[\s\S]*Decide .*: $/);
    review.type("r");
    await review.waitFor(/Why \(sent to the agent; empty for none\): $/);
    review.type("Keep the cache.");
    await review.waitFor(/Send 1 approve, 2 reject\? \[Y\/n\]: $/);
    review.type("");
    const after = await review.waitFor(/Pick a review by number.*: $/);
    expect(after).toMatch(/Decision recorded; the run continues on the server \(run \S+\)/);
    expect(after).toContain("Latest message: Removed build/bundle.tmp. Kept build/cache.tmp");
    expect(after).toContain("3 pending");
    const [thread] = (await store.searchThreads({ metadata: { ticket: "Clean up temp files" } }))
      .threads;
    const view = (await (await fetch(`${url}/inbox/threads/${thread!.threadId}`)).json()) as {
      decisions: Array<{ reviewer: string; answer: unknown }>;
    };
    expect(view.decisions).toEqual([
      expect.objectContaining({
        reviewer: "dana",
        answer: {
          decisions: [{ type: "approve" }, { type: "reject", message: "Keep the cache." }],
        },
      }),
    ]);
    expect(existsSync(join(sandboxRoot, "build/bundle.tmp"))).toBe(false);
    expect(existsSync(join(sandboxRoot, "build/cache.tmp"))).toBe(true);
    expect(await review.end()).toBe(0);
  });

  it("shows the fields of an edit the server refuses, then takes a valid one", {
    timeout: 90_000,
  }, async () => {
    const review = startReview(["--url", url]);
    review.type(rowOf(await review.waitFor(/Pick a review.*: $/), "Monthly report"));
    const shown = await review.waitFor(/Decide .*: $/);
    expect(shown).toContain("edits must match:");
    review.type("e");
    await review.waitFor(/New args as JSON \(empty cancels\): $/);
    review.type('{"query":');
    review.type('  "DELETE FROM orders"}');
    await review.waitFor(/Send 1 edit\? \[Y\/n\]: $/);
    review.type("y");
    const refused = await review.waitFor(/Decide .*: $/);
    expect(refused).toMatch(/The server refused the decision \(\w+\)/);
    expect(refused).toMatch(/\n {2}answer\.decisions\.0\.editedAction\.args\.query: .*pattern/);
    expect(refused).toContain("One SELECT (or WITH) statement: an edit may not change data.");
    review.type("e");
    await review.waitFor(/New args as JSON .*: $/);
    review.type(`{"query": "SELECT count(*)::int AS paid FROM orders WHERE status = 'paid'"}`);
    await review.waitFor(/Send 1 edit\? .*: $/);
    review.type("y");
    // The edited query runs: the first one starts the demo's embedded database, hence the wait.
    const done = await review.waitFor(/Pick a review.*: $/, 60_000);
    expect(done).toContain('Latest message: Report: {"rowCount":1,"rows":[{"paid":5}]}');
    expect(await review.end()).toBe(0);
  });

  it("answers a plain question; the agent asks for the review that follows", async () => {
    const review = startReview(["--url", url]);
    review.type(rowOf(await review.waitFor(/Pick a review.*: $/), "Disk almost full"));
    const asked = await review.waitFor(/Answer as JSON .*: $/);
    expect(asked).toContain('"question": "Which folder may I clear old files from');
    review.type("logs");
    const next = await review.waitFor(/Pick a review.*: $/);
    expect(next).toMatch(/Disk almost full: remove_file\(path: logs\/app\.log\.1\)/);
    expect(await review.end()).toBe(0);
  });

  it("says a review went stale when someone else decided it first, and lists what waits now", async () => {
    const review = startReview(["--url", url]);
    review.type(rowOf(await review.waitFor(/Pick a review.*: $/), "Backup failure"));
    await review.waitFor(/Decide \(a approve, r reject, s respond; b back\): $/);
    // Meanwhile, in the web inbox, someone answers the same review.
    const { items } = (await (await fetch(`${url}/inbox/items`)).json()) as {
      items: Array<{
        threadId: string;
        interruptId: string;
        checkpointId: string;
        summary: string;
      }>;
    };
    const mail = items.find((i) => i.summary.includes("notify_email"))!;
    const other = await fetch(`${url}/inbox/threads/${mail.threadId}/decisions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer none" },
      body: JSON.stringify({
        checkpointId: mail.checkpointId,
        interruptId: mail.interruptId,
        answer: { decisions: [{ type: "respond", message: "I phoned Dana." }] },
        idempotencyKey: "web-1",
      }),
    });
    expect(other.status).toBe(202);
    review.type("s");
    await review.waitFor(/Answer in the tool's place: $/);
    review.type("Dana knows.");
    await review.waitFor(/Send 1 respond\? .*: $/);
    review.type("y");
    const stale = await review.waitFor(/Pick a review.*: $/);
    expect(stale).toMatch(/Not sent: This decision was made on .* but the thread has moved on/);
    expect(stale).toContain("Nothing waits on this thread now.");
    expect(await review.end()).toBe(0);
  });

  it("cuts long args until asked, and records approving them unseen as an override", async () => {
    const long = Array.from({ length: 60 }, (_, i) => `line ${i}: the backup log says disk full`);
    const { threadId } = await startTicket(server.context.hosted.get("ops"), {
      title: "Long report",
      text: `Email the on-call this log:\n${long.join("\n")}`,
    });
    const review = startReview(["--url", url, "--graph", "ops"]);
    review.type(rowOf(await review.waitFor(/Pick a review.*: $/), "Long report"));
    const cut = await review.waitFor(
      /Decide \(a approve, r reject, s respond, v view all args; b back\): $/,
    );
    expect(cut).toMatch(/… cut: \d+ characters, \d+ lines in all/);
    expect(cut).not.toContain("line 59");
    review.type("v");
    expect(await review.waitFor(/Decide \(a approve, r reject, s respond; b back\): $/)).toContain(
      "line 59",
    );
    review.type("b");
    review.type(rowOf(await review.waitFor(/Pick a review.*: $/), "Long report"));
    await review.waitFor(/v view all args; b back\): $/);
    review.type("a");
    await review.waitFor(/You have not seen all of these args\. Approve anyway .*\? \[y\/N\]: $/);
    review.type("y");
    await review.waitFor(/Send 1 approve\? .*: $/);
    review.type("y");
    await review.waitFor(/Pick a review.*: $/);
    const view = (await (await fetch(`${url}/inbox/threads/${threadId}`)).json()) as {
      decisions: Array<{ unexpandedApproveOverride?: boolean }>;
    };
    expect(view.decisions).toEqual([expect.objectContaining({ unexpandedApproveOverride: true })]);
    expect(await review.end()).toBe(0);
  });

  it("continues a run paused at a breakpoint", async () => {
    const review = startReview(["--url", url, "--graph", "release"]);
    const table = await review.waitFor(/Pick a review.*: $/);
    expect(table).toMatch(/1 pending at .* \(graph release\)/);
    review.type(rowOf(table, "breakpoint"));
    expect(await review.waitFor(/Continue the run\? \[y\/N\]: $/)).toContain(
      'The run is paused at a breakpoint on node "publish".',
    );
    review.type("y");
    const after = await review.waitFor(/Pick a review.*: $|r to refresh, q to quit: $/);
    expect(after).toContain("Nothing waits for review.");
    const state = await server.context.hosted
      .get("release")
      .getState({ configurable: { thread_id: "release-1" } });
    expect(state.values).toMatchObject({ published: "app-1.2.tgz" });
    expect(await review.end()).toBe(0);
  });

  it("prints what a model wrote with its control characters escaped", async () => {
    await startTicket(server.context.hosted.get("ops"), {
      title: "\u001b[2J\u001b]0;pwned\u0007",
      text: "Email the on-call: \u001b[31mURGENT\u001b[0m \u202eevil\r",
    });
    const review = startReview(["--url", url]);
    const table = await review.waitFor(/Pick a review.*: $/);
    review.type(rowOf(table, "\\x1b[2J"));
    const shown = await review.waitFor(/Decide .*: $/);
    const printed = review.output();
    for (const raw of ["\u001b", "\u0007", "\r", "\u202e"]) expect(printed).not.toContain(raw);
    expect(shown).toContain("\\x1b[31mURGENT\\x1b[0m \\u202eevil");
    expect(await review.end()).toBe(0);
  });
});

describe("when the server cannot be used", () => {
  it("says how to start it when nothing listens at --url, and exits 1", async () => {
    const closed = createServer({
      graphs: { ops: createOpsAgent({ dataDir: dir }).agent },
      checkpointer: store,
    });
    const { url: gone } = await closed.listen({ port: 0 });
    await closed.close();
    const review = startReview(["--list", "--url", gone]);
    expect(await review.exitCode).toBe(1);
    expect(review.output()).toContain(
      `Cannot reach the stateweaver server at ${gone} (ECONNREFUSED). Start it with \`npx stateweaver serve\``,
    );
  });

  it("sends STATEWEAVER_TOKEN as a bearer token, and explains a refused one", async () => {
    const guarded = createServer({
      graphs: { ops: createOpsAgent({ dataDir: dir }).agent },
      checkpointer: store,
      token: "s3cret",
    });
    const { url: guardedUrl } = await guarded.listen({ port: 0 });
    try {
      const refused = startReview(["--list", "--url", guardedUrl], { STATEWEAVER_TOKEN: "wrong" });
      expect(await refused.exitCode).toBe(1);
      expect(refused.output()).toContain("Set STATEWEAVER_TOKEN to the server's token.");
      const allowed = startReview(["--list", "--url", guardedUrl], { STATEWEAVER_TOKEN: "s3cret" });
      expect(await allowed.exitCode).toBe(0);
      expect(allowed.output()).toMatch(/tool review/);
    } finally {
      await guarded.close();
    }
  });

  it("refuses an unknown option with the usage, exit 2", async () => {
    const review = startReview(["--colour"]);
    expect(await review.exitCode).toBe(2);
    expect(review.output()).toMatch(/Unknown option "--colour"\.\nUsage: stateweaver review/);
  });
});

describe("after a server restart", () => {
  it("lists and decides the reviews that paused before it", async () => {
    await server.close();
    await store.close();
    store = new PGliteCheckpointer(join(dir, "db"));
    server = createServer({
      graphs: { ops: createOpsAgent({ dataDir: dir }).agent, release: release() },
      checkpointer: store,
    });
    ({ url } = await server.listen({ port: 0 }));

    const review = startReview(["--url", url]);
    const table = await review.waitFor(/Pick a review.*: $/);
    review.type(rowOf(table, "Disk almost full: remove_file"));
    await review.waitFor(/Action 1 of 2[\s\S]*Decide .*: $/);
    review.type("a");
    await review.waitFor(/Action 2 of 2[\s\S]*Decide .*: $/);
    review.type("e");
    await review.waitFor(/New args as JSON .*: $/);
    review.type('{"path": "logs/app.log.1"}');
    await review.waitFor(/Send 1 approve, 2 edit\? .*: $/);
    review.type("y");
    const after = await review.waitFor(/Pick a review.*: $/);
    expect(after).toMatch(
      /Latest message: Removed logs\/app\.log\.1\. Kept logs\/app\.log\.1: not done/,
    );
    expect(existsSync(join(sandboxRoot, "logs/app.log.2"))).toBe(true);
    expect(await review.end()).toBe(0);
  });
});
