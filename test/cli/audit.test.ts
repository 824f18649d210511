// `stateweaver audit export | verify` on a real PGlite data directory, as a script runs them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuditEntry, auditLogFor, type SqlAuditLog } from "../../src/audit/index.js";
import { tempDataDir } from "../server/fixtures/server.js";
import { stateweaver } from "./run-bin.js";

const actor = { identity: "ana", displayName: "Ana", authenticatedBy: "auth_handler" as const };

describe("stateweaver audit", () => {
  let data: Awaited<ReturnType<typeof tempDataDir>>;
  let env: Record<string, string>;
  /** Open the data directory (the CLI is not running then: PGlite has one owner). */
  const withLog = async (
    fn: (log: SqlAuditLog, query: (sql: string) => Promise<unknown>) => Promise<void>,
  ) => {
    const checkpointer = data.open();
    try {
      const driver = await checkpointer.sharedDriver();
      await fn(auditLogFor(checkpointer) as SqlAuditLog, (sql) => driver.query(sql));
    } finally {
      await checkpointer.close();
    }
  };

  beforeAll(async () => {
    data = await tempDataDir();
    env = { STATEWEAVER_DATA_DIR: data.dir };
    await withLog(async (log) => {
      for (const n of [1, 2, 3]) {
        await log.append({
          kind: "decision",
          threadId: `t${n}`,
          interruptId: `i${n}`,
          actor,
          data: { answer: { decisions: [{ type: "approve" }] } },
        });
      }
    });
  }, 60_000);
  afterAll(() => data.dispose());

  it("verify says the log is intact and exits 0", async () => {
    const { code, stdout } = await stateweaver(["audit", "verify"], env);
    expect(stdout).toMatch(
      /^The audit log is intact: 3 entries, the last #3 with hash [0-9a-f]{64}\.\n$/,
    );
    expect(code).toBe(0);
  }, 60_000);

  it("export writes every entry since the time given as one JSON object a line", async () => {
    const all = await stateweaver(
      ["audit", "export", "--since", "2000-01-01T00:00:00Z", "--format", "jsonl"],
      env,
    );
    expect(all.code).toBe(0);
    const entries = all.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as AuditEntry);
    expect(entries.map((e) => [e.seq, e.threadId])).toEqual([
      [1, "t1"],
      [2, "t2"],
      [3, "t3"],
    ]);
    expect(entries[1]!.prevHash).toBe(entries[0]!.hash);
    const none = await stateweaver(["audit", "export", "--since", "2999-01-01T00:00:00Z"], env);
    expect(none).toMatchObject({ code: 0, stdout: "" });
  }, 60_000);

  it("exits 1 with the reason for a since that is not a time, or a directory with no database", async () => {
    const bad = await stateweaver(["audit", "export", "--since", "yesterday"], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("since must be a date and time in ISO 8601");
    const empty = await stateweaver(["audit", "verify"], {
      STATEWEAVER_DATA_DIR: `${data.dir}-nothing`,
    });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain("There is no stateweaver database in");
  }, 60_000);

  it("verify --expect-head exits 2 when entries after the recorded head were cut off", async () => {
    await withLog(async (log) => {
      await log.append({ kind: "decision", threadId: "t4", interruptId: "i4", actor, data: {} });
    });
    const recorded = JSON.parse((await stateweaver(["audit", "verify", "--json"], env)).stdout);
    expect(recorded.head.seq).toBe(4);
    await withLog(async (log, query) => {
      await query(`delete from ${log.table} where seq = 4`);
    });
    // The shorter log still links up; only the recorded head shows the cut.
    expect((await stateweaver(["audit", "verify"], env)).code).toBe(0);
    const cut = await stateweaver(["audit", "verify", "--expect-head", recorded.head.hash], env);
    expect(cut.stdout).toContain(
      `The audit log is not the one you recorded: The head you recorded (hash ${recorded.head.hash}) is not in the log, and the log ends at entry 3`,
    );
    expect(cut.stdout).toContain("entries after it were cut off");
    expect(cut.stdout).toContain("Its 3 entries are intact.");
    expect(cut.code).toBe(2);
  }, 60_000);

  it("verify exits 2 at an entry changed in the database, naming it", async () => {
    await withLog(async (log, query) => {
      await query(
        `update ${log.table} set data = replace(data, 'approve', 'reject') where seq = 2`,
      );
    });
    const { code, stdout } = await stateweaver(["audit", "verify"], env);
    expect(stdout).toContain(
      'The audit log is broken at entry 2: Entry 2 (decision on thread "t2") was changed',
    );
    expect(stdout).toContain("The entry before it is intact (the last, #1");
    expect(code).toBe(2);
    const json = await stateweaver(["audit", "verify", "--json"], env);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      broken: { seq: 2, problem: "changed" },
    });
    expect(json.code).toBe(2);
  }, 60_000);
});
