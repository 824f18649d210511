// Every decision through the server lands in the hash-chained audit log, on every store,
// and only those holding the audit permission may read it over HTTP.
import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuditEntry, type AuditLog, MemoryAuditLog } from "../../src/audit/index.js";
import {
  type Checkpointer,
  MemoryCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import type { SqlCheckpointer } from "../../src/checkpoint/sql/index.js";
import {
  type AuthHandlers,
  createServer,
  type ServerOptions,
  type StateweaverServer,
  webhookOptionsOf,
} from "../../src/server/index.js";
import { startReceiver } from "../runs/fixtures/webhook-receiver.js";
import { dropStoreTables } from "../setup/store-tables.js";
import { auth, dbAgent, ran } from "./fixtures/review-rights.js";
import { tempDataDir } from "./fixtures/server.js";

async function serve(options: Partial<ServerOptions> & { checkpointer?: Checkpointer } = {}) {
  const server: StateweaverServer = createServer({
    graphs: { db: dbAgent() },
    checkpointer: options.checkpointer ?? new MemoryCheckpointer(),
    auth,
    ...options,
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
    const text = await res.text();
    const json = (() => {
      try {
        return JSON.parse(text);
      } catch {
        return undefined;
      }
    })();
    return { status: res.status, body: json, text, type: res.headers.get("content-type") };
  };
  return { server, url, as, audit: server.context.audit };
}
type Served = Awaited<ReturnType<typeof serve>>;

let keys = 0;
async function pausedThread(s: Served, text: string, who = "dana") {
  const api = s.as(who);
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
    reviewer: "somebody-typed",
    idempotencyKey: `audit-k${++keys}`,
  });
const settle = (s: Served, who: string, threadId: string, runId: string) =>
  s.as(who)(`/threads/${threadId}/runs/${runId}/join`);

const dana = { identity: "dana", displayName: "Dana", authenticatedBy: "auth_handler" as const };

const pgUrl = process.env.STATEWEAVER_PG_URL;
const stores: Array<
  [string, boolean, () => Promise<{ checkpointer: Checkpointer; done(): Promise<void> }>]
> = [
  ["memory", true, async () => ({ checkpointer: new MemoryCheckpointer(), done: async () => {} })],
  [
    "PGlite",
    true,
    async () => {
      const dir = await tempDataDir();
      const checkpointer = dir.open();
      return {
        checkpointer,
        done: async () => {
          await checkpointer.close();
          await dir.dispose();
        },
      };
    },
  ],
  [
    "PostgreSQL",
    pgUrl !== undefined,
    async () => {
      const tablePrefix = `sw_audit_http_${randomUUID().slice(0, 8)}_`;
      const checkpointer = new PostgresCheckpointer({ connectionString: pgUrl!, tablePrefix });
      return {
        checkpointer,
        done: async () => {
          await checkpointer.close();
          const pool = new pg.Pool({ connectionString: pgUrl });
          await dropStoreTables(pool, tablePrefix);
          await pool.end();
        },
      };
    },
  ],
];

describe.each(stores)("the audit log on %s", (_name, enabled, open) => {
  let store: Awaited<ReturnType<typeof open>>;
  let s: Served;
  beforeAll(async () => {
    if (!enabled) return;
    store = await open();
    // Dana (a dba) may read the log here, so the test can check it over HTTP too.
    s = await serve({ checkpointer: store.checkpointer, auditPermission: "dba" });
  }, 60_000);
  afterAll(async () => {
    if (!enabled) return;
    await s.server.close();
    await store.done();
  });

  it.skipIf(!enabled)(
    "records a decision from the HTTP endpoint with the authenticated identity, the proposal, the edit's diff and later the tool's result",
    async () => {
      const { threadId, item } = await pausedThread(s, "sql select 1");
      const decided = await decide(s, "dana", threadId, item, {
        type: "edit",
        editedAction: { name: "execute_sql", args: { query: "select 2" } },
      });
      expect(decided.status).toBe(202);
      await settle(s, "dana", threadId, decided.body.runId);
      expect(ran).toContain("sql:select 2");

      const [decision, result] = await s.audit.list({ threadId });
      expect(decision).toMatchObject({
        kind: "decision",
        threadId,
        interruptId: item.interruptId,
        actor: dana,
        data: {
          runId: decided.body.runId,
          checkpointId: item.checkpointId,
          proposed: [{ name: "execute_sql", args: { query: "select 1" } }],
          answer: {
            decisions: [
              { type: "edit", editedAction: { name: "execute_sql", args: { query: "select 2" } } },
            ],
          },
          diff: [{ path: "actions.0.args.query", proposed: "select 1", edited: "select 2" }],
        },
      });
      // The typed name is not who decided: the auth handler's user is.
      expect(JSON.stringify(decision)).not.toContain("somebody-typed");
      expect(result).toMatchObject({
        kind: "tool_result",
        prevHash: decision!.hash,
        data: {
          decisionSeq: decision!.seq,
          runId: decided.body.runId,
          results: [{ name: "execute_sql", content: "ran select 2" }],
        },
      });
    },
  );

  it.skipIf(!enabled)(
    "exports the entries as JSON Lines and verifies the chain over HTTP",
    async () => {
      const exported = await s.as("dana")("/audit/export?since=2000-01-01T00:00:00Z&format=jsonl");
      expect(exported.status).toBe(200);
      expect(exported.type).toMatch(/application\/x-ndjson/);
      const lines = exported.text
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as AuditEntry);
      expect(lines.map((e) => e.seq)).toEqual(lines.map((_, i) => i + 1));
      expect(lines.map((e) => e.kind)).toContain("decision");
      const later = await s.as("dana")("/audit/export?since=2999-01-01T00:00:00Z");
      expect(later.text).toBe("");
      const verified = await s.as("dana")("/audit/verify");
      expect(verified.body).toMatchObject({ ok: true, entries: lines.length });
      expect(verified.body.head.hash).toBe(lines.at(-1)!.hash);
      const bad = await s.as("dana")("/audit/export?since=last-week");
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe("INVALID_AUDIT_REQUEST");
    },
  );

  it.skipIf(!enabled)(
    "shows who decided from the audit log even when the thread's metadata copy is rewritten",
    async () => {
      const { threadId, item } = await pausedThread(s, "sql select 3");
      const decided = await decide(s, "dana", threadId, item, { type: "approve" });
      await settle(s, "dana", threadId, decided.body.runId);
      // Anyone who can write thread metadata can rewrite the display copy…
      const record = (await store.checkpointer.getThread(threadId))!;
      await store.checkpointer.claimThread(threadId, {
        runId: "rewrite",
        expectedLatestId: record.latestCheckpointId,
        ttlMs: 5000,
        metadata: { "stateweaver:decisions": [] },
      });
      await store.checkpointer.releaseThread(threadId, "rewrite");
      expect(
        (await store.checkpointer.getThread(threadId))!.metadata["stateweaver:decisions"],
      ).toEqual([]);
      // …but the inbox reads the record.
      const page = (await s.as("dana")(`/inbox/threads/${threadId}`)).body;
      expect(page.decisions).toHaveLength(1);
      expect(page.decisions[0]).toMatchObject({ reviewer: "dana", interruptId: item.interruptId });
      const review = (await s.as("dana")(`/inbox/reviews/${item.interruptId}`)).body;
      expect(review.decision.runId).toBe(decided.body.runId);
    },
  );

  it.skipIf(!enabled || _name === "memory")(
    "fails verify with expect_head when the entries after the recorded head were cut off",
    async () => {
      const recorded = (await s.as("dana")("/audit/verify")).body.head;
      const { threadId, item } = await pausedThread(s, "sql select 5");
      const decided = await decide(s, "dana", threadId, item, { type: "reject", message: "no" });
      await settle(s, "dana", threadId, decided.body.runId);
      const check = (hash: string) => s.as("dana")(`/audit/verify?expect_head=${hash}`);
      expect((await check(recorded.hash)).body).toMatchObject({ ok: true });
      // Someone with write access removes the decision and everything after it.
      const sql = await (store.checkpointer as SqlCheckpointer).sharedDriver();
      const table = `${(store.checkpointer as SqlCheckpointer).tablePrefix}audit_log`;
      const current = (await s.as("dana")("/audit/verify")).body.head;
      await sql.query(`delete from ${table} where seq > $1`, [recorded.seq]);
      expect((await s.as("dana")("/audit/verify")).body).toMatchObject({ ok: true });
      const cut = (await check(current.hash)).body;
      expect(cut).toMatchObject({
        ok: false,
        head: recorded,
        broken: { seq: recorded.seq + 1, problem: "head_missing" },
      });
      expect(cut.broken.message).toContain("entries after it were cut off");
      const bad = await check("latest");
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe("INVALID_AUDIT_REQUEST");
    },
  );

  it.skipIf(!enabled || _name === "memory")(
    "finds an entry edited in the database, and one deleted, with verify",
    async () => {
      const { threadId, item } = await pausedThread(s, "sql select 4");
      const decided = await decide(s, "dana", threadId, item, { type: "reject", message: "no" });
      await settle(s, "dana", threadId, decided.body.runId);
      const [entry] = await s.audit.list({ threadId, kind: "decision" });
      const sql = await (store.checkpointer as SqlCheckpointer).sharedDriver();
      const table = `${(store.checkpointer as SqlCheckpointer).tablePrefix}audit_log`;
      const before = await sql.query(`select data from ${table} where seq = $1`, [entry!.seq]);
      // Someone turns the reject into an approval after the fact.
      await sql.query(
        `update ${table} set data = replace(data, '"reject"', '"approve"') where seq = $1`,
        [entry!.seq],
      );
      const changed = (await s.as("dana")("/audit/verify")).body;
      expect(changed).toMatchObject({
        ok: false,
        broken: { seq: entry!.seq, problem: "changed" },
        entries: entry!.seq - 1,
      });
      // Put back, the chain is whole again; then the entry goes missing instead.
      await sql.query(`update ${table} set data = $1 where seq = $2`, [
        before.rows[0]!.data,
        entry!.seq,
      ]);
      expect((await s.as("dana")("/audit/verify")).body.ok).toBe(true);
      await sql.query(`delete from ${table} where seq = $1`, [entry!.seq]);
      const missing = (await s.as("dana")("/audit/verify")).body;
      expect(missing.broken).toMatchObject({ seq: entry!.seq, problem: "missing" });
    },
  );
});

describe("who may read the audit log", () => {
  const people: Record<string, { identity: string; permissions: string[] }> = {
    "token-root": { identity: "root", permissions: ["admin"] },
    "token-dana": { identity: "dana", permissions: ["dba"] },
  };
  const adminAuth = new Auth().authenticate(async (request: Request) => {
    const user = people[request.headers.get("authorization")?.replace(/^Bearer /, "") ?? ""];
    if (!user) throw new HTTPException(401, { message: "Unknown token." });
    return user;
  }) as unknown as AuthHandlers;

  it("refuses a reviewer without the admin permission with 403, and lets an admin export and verify", async () => {
    const s = await serve({ auth: adminAuth });
    try {
      for (const path of ["/audit/export?format=jsonl", "/audit/verify"]) {
        const refused = await s.as("dana")(path);
        expect(refused.status).toBe(403);
        expect(refused.body.error.code).toBe("AUDIT_PERMISSION_REQUIRED");
        expect(refused.body.error.message).toContain('needs the "admin" permission');
        expect((await s.as("root")(path)).status).toBe(200);
      }
    } finally {
      await s.server.close();
    }
  });

  it("lets the shared token's holder read it: with no auth file, the token is the admin", async () => {
    const server = createServer({
      graphs: { db: dbAgent() },
      checkpointer: new MemoryCheckpointer(),
      token: "audit-secret",
    });
    const { url } = await server.listen({ port: 0 });
    try {
      const read = (token: string) =>
        fetch(`${url}/audit/verify`, { headers: { authorization: `Bearer ${token}` } });
      expect((await read("audit-secret")).status).toBe(200);
      expect((await read("wrong")).status).toBe(401);
    } finally {
      await server.close();
    }
  });
});

describe("what else is recorded", () => {
  it("records each approval of a two-person review, then the decision with both approvers", async () => {
    const s = await serve();
    try {
      const { threadId, item } = await pausedThread(s, "remove audit-two.txt");
      await decide(s, "ana", threadId, item, { type: "approve" });
      const second = await decide(s, "bo", threadId, item, { type: "approve" });
      await settle(s, "bo", threadId, second.body.runId);
      const entries = await s.audit.list({ threadId });
      expect(entries.map((e) => [e.kind, e.actor.identity])).toEqual([
        ["approval", "ana"],
        ["approval", "bo"],
        ["decision", "bo"],
        ["tool_result", "system"],
      ]);
      expect(entries[2]!.data.approvedBy).toMatchObject([{ identity: "ana" }, { identity: "bo" }]);
    } finally {
      await s.server.close();
    }
  });

  it("records a deadline's reject as the system's decision", async () => {
    const s = await serve({ graphs: { db: dbAgent(300) } });
    try {
      const { threadId } = await pausedThread(s, "sql select 5");
      let entries: AuditEntry[] = [];
      for (let i = 0; i < 400 && !entries.some((e) => e.kind === "decision"); i++) {
        entries = await s.audit.list({ threadId });
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(entries[0]).toMatchObject({
        kind: "decision",
        actor: { identity: "deadline", authenticatedBy: "system" },
        data: {
          reviewer: "deadline",
          answer: { decisions: [{ type: "reject", message: "Too late." }] },
        },
      });
    } finally {
      await s.server.close();
    }
  });

  it("records a resume sent through the SDK client's runs as the caller's decision", async () => {
    const s = await serve();
    try {
      const { threadId, item } = await pausedThread(s, "sql select 7");
      const client = new Client({
        apiUrl: s.url,
        defaultHeaders: { authorization: "Bearer token-dana" },
      });
      const run = await client.runs.create(threadId, "db", {
        command: { resume: { decisions: [{ type: "approve" }] } },
      });
      await client.runs.join(threadId, run.run_id);
      const [entry] = await s.audit.list({ threadId, kind: "decision" });
      expect(entry).toMatchObject({
        interruptId: item.interruptId,
        actor: dana,
        data: {
          runId: run.run_id,
          answer: { decisions: [{ type: "approve" }] },
          proposed: [{ name: "execute_sql", args: { query: "select 7" } }],
        },
      });
    } finally {
      await s.server.close();
    }
  });

  it("records the tool's result of a decision sent as a run's resume", async () => {
    const s = await serve();
    try {
      const { threadId } = await pausedThread(s, "sql select 10");
      const client = new Client({
        apiUrl: s.url,
        defaultHeaders: { authorization: "Bearer token-dana" },
      });
      await client.runs.wait(threadId, "db", {
        command: { resume: { decisions: [{ type: "approve" }] } },
      });
      const [decision, result] = await s.audit.list({ threadId });
      expect(decision).toMatchObject({ kind: "decision", actor: dana });
      expect(result).toMatchObject({
        kind: "tool_result",
        actor: { identity: "system", authenticatedBy: "system" },
        data: {
          decisionSeq: decision!.seq,
          runId: decision!.data.runId,
          results: [{ name: "execute_sql", content: "ran select 10" }],
        },
      });
    } finally {
      await s.server.close();
    }
  });

  it("a run whose resume the server recorded does not look its decisions up again: only its tool's result is looked for", async () => {
    // A real audit log that counts the reads of a thread's entries.
    let reads = 0;
    const log = new MemoryAuditLog();
    const audit = new Proxy(log, {
      get(target, key) {
        const value = Reflect.get(target, key, target);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (key === "entries") reads++;
          return value.apply(target, args);
        };
      },
    }) as AuditLog;
    const s = await serve({ audit });
    try {
      const { threadId } = await pausedThread(s, "sql select 12");
      const client = new Client({
        apiUrl: s.url,
        defaultHeaders: { authorization: "Bearer token-dana" },
      });
      reads = 0;
      await client.runs.wait(threadId, "db", {
        command: { resume: { decisions: [{ type: "approve" }] } },
      });
      // Before: the worker looked the run's decisions up when it started, and after it ended.
      expect(reads).toBe(1);
      expect((await log.list({ threadId })).map((e) => e.kind)).toEqual([
        "decision",
        "tool_result",
      ]);
    } finally {
      await s.server.close();
    }
  });

  it("records a resume streamed through runs.stream as the caller's decision, then its tool's result", async () => {
    const s = await serve();
    try {
      const { threadId, item } = await pausedThread(s, "sql select 13");
      const client = new Client({
        apiUrl: s.url,
        defaultHeaders: { authorization: "Bearer token-dana" },
      });
      for await (const _ of client.runs.stream(threadId, "db", {
        command: { resume: { decisions: [{ type: "approve" }] } },
      })) {
        // Read to the end: the run has ended when the stream does.
      }
      const entries = await s.audit.list({ threadId });
      expect(entries.map((e) => [e.kind, e.actor.identity, e.interruptId])).toEqual([
        ["decision", "dana", item.interruptId],
        ["tool_result", "system", item.interruptId],
      ]);
    } finally {
      await s.server.close();
    }
  });

  /** A thread busy with a run (a slow model) that will pause for review, and a resume queued behind it. */
  async function resumeQueuedBehindARun(s: Served, who: string, text: string) {
    const client = new Client({
      apiUrl: s.url,
      defaultHeaders: { authorization: `Bearer token-${who}` },
    });
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "db", {
      input: { messages: [{ type: "human", content: "hello" }] },
    });
    const first = await client.runs.create(thread.thread_id, "db", {
      input: { messages: [{ type: "human", content: text }] },
    });
    const queued = await client.runs.create(thread.thread_id, "db", {
      command: { resume: { decisions: [{ type: "approve" }] } },
      multitaskStrategy: "enqueue",
    });
    await client.runs.join(thread.thread_id, first.run_id);
    await settle(s, who, thread.thread_id, queued.run_id);
    return { client, threadId: thread.thread_id, runId: queued.run_id };
  }

  it("records a resume queued behind a running run as its starter's decision when it starts, tells review.decided, and records its tool's result", async () => {
    const receiver = await startReceiver();
    const s = await serve({
      webhooks: webhookOptionsOf({
        endpoints: [{ url: receiver.url, events: ["review.decided"] }],
      }),
    });
    try {
      const { threadId, runId } = await resumeQueuedBehindARun(s, "dana", "slow sql select 11");
      expect(ran).toContain("sql:select 11");
      const entries = await s.audit.list({ threadId });
      expect(entries.map((e) => [e.kind, e.actor.identity])).toEqual([
        ["decision", "dana"],
        ["tool_result", "system"],
      ]);
      expect(entries[0]).toMatchObject({
        actor: dana,
        data: {
          runId,
          answer: { decisions: [{ type: "approve" }] },
          proposed: [{ name: "execute_sql", args: { query: "select 11" } }],
        },
      });
      const told = await receiver.waitFor(
        (r) => r.json?.event === "review.decided" && r.json.thread_id === threadId,
        "review.decided",
      );
      expect(told.json).toMatchObject({
        run_id: runId,
        decision: { reviewer: "dana", authenticated_by: "auth_handler", types: ["approve"] },
      });
    } finally {
      await s.server.close();
      await receiver.close();
    }
  });

  it("fails a queued resume its starter has no right to when it starts, recording nothing and leaving the review waiting", async () => {
    const s = await serve();
    try {
      // Olga (ops) may reject execute_sql but not approve it.
      const { client, threadId, runId } = await resumeQueuedBehindARun(
        s,
        "olga",
        "slow sql drop 12",
      );
      const run = await client.runs.get(threadId, runId);
      expect(run.status).toBe("error");
      expect((run as { error?: { message: string } }).error?.message).toMatch(
        /Only holders of the "dba" permission may approve/,
      );
      expect(ran).not.toContain("sql:drop 12");
      expect((await client.threads.get(threadId)).status).toBe("interrupted");
      expect(await s.audit.list({ threadId })).toEqual([]);
      const page = (await s.as("olga")(`/inbox/threads/${threadId}`)).body;
      expect(page.pending).toHaveLength(1);
    } finally {
      await s.server.close();
    }
  });

  it("starts a recorded decision whose run never started when its key comes again, and refuses one recorded as not applied", async () => {
    const s = await serve();
    try {
      // As if the server stopped between recording the decision and starting its run.
      const { threadId, item } = await pausedThread(s, "sql select 8");
      const decision = {
        interruptId: item.interruptId,
        checkpointId: item.checkpointId,
        threadId,
        reviewer: "dana",
        authenticatedBy: "auth_handler",
        decidedAt: new Date().toISOString(),
        waitedMs: 0,
        answer: { decisions: [{ type: "approve" }] },
        runId: randomUUID(),
        idempotencyKey: "crashed-1",
      };
      await s.audit.append({
        kind: "decision",
        threadId,
        interruptId: item.interruptId,
        actor: dana,
        key: `decision:${threadId}:crashed-1`,
        data: { ...decision, diff: [] },
      });
      const again = await s.as("dana")(`/inbox/threads/${threadId}/decisions`, {
        checkpointId: item.checkpointId,
        interruptId: item.interruptId,
        answer: { decisions: [{ type: "approve" }] },
        idempotencyKey: "crashed-1",
      });
      expect(again.status).toBe(202);
      expect(again.body.runId).toBe(decision.runId);
      await settle(s, "dana", threadId, decision.runId);
      expect(ran).toContain("sql:select 8");
      expect((await s.audit.list({ threadId, kind: "decision" })).length).toBe(1);

      // A decision whose run could not start answers its key with why, and runs nothing.
      const other = await pausedThread(s, "sql select 9");
      const key = `decision:${other.threadId}:failed-1`;
      await s.audit.append({
        kind: "decision",
        threadId: other.threadId,
        interruptId: other.item.interruptId,
        actor: dana,
        key,
        data: {
          ...decision,
          threadId: other.threadId,
          interruptId: other.item.interruptId,
          idempotencyKey: "failed-1",
        },
      });
      await s.audit.append({
        kind: "not_applied",
        threadId: other.threadId,
        interruptId: other.item.interruptId,
        actor: dana,
        key: `not_applied:${key}`,
        data: { decision: key, reason: "the database was away" },
      });
      const refused = await s.as("dana")(`/inbox/threads/${other.threadId}/decisions`, {
        checkpointId: other.item.checkpointId,
        interruptId: other.item.interruptId,
        answer: { decisions: [{ type: "approve" }] },
        idempotencyKey: "failed-1",
      });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe("DECISION_NOT_APPLIED");
      expect(refused.body.error.message).toContain("the database was away");
      expect(ran).not.toContain("sql:select 9");
      expect((await s.as("dana")(`/inbox/threads/${other.threadId}`)).body.decisions).toEqual([]);
    } finally {
      await s.server.close();
    }
  });

  it("marks a shared-token decision's typed name as unverified", async () => {
    const server = createServer({
      graphs: { db: dbAgent() },
      checkpointer: new MemoryCheckpointer(),
      token: "audit-secret",
    });
    const { url } = await server.listen({ port: 0 });
    const s: Served = {
      server,
      url,
      audit: server.context.audit,
      as: () => async (path: string, body?: unknown) => {
        const res = await fetch(`${url}${path}`, {
          method: body === undefined ? "GET" : "POST",
          headers: {
            accept: "application/json",
            "content-type": "application/json",
            authorization: "Bearer audit-secret",
          },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        return { status: res.status, body: await res.json(), text: "", type: null };
      },
    };
    try {
      const { threadId, item } = await pausedThread(s, "remove unverified.txt");
      const decided = await decide(s, "x", threadId, item, { type: "reject" });
      expect(decided.status).toBe(202);
      const [entry] = await s.audit.list({ threadId, kind: "decision" });
      expect(entry!.actor).toEqual({
        identity: "somebody-typed",
        displayName: "somebody-typed",
        authenticatedBy: "shared_token",
      });
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(!pgUrl)("two servers on one PostgreSQL", () => {
  it("append their decisions to one unbroken chain", async () => {
    const tablePrefix = `sw_audit_two_${randomUUID().slice(0, 8)}_`;
    const stores = [0, 1].map(
      () => new PostgresCheckpointer({ connectionString: pgUrl!, tablePrefix }),
    );
    const servers = await Promise.all(stores.map((checkpointer) => serve({ checkpointer })));
    try {
      // Each server decides three reviews of its own, all at the same time.
      await Promise.all(
        servers.flatMap((s, n) =>
          [1, 2, 3].map(async (i) => {
            const { threadId, item } = await pausedThread(s, `sql select ${n}${i}`);
            const decided = await decide(s, "dana", threadId, item, {
              type: "reject",
              message: "no",
            });
            await settle(s, "dana", threadId, decided.body.runId);
          }),
        ),
      );
      const report = await servers[0]!.audit.verify();
      expect(report).toMatchObject({ ok: true });
      const decisions = await servers[1]!.audit.list({ kind: "decision" });
      expect(decisions).toHaveLength(6);
      expect(report.entries).toBe((await servers[1]!.audit.list()).length);
    } finally {
      for (const s of servers) await s.server.close();
      for (const c of stores) await c.close();
      const pool = new pg.Pool({ connectionString: pgUrl });
      await dropStoreTables(pool, tablePrefix);
      await pool.end();
    }
  }, 120_000);
});
