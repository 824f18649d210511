import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Checkpointer,
  MemoryCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import { createServer, type StateweaverServer } from "../../src/server/index.js";
import { auth, dbAgent, ran } from "./fixtures/review-rights.js";
import { tempDataDir } from "./fixtures/server.js";

// Who may decide a review, and two-person approval, through the HTTP API with a custom
// auth handler (LangGraph's own Auth class) and the real SDK client.

async function serve(
  options: { auth?: boolean; deadline?: number; checkpointer?: Checkpointer } = {},
) {
  const server: StateweaverServer = createServer({
    graphs: { db: dbAgent(options.deadline) },
    checkpointer: options.checkpointer ?? new MemoryCheckpointer(),
    ...(options.auth !== false && { auth }),
  });
  const { url } = await server.listen({ port: 0 });
  const as = (who: string) => async (path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: {
        accept: "application/json",
        "content-type": "application/json",
        authorization: `Bearer token-${who}`,
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  return { server, url, as };
}

type Served = Awaited<ReturnType<typeof serve>>;
let keys = 0;

async function pausedThread(s: Served, text: string) {
  const api = s.as("dana");
  const { body } = await api("/inbox/threads", {
    graphId: "db",
    input: { messages: [{ type: "human", content: text }] },
  });
  await api(`/threads/${body.threadId}/runs/${body.runId}/join`);
  const page = await api(`/inbox/threads/${body.threadId}`);
  return { threadId: body.threadId as string, item: page.body.pending[0] };
}

const decide = (s: Served, who: string, threadId: string, item: any, decision: unknown) =>
  s.as(who)(`/inbox/threads/${threadId}/decisions`, {
    checkpointId: item.checkpointId,
    interruptId: item.interruptId,
    answer: { decisions: [decision] },
    reviewer: "dana",
    idempotencyKey: `k${++keys}`,
  });

async function settled(s: Served, threadId: string, runId: string) {
  await s.as("dana")(`/threads/${threadId}/runs/${runId}/join`);
  return (await s.as("dana")(`/inbox/threads/${threadId}`)).body;
}

describe("rights per tool, through the auth handler's users", () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve();
  });
  afterAll(() => s.server.close());

  it("refuses an approval to someone without the permission with 403 and changes nothing", async () => {
    const { threadId, item } = await pausedThread(s, "sql DROP TABLE t1");
    const refused = await decide(s, "olga", threadId, item, { type: "approve" });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("NOT_ALLOWED_TO_DECIDE");
    expect(refused.body.error.message).toMatch(/Only holders of the "dba" permission may approve/);
    expect(refused.body.error.fields[0].path).toBe("answer.decisions.0.type");
    const after = (await s.as("olga")(`/inbox/threads/${threadId}`)).body;
    expect(after.thread.status).toBe("interrupted");
    expect(after.checkpointId).toBe(item.checkpointId);
    expect(after.decisions).toEqual([]);
    // The page tells olga what she may not do, and why; dana may do everything.
    expect(Object.keys(after.pending[0].refused[0])).toEqual(["approve", "edit"]);
    const danas = (await s.as("dana")(`/inbox/threads/${threadId}`)).body;
    expect(danas.pending[0].refused).toEqual([{}]);
    expect(ran).not.toContain("sql:DROP TABLE t1");
  });

  it("lets the dba approve, recording the authenticated identity, not the typed name", async () => {
    const { threadId, item } = await pausedThread(s, "sql SELECT 1");
    const res = await s.as("dana")(`/inbox/threads/${threadId}/decisions`, {
      checkpointId: item.checkpointId,
      interruptId: item.interruptId,
      answer: { decisions: [{ type: "approve" }] },
      reviewer: "somebody else",
      idempotencyKey: `k${++keys}`,
    });
    expect(res.status).toBe(202);
    const page = await settled(s, threadId, res.body.runId);
    expect(page.decisions[0]).toMatchObject({ reviewer: "dana", authenticatedBy: "auth_handler" });
    expect(ran).toContain("sql:SELECT 1");
  });

  it("lets people the reject rule names reject what they may not approve", async () => {
    const { threadId, item } = await pausedThread(s, "sql DELETE FROM t2");
    const res = await decide(s, "olga", threadId, item, { type: "reject", message: "No." });
    expect(res.status).toBe(202);
    const page = await settled(s, threadId, res.body.runId);
    expect(page.decisions[0].reviewer).toBe("olga");
    expect(ran).not.toContain("sql:DELETE FROM t2");
  });

  it("refuses unknown callers with the handler's 401", async () => {
    const res = await s.as("mallory")("/inbox/items");
    expect(res.status).toBe(401);
    expect(res.body.error.message).toBe("Unknown token.");
  });
});

describe("two-person approval", () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve();
  });
  afterAll(() => s.server.close());

  it("runs the call only after two different people approved the same args", async () => {
    const { threadId, item } = await pausedThread(s, "remove one.txt");
    expect(item.approvals).toEqual({ required: 2, approvedBy: [], answer: null });
    const first = await decide(s, "ana", threadId, item, { type: "approve" });
    expect(first.status).toBe(202);
    expect(first.body.runId).toBeNull();
    expect(first.body.approval.approvedBy.map((a: any) => a.identity)).toEqual(["ana"]);
    const again = await decide(s, "ana", threadId, item, { type: "approve" });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("ALREADY_APPROVED");
    const page = (await s.as("bo")(`/inbox/threads/${threadId}`)).body;
    expect(page.thread.status).toBe("interrupted");
    expect(page.pending[0].approvals.approvedBy).toEqual([
      expect.objectContaining({ identity: "ana", displayName: "Ana" }),
    ]);
    expect(ran).not.toContain("rm:one.txt");
    const second = await decide(s, "bo", threadId, item, { type: "approve" });
    expect(second.status).toBe(202);
    const done = await settled(s, threadId, second.body.runId);
    expect(ran).toContain("rm:one.txt");
    expect(done.decisions[0].reviewer).toBe("bo");
    expect(done.decisions[0].approvedBy.map((a: any) => a.identity)).toEqual(["ana", "bo"]);
    expect(done.thread.metadata["stateweaver:approvals"]).toEqual({});
  });

  it("starts the count again when the second person edits, and runs the edited args once approved", async () => {
    const { threadId, item } = await pausedThread(s, "remove two.txt");
    await decide(s, "ana", threadId, item, { type: "approve" });
    const edit = {
      type: "edit",
      editedAction: { name: "remove_file", args: { path: "two-old.txt" } },
    };
    const edited = await decide(s, "bo", threadId, item, edit);
    expect(edited.status).toBe(202);
    expect(edited.body.runId).toBeNull();
    expect(edited.body.approval.approvedBy.map((a: any) => a.identity)).toEqual(["bo"]);
    const confirmed = await decide(s, "ana", threadId, item, edit);
    expect(confirmed.status).toBe(202);
    await settled(s, threadId, confirmed.body.runId);
    expect(ran).toContain("rm:two-old.txt");
    expect(ran).not.toContain("rm:two.txt");
  });

  it("lets one person reject without a second", async () => {
    const { threadId, item } = await pausedThread(s, "remove three.txt");
    const res = await decide(s, "ana", threadId, item, { type: "reject" });
    expect(res.body.runId).toEqual(expect.any(String));
    await settled(s, threadId, res.body.runId);
    expect(ran).not.toContain("rm:three.txt");
  });

  it("refuses a run's resume through the SDK client that skips the rights or the second person", async () => {
    const client = new Client({
      apiUrl: s.url,
      defaultHeaders: { authorization: "Bearer token-olga" },
    });
    const sql = await pausedThread(s, "sql TRUNCATE t3");
    await expect(
      client.runs.wait(sql.threadId, "db", {
        command: { resume: { decisions: [{ type: "approve" }] } },
      }),
    ).rejects.toThrow(/403|dba/);
    const rm = await pausedThread(s, "remove four.txt");
    await expect(
      client.runs.wait(rm.threadId, "db", {
        command: { resume: { decisions: [{ type: "approve" }] } },
      }),
    ).rejects.toThrow(/403|different people/);
    for (const { threadId, item } of [sql, rm]) {
      const state = await client.threads.get(threadId);
      expect(state.status).toBe("interrupted");
      expect((await s.as("ana")(`/inbox/threads/${threadId}`)).body.checkpointId).toBe(
        item.checkpointId,
      );
    }
    expect(ran).not.toContain("sql:TRUNCATE t3");
    expect(ran).not.toContain("rm:four.txt");
  });
});

describe("without an auth file", () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve({ auth: false });
  });
  afterAll(() => s.server.close());

  it("gives typed names no rights and does not count them as approvers, but lets them take unrestricted decisions", async () => {
    const sql = await pausedThread(s, "sql SELECT 2");
    const refused = await decide(s, "dana", sql.threadId, sql.item, { type: "approve" });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/nobody verified/);
    const rm = await pausedThread(s, "remove five.txt");
    const unverified = await decide(s, "dana", rm.threadId, rm.item, { type: "approve" });
    expect(unverified.status).toBe(403);
    expect(unverified.body.error.code).toBe("APPROVER_NOT_VERIFIED");
    const rejected = await decide(s, "dana", rm.threadId, rm.item, { type: "reject" });
    expect(rejected.status).toBe(202);
    expect(rejected.body.decision).toMatchObject({
      reviewer: "dana",
      authenticatedBy: "shared_token",
    });
  });
});

describe("deadlines keep working on reviews with rights", () => {
  it("rejects on the deadline, recorded as the system's decision", async () => {
    const s = await serve({ deadline: 200 });
    try {
      const { threadId } = await pausedThread(s, "sql DROP TABLE t9");
      let page: any;
      for (let i = 0; i < 100; i++) {
        page = (await s.as("ana")(`/inbox/threads/${threadId}`)).body;
        if (page.thread.status === "idle") break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(page.thread.status).toBe("idle");
      expect(page.decisions[0]).toMatchObject({ reviewer: "deadline" });
      expect(page.decisions[0].authenticatedBy).toBeUndefined();
      expect(ran).not.toContain("sql:DROP TABLE t9");
    } finally {
      await s.server.close();
    }
  });
});

// The approvals in progress live in the thread's metadata: the same on every store.
const pgUrl = process.env.STATEWEAVER_PG_URL;
describe.each([
  ["PGlite", false],
  ["PostgreSQL", true],
] as const)("two-person approval on %s", (_name, postgres) => {
  it.skipIf(postgres && !pgUrl)(
    "keeps the first approval until a second person approves",
    async () => {
      const tablePrefix = `sw_rights_${randomUUID().slice(0, 8)}_`;
      const dir = postgres ? undefined : await tempDataDir();
      const checkpointer = postgres
        ? new PostgresCheckpointer({ connectionString: pgUrl!, tablePrefix })
        : dir!.open();
      const s = await serve({ checkpointer });
      try {
        const { threadId, item } = await pausedThread(s, `remove ${tablePrefix}.txt`);
        const first = await decide(s, "ana", threadId, item, { type: "approve" });
        expect(first.body.runId).toBeNull();
        const page = (await s.as("bo")(`/inbox/threads/${threadId}`)).body;
        expect(page.pending[0].approvals.approvedBy.map((a: any) => a.identity)).toEqual(["ana"]);
        const second = await decide(s, "bo", threadId, item, { type: "approve" });
        const done = await settled(s, threadId, second.body.runId);
        expect(done.decisions[0].approvedBy.map((a: any) => a.identity)).toEqual(["ana", "bo"]);
        expect(ran).toContain(`rm:${tablePrefix}.txt`);
      } finally {
        await s.server.close();
        await checkpointer.close?.();
        await dir?.dispose();
        if (postgres) {
          const pool = new pg.Pool({ connectionString: pgUrl });
          const { rows } = await pool.query(
            "select tablename from pg_tables where tablename like $1",
            [`${tablePrefix}%`],
          );
          for (const { tablename } of rows)
            await pool.query(`drop table if exists "${tablename}" cascade`);
          await pool.query(`drop function if exists ${tablePrefix}notify_thread_change()`);
          await pool.end();
        }
      }
    },
    // A fresh PGlite directory migrates the checkpoint, store and audit tables first.
    60_000,
  );
});
