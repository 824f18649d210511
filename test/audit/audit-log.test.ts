// The audit log on memory, PGlite and PostgreSQL: one unbroken chain, and tampering found.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import {
  type AuditDraft,
  type AuditLog,
  auditLogFor,
  entryHash,
  GENESIS_HASH,
  MemoryAuditLog,
  SqlAuditLog,
} from "../../src/audit/index.js";
import {
  MemoryCheckpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../../src/checkpoint/index.js";
import type { Query, SqlDriver } from "../../src/checkpoint/sql/index.js";
import { InvalidAuditRequestError } from "../../src/errors/index.js";
import { dropStoreTables } from "../setup/store-tables.js";

const ana = { identity: "ana", displayName: "Ana", authenticatedBy: "auth_handler" as const };
const draft = (n: number, extra: Partial<AuditDraft> = {}): AuditDraft => ({
  kind: "decision",
  threadId: `t${n % 3}`,
  interruptId: `i${n}`,
  actor: ana,
  data: { answer: { decisions: [{ type: "approve" }] }, n },
  ...extra,
});

/**
 * What every log does, whatever keeps it. `database()` makes a new empty database per test
 * and returns how to open a log on it (twice, for two appenders, as two processes would).
 */
function describeAuditLog(name: string, database: () => () => AuditLog) {
  describe(name, () => {
    let open: () => AuditLog;
    beforeEach(() => {
      open = database();
    });

    it("numbers entries from 1 and links each to the hash of the one before", async () => {
      const log = open();
      const first = await log.append(draft(1));
      const second = await log.append(draft(2));
      expect(first.seq).toBe(1);
      expect(first.prevHash).toBe(GENESIS_HASH);
      expect(second.seq).toBe(2);
      expect(second.prevHash).toBe(first.hash);
      const { hash, ...fields } = second;
      expect(entryHash(fields)).toBe(hash);
      expect(await log.verify()).toEqual({ ok: true, entries: 2, head: { seq: 2, hash } });
    });

    it("appends an entry with a key once, and returns the first for the same key", async () => {
      const log = open();
      const first = await log.append(draft(1, { key: "decision:t1:k1" }));
      const again = await log.append(draft(9, { key: "decision:t1:k1" }));
      expect(again).toEqual(first);
      expect(await log.find("decision:t1:k1")).toEqual(first);
      expect(await log.find("nope")).toBeUndefined();
      expect(await log.list()).toHaveLength(1);
    });

    it("appends made at once form one chain in the order they were made", async () => {
      const log = open();
      const made = await Promise.all(
        Array.from({ length: 150 }, (_, n) =>
          log.append(draft(n, n % 50 === 7 ? { key: "decision:t1:burst" } : {})),
        ),
      );
      // The three appends with one key get the first of them back; the rest follow in order.
      const keyed = made.filter((e) => e.key === "decision:t1:burst");
      expect(keyed).toHaveLength(3);
      expect(new Set(keyed.map((e) => e.seq)).size).toBe(1);
      expect(keyed[0]!.interruptId).toBe("i7");
      const written = made.filter((_e, n) => n % 50 !== 7 || n === 7);
      expect(written.map((e) => e.seq)).toEqual(Array.from({ length: 148 }, (_, i) => i + 1));
      expect(written.map((e) => e.interruptId)).toEqual(
        Array.from({ length: 150 }, (_, n) => n)
          .filter((n) => n % 50 !== 7 || n === 7)
          .map((n) => `i${n}`),
      );
      expect(await log.verify()).toMatchObject({ ok: true, entries: 148 });
      // What each caller got is its own: changing one changes no other, nor the log.
      (keyed[1]!.data as { n: number }).n = -1;
      expect((keyed[2]!.data as { n: number }).n).toBe(7);
    });

    it("a refused append is refused alone; the appends beside it are written", async () => {
      const log = open();
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      const results = await Promise.allSettled([
        log.append(draft(1)),
        log.append(draft(2, { data: cyclic })),
        log.append(draft(3)),
      ]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect((await log.list()).map((e) => e.interruptId)).toEqual(["i1", "i3"]);
    });

    it("reads entries by thread, interrupt, kind and time, oldest first", async () => {
      const log = open();
      for (let n = 1; n <= 6; n++) await log.append(draft(n));
      await log.append(draft(7, { kind: "tool_result" }));
      expect((await log.list({ threadId: "t1" })).map((e) => e.interruptId)).toEqual([
        "i1",
        "i4",
        "i7",
      ]);
      expect((await log.list({ threadId: "t1", kind: "decision" })).map((e) => e.seq)).toEqual([
        1, 4,
      ]);
      expect((await log.list({ interruptId: "i5" })).map((e) => e.seq)).toEqual([5]);
      expect(await log.list({ since: "2999-01-01T00:00:00Z" })).toEqual([]);
      expect(await log.list({ since: "2000-01-01T00:00:00Z", limit: 2 })).toHaveLength(2);
      const all = [];
      for await (const e of log.entries({ since: "2000-01-01" })) all.push(e.seq);
      expect(all).toEqual([1, 2, 3, 4, 5, 6, 7]);
    });

    it("refuses a since that is not a date, saying what it wants", async () => {
      const log = open();
      await expect(log.list({ since: "yesterday" })).rejects.toThrow(InvalidAuditRequestError);
      await expect(log.list({ since: "yesterday" })).rejects.toThrow(/ISO 8601/);
    });

    it("passes verify with the head recorded earlier while entries are appended after it", async () => {
      const log = open();
      for (let n = 1; n <= 3; n++) await log.append(draft(n));
      const recorded = (await log.verify()).head!;
      await log.append(draft(4));
      expect(await log.verify({ expectHead: recorded.hash })).toMatchObject({
        ok: true,
        entries: 4,
        head: { seq: 4 },
      });
      // Upper case, as some tools copy hashes, is the same hash.
      expect((await log.verify({ expectHead: recorded.hash.toUpperCase() })).ok).toBe(true);
    });

    it("fails verify when the log does not hold the head recorded earlier", async () => {
      const log = open();
      await log.append(draft(1));
      const report = await log.verify({ expectHead: "a".repeat(64) });
      expect(report).toMatchObject({
        ok: false,
        entries: 1,
        broken: { seq: 2, problem: "head_missing" },
      });
      expect(report.broken!.message).toContain(
        `The head you recorded (hash ${"a".repeat(64)}) is not in the log, and the log ends at entry 1`,
      );
    });

    it("refuses an expected head that is not a hash, saying what it wants", async () => {
      const log = open();
      await expect(log.verify({ expectHead: "#3" })).rejects.toThrow(InvalidAuditRequestError);
      await expect(log.verify({ expectHead: "#3" })).rejects.toThrow(/head\.hash: 64 hex digits/);
    });

    it("keeps one unbroken chain when two appenders write at once", async () => {
      const a = open();
      const b = open();
      await Promise.all(
        Array.from({ length: 30 }, (_, n) => (n % 2 === 0 ? a : b).append(draft(n))),
      );
      const report = await a.verify();
      expect(report).toMatchObject({ ok: true, entries: 30 });
      expect((await b.list()).map((e) => e.seq)).toEqual(
        Array.from({ length: 30 }, (_, n) => n + 1),
      );
    });
  });
}

describeAuditLog("MemoryAuditLog", () => {
  const log = new MemoryAuditLog();
  return () => log;
});

/** Tampering as someone with write access to the database would do it. */
function describeTampering(name: string, open: () => Promise<{ log: SqlAuditLog; query: Query }>) {
  describe(`${name}: verify finds tampering`, () => {
    const filled = async () => {
      const { log, query } = await open();
      for (let n = 1; n <= 5; n++) await log.append(draft(n));
      return { log, query, t: log.table };
    };

    it("reports an entry whose data was edited in SQL as changed, at its sequence number", async () => {
      const { log, query, t } = await filled();
      await query(`update ${t} set data = replace(data, '"approve"', '"reject"') where seq = 3`);
      const report = await log.verify();
      expect(report.ok).toBe(false);
      expect(report.broken).toMatchObject({ seq: 3, problem: "changed" });
      expect(report.broken!.message).toMatch(/Entry 3 .* was changed after it was written/);
      expect(report).toMatchObject({ entries: 2, head: { seq: 2 } });
    });

    it("reports a deleted entry as missing", async () => {
      const { log, query, t } = await filled();
      await query(`delete from ${t} where seq = 2`);
      const report = await log.verify();
      expect(report.broken).toMatchObject({ seq: 2, problem: "missing" });
      expect(report.broken!.message).toMatch(/Entries 2 are missing|jumps from 1 to 3/);
    });

    it("reports an edited entry whose hash was recomputed as breaking the next link", async () => {
      const { log, query, t } = await filled();
      const [row] = await log.list({ afterSeq: 1, limit: 1 });
      const forged = { ...row!, actor: { ...row!.actor, identity: "mallory" } };
      const { hash: _old, ...fields } = forged;
      await query(`update ${t} set actor = $1, hash = $2 where seq = 2`, [
        JSON.stringify(forged.actor),
        entryHash(fields),
      ]);
      const report = await log.verify();
      expect(report.broken).toMatchObject({ seq: 3, problem: "unlinked" });
    });

    it("reports a log cut short after the recorded head as head_missing, which the chain alone cannot see", async () => {
      const { log, query, t } = await filled();
      const recorded = (await log.verify()).head!;
      await query(`delete from ${t} where seq >= 4`);
      // What is left still links up: only the recorded head tells.
      expect(await log.verify()).toMatchObject({ ok: true, entries: 3 });
      const report = await log.verify({ expectHead: recorded.hash });
      expect(report).toMatchObject({
        ok: false,
        entries: 3,
        head: { seq: 3 },
        broken: { seq: 4, problem: "head_missing" },
      });
      expect(report.broken!.message).toMatch(
        /is not in the log, and the log ends at entry 3 .*: entries after it were cut off/,
      );
    });

    it("reports two entries swapped in place as changed", async () => {
      const { log, query, t } = await filled();
      await query(`update ${t} set seq = -seq where seq in (2, 3)`);
      await query(`update ${t} set seq = 5 + seq where seq in (-2, -3)`);
      const report = await log.verify();
      expect(report.broken).toMatchObject({ seq: 2, problem: "changed" });
    });
  });
}

/**
 * How a SQL log appends once it knows the last entry: one statement, and the locked way
 * whenever the log moved on without it. `open()` gives a new empty database's driver and
 * how to open another log on it.
 */
function describeSqlAppends(
  name: string,
  open: () => Promise<{ driver: SqlDriver; tablePrefix?: string; another: () => SqlAuditLog }>,
) {
  describe(`${name}: appends`, () => {
    /** A log on `driver` that counts the statements it sends and the transactions it opens. */
    const counted = (driver: SqlDriver, tablePrefix?: string) => {
      const sent = { statements: 0, transactions: 0 };
      const count =
        (query: Query): Query =>
        (text, params) => {
          sent.statements++;
          return query(text, params);
        };
      const log = new SqlAuditLog({
        ...(tablePrefix && { tablePrefix }),
        driver: async () => ({
          query: count(driver.query),
          ...(driver.queryPrepared && { queryPrepared: count(driver.queryPrepared) }),
          transaction: (fn) => {
            sent.transactions++;
            return driver.transaction((query) => fn(count(query)));
          },
        }),
      });
      return { log, sent };
    };

    it("appends in one statement, without a transaction, after an entry it wrote", async () => {
      const { driver, tablePrefix } = await open();
      const { log, sent } = counted(driver, tablePrefix);
      const first = await log.append(draft(1, { key: "decision:t1:a" }));
      sent.statements = sent.transactions = 0;
      // Text that array literals quote or escape reads back as written.
      const data = { note: 'a "quoted" \\ back\\slash, {braces}', none: "NULL", empty: "" };
      const second = await log.append(draft(2, { key: "decision:t1:b", data }));
      expect(sent).toEqual({ statements: 1, transactions: 0 });
      expect(second).toMatchObject({ seq: 2, prevHash: first.hash, data });
      expect(await log.find("decision:t1:b")).toEqual(second);
      expect(await log.verify()).toMatchObject({ ok: true, entries: 2 });
    });

    it("follows the log's last entry when the entries it wrote last are gone (a restored database)", async () => {
      const { driver, tablePrefix } = await open();
      const { log } = counted(driver, tablePrefix);
      for (let n = 1; n <= 5; n++) await log.append(draft(n));
      const [third] = await log.list({ afterSeq: 2, limit: 1 });
      await driver.query(`delete from ${log.table} where seq >= 4`);
      const next = await log.append(draft(6));
      expect(next).toMatchObject({ seq: 4, prevHash: third!.hash });
      expect(await log.verify()).toMatchObject({ ok: true, entries: 4 });
    });

    it("returns the entry another appender logged under the same key, and links after it", async () => {
      const { another } = await open();
      const a = another();
      const b = another();
      await b.append(draft(1));
      const logged = await a.append(draft(2, { key: "decision:t1:k" }));
      expect(await b.append(draft(3, { key: "decision:t1:k" }))).toEqual(logged);
      expect(await b.append(draft(4))).toMatchObject({ seq: 3, prevHash: logged.hash });
      expect(await a.verify()).toMatchObject({ ok: true, entries: 3 });
    });
  });
}

const pglites: PGliteCheckpointer[] = [];
afterAll(async () => {
  for (const c of pglites) await c.close();
});
const pgliteLog = () => {
  const checkpointer = new PGliteCheckpointer("memory://");
  pglites.push(checkpointer);
  return checkpointer;
};

describe("auditLogFor", () => {
  it("gives the same log for the same checkpointer, in its database", async () => {
    const memory = new MemoryCheckpointer();
    expect(auditLogFor(memory)).toBe(auditLogFor(memory));
    expect(auditLogFor(memory)).toBeInstanceOf(MemoryAuditLog);
    const sql = pgliteLog();
    expect(auditLogFor(sql)).toBeInstanceOf(SqlAuditLog);
    expect((auditLogFor(sql) as SqlAuditLog).table).toBe("stateweaver_audit_log");
  });
});

describe("on PGlite", () => {
  describeAuditLog("SqlAuditLog on PGlite", () => {
    const checkpointer = pgliteLog();
    return () => new SqlAuditLog({ driver: () => checkpointer.sharedDriver() });
  });
  describeSqlAppends("SqlAuditLog on PGlite", async () => {
    const checkpointer = pgliteLog();
    const driver = await checkpointer.sharedDriver();
    return { driver, another: () => new SqlAuditLog({ driver: async () => driver }) };
  });
  describeTampering("SqlAuditLog on PGlite", async () => {
    const checkpointer = pgliteLog();
    const driver = await checkpointer.sharedDriver();
    return { log: auditLogFor(checkpointer) as SqlAuditLog, query: driver.query };
  });
});

const url = process.env.STATEWEAVER_PG_URL;
describe.skipIf(!url)("on PostgreSQL", () => {
  const prefixes: string[] = [];
  const checkpointers: PostgresCheckpointer[] = [];
  const fresh = () => {
    const tablePrefix = `sw_audit_${randomUUID().slice(0, 8)}_`;
    prefixes.push(tablePrefix);
    return tablePrefix;
  };
  // Each open is its own pool, as another process would be.
  const open = (tablePrefix: string) => {
    const checkpointer = new PostgresCheckpointer({ connectionString: url!, tablePrefix });
    checkpointers.push(checkpointer);
    return checkpointer;
  };
  afterAll(async () => {
    for (const c of checkpointers) await c.close();
    const pool = new pg.Pool({ connectionString: url });
    for (const prefix of prefixes) {
      await dropStoreTables(pool, prefix);
    }
    await pool.end();
  });
  describeAuditLog("SqlAuditLog on PostgreSQL", () => {
    const tablePrefix = fresh();
    return () => auditLogFor(open(tablePrefix));
  });
  describeSqlAppends("SqlAuditLog on PostgreSQL", async () => {
    const tablePrefix = fresh();
    const driver = await open(tablePrefix).sharedDriver();
    return { driver, tablePrefix, another: () => auditLogFor(open(tablePrefix)) as SqlAuditLog };
  });
  describeTampering("SqlAuditLog on PostgreSQL", async () => {
    const checkpointer = open(fresh());
    const driver = await checkpointer.sharedDriver();
    return { log: auditLogFor(checkpointer) as SqlAuditLog, query: driver.query };
  });
});
