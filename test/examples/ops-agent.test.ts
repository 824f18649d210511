import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OutsideSandboxError, Sandbox } from "../../examples/ops-agent/sandbox.js";
import { planReply } from "../../examples/ops-agent/scripted-model.js";
import { SqlDatabase } from "../../examples/ops-agent/sql-database.js";
import { seed, startTicket } from "../../examples/ops-agent/tickets.js";
import { walkthrough } from "../../examples/ops-agent/walkthrough.js";
import { chooseModel, createOpsAgent } from "../../examples/ops-agent.js";
import { HITL } from "../../src/agent/index.js";
import { MemoryCheckpointer, PGliteCheckpointer } from "../../src/checkpoint/index.js";
import { InvalidResumeError } from "../../src/errors/index.js";
import { message, runToolCall } from "../../src/models/index.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "ops-agent-test-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const configOf = (threadId: string) => ({ configurable: { thread_id: threadId } });

describe("the seeded tickets", () => {
  it("each wait for a person, under the review policy of the tool they call", async () => {
    const { agent } = createOpsAgent({
      dataDir: join(dir, "seeded"),
      checkpointer: new MemoryCheckpointer(),
    });
    const started = await seed({ ops: agent });
    const pending = started.map(({ result }) => {
      if (result.status !== "interrupted") throw new Error("expected a pause");
      return result.interrupt;
    });
    const [cleanup, report, email, question] = pending;

    const files = HITL.fromInterrupt(cleanup!);
    expect(files.actions.map((a) => [a.name, a.args.path, a.allowedDecisions])).toEqual([
      ["remove_file", "build/bundle.tmp", ["approve", "edit", "reject"]],
      ["remove_file", "build/cache.tmp", ["approve", "edit", "reject"]],
    ]);
    const sql = HITL.fromInterrupt(report!).actions[0]!;
    expect(sql.name).toBe("execute_sql");
    expect(sql.argsSchema).toMatchObject({ properties: { query: { type: "string" } } });
    const mail = HITL.fromInterrupt(email!).actions[0]!;
    expect([mail.name, mail.args.to, mail.allowedDecisions]).toEqual([
      "notify_email",
      "dana.oncall@example.com",
      ["approve", "reject", "respond"],
    ]);
    expect(HITL.isReview(question!)).toBe(false);
    expect(question!.value).toEqual({ question: expect.stringMatching(/Which folder/) });
  });

  it("are started once: a store that has threads is not seeded again", async () => {
    const { agent } = createOpsAgent({
      dataDir: join(dir, "twice"),
      checkpointer: new MemoryCheckpointer(),
    });
    expect(await seed({ ops: agent })).toHaveLength(4);
    expect(await seed({ ops: agent })).toEqual([]);
    expect((await agent.threads.search()).threads).toHaveLength(4);
  });
});

describe("the ops agent", () => {
  it("refuses an edited query that is not one SELECT and leaves the review pending", async () => {
    const { agent } = createOpsAgent({
      dataDir: join(dir, "sql"),
      checkpointer: new MemoryCheckpointer(),
    });
    const { threadId } = await startTicket(agent, { title: "r", text: "Run the report SQL" });
    const before = await agent.getState(configOf(threadId));
    const edit = (query: string) =>
      agent.resumeReview(
        [HITL.decision("edit", { editedAction: { name: "execute_sql", args: { query } } })],
        { config: configOf(threadId) },
      );
    await expect(edit("DELETE FROM orders")).rejects.toThrow(InvalidResumeError);
    await expect(edit("SELECT 1; DROP TABLE orders")).rejects.toThrow(/one SELECT/);
    const after = await agent.getState(configOf(threadId));
    expect(after.interrupts.map((i) => i.id)).toEqual(before.interrupts.map((i) => i.id));
    expect(after.values).toEqual(before.values);
  });

  it("sends an approved email to the sandbox outbox", async () => {
    const { agent, sandbox } = createOpsAgent({
      dataDir: join(dir, "mail"),
      checkpointer: new MemoryCheckpointer(),
    });
    const { threadId } = await startTicket(agent, { title: "m", text: "Email the on-call" });
    const done = await agent.resumeReview([HITL.decision("approve")], {
      config: configOf(threadId),
    });
    expect(done.status).toBe("done");
    const [mail] = await sandbox.list("outbox");
    expect(await sandbox.read(mail!)).toMatch(
      /^To: dana\.oncall@example\.com\nSubject: Ops ticket/,
    );
  });

  it("continues a paused ticket after a restart, from the same store", async () => {
    const dataDir = join(dir, "restart");
    const firstStore = new PGliteCheckpointer(join(dataDir, "db"));
    const first = createOpsAgent({ dataDir, checkpointer: firstStore });
    const { threadId } = await startTicket(first.agent, {
      title: "t",
      text: "Clean up temp files",
    });
    await firstStore.close();

    const secondStore = new PGliteCheckpointer(join(dataDir, "db"));
    const second = createOpsAgent({ dataDir, checkpointer: secondStore });
    const done = await second.agent.resumeReview(
      [HITL.decision("approve"), HITL.decision("approve")],
      { config: configOf(threadId) },
    );
    expect(done.status).toBe("done");
    expect(await second.sandbox.list("build")).toEqual(["build/app.js"]);
    await secondStore.close();
  });

  it("decides every demo ticket in the offline walkthrough", { timeout: 90_000 }, async () => {
    await walkthrough();
  });
});

describe("the sandbox", () => {
  it("refuses paths that leave it, through .., absolute paths or symlinks", async () => {
    const sandbox = new Sandbox(join(dir, "box"));
    await sandbox.ready();
    await writeFile(join(dir, "secret.txt"), "not for the agent");
    await mkdir(join(dir, "elsewhere"), { recursive: true });
    await symlink(join(dir, "elsewhere"), join(sandbox.root, "link"));
    for (const path of [
      "../secret.txt",
      "build/../../secret.txt",
      join(dir, "secret.txt"),
      "link/x",
    ]) {
      await expect(sandbox.write(path, "x"), path).rejects.toThrow(OutsideSandboxError);
    }
    await expect(sandbox.read("../secret.txt")).rejects.toThrow(/outside the sandbox/);
    expect(await readFile(join(dir, "secret.txt"), "utf8")).toBe("not for the agent");
  });

  it("starts with the demo's files and keeps the agent's changes", async () => {
    const sandbox = new Sandbox(join(dir, "kept"));
    expect(await sandbox.list(".")).toContain("oncall.txt");
    await sandbox.remove("oncall.txt");
    expect(await new Sandbox(join(dir, "kept")).list(".")).not.toContain("oncall.txt");
  });
});

describe("the orders database", () => {
  it("is made on first use in its directory and keeps its changes across a restart", {
    timeout: 60_000,
  }, async () => {
    const orders = join(dir, "orders-restart", "orders");
    const first = new SqlDatabase(orders);
    expect(await first.query("SELECT count(*)::int AS n FROM orders")).toEqual({
      rowCount: 1,
      rows: [{ n: 7 }],
    });
    await first.query("DELETE FROM orders WHERE status = 'refunded'");
    await first.close();

    const second = new SqlDatabase(orders);
    expect(await second.query("SELECT count(*)::int AS n FROM orders")).toEqual({
      rowCount: 1,
      rows: [{ n: 6 }],
    });
    await second.close();
  });
});

describe("the demo's model", () => {
  it("is scripted offline unless an OpenAI or Anthropic key is set", () => {
    expect(chooseModel({}).provider).toBe("fake");
    expect(chooseModel({ OPENAI_API_KEY: "sk-test" }).provider).toBe("openai");
    expect(chooseModel({ ANTHROPIC_API_KEY: "sk-ant-test" }).provider).toBe("anthropic");
  });

  it("answers an unknown ticket with what it can do, calling no tool", () => {
    const reply = planReply([message.user("Make me a sandwich")]);
    expect(reply).toMatch(/clean up temp files, run the monthly report SQL/);
  });
});

describe("the demo's email", () => {
  it("refuses a subject with a line break, which would add headers to the message", async () => {
    const { agent, sandbox } = createOpsAgent({ dataDir: join(dir, "headers") });
    const notify = agent.tools.find((t) => t.name === "notify_email")!;
    const args = { to: "a@example.com", subject: "Hi\nBcc: all@example.com", body: "x" };
    const reply = await runToolCall(notify, { id: "c1", name: "notify_email", args });
    expect(reply).toMatchObject({
      status: "error",
      content: expect.stringMatching(/subject: A subject is one line/),
    });
    expect(await sandbox.list(".")).not.toContain("outbox/c1.eml");
  });
});
