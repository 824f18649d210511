import { SchemaTooNewError } from "../../errors/index.js";
import type { SqlDriver } from "./driver.js";
import type { Tables } from "./statements.js";

/**
 * Schema migrations; migration N brings the schema to version N. Append, never edit:
 * databases already at a version skip everything up to it.
 */
/** What a database's migrations may leave out. */
export interface MigrationOptions {
  /**
   * The thread-change triggers (migration 5) that tell other processes sharing the
   * database: a PGlite database has one process, which hears its own changes directly.
   */
  threadChanges: boolean;
}

const migrations: Array<(t: Tables, o: MigrationOptions) => string[]> = [
  (t) => [
    // One head row per (thread, ns): the row `put` locks to check `expectedLatestId`.
    `create table ${t.threads} (
      thread_id text not null,
      ns text not null,
      latest_id text not null,
      primary key (thread_id, ns)
    )`,
    `create table ${t.checkpoints} (
      thread_id text not null,
      ns text not null,
      id text not null,
      seq bigint generated always as identity,
      parent_id text,
      step integer,
      source text,
      created_at timestamptz not null,
      payload text not null,
      primary key (thread_id, ns, id)
    )`,
    `create index ${t.prefix}checkpoints_history on ${t.checkpoints} (thread_id, ns, seq)`,
    // One row per task: a task that finished with no writes still has to be recorded.
    `create table ${t.writes} (
      thread_id text not null,
      ns text not null,
      checkpoint_id text not null,
      task_id text not null,
      node text not null,
      seq bigint generated always as identity,
      payload text not null,
      primary key (thread_id, ns, checkpoint_id, task_id),
      foreign key (thread_id, ns, checkpoint_id)
        references ${t.checkpoints} (thread_id, ns, id) on delete cascade
    )`,
  ],
  (t) => [
    // One row per thread a run holds (see Checkpointer.claimThread); times are the database's.
    `create table ${t.claims} (
      thread_id text primary key,
      run_id text not null,
      expires_at timestamptz not null
    )`,
  ],
  (t) => [
    // The thread record lives on the top-level head row, so the statement that writes a
    // checkpoint writes it too (see statements.ts). Subgraph head rows leave it null.
    `alter table ${t.threads}
      add column graph text,
      add column status text,
      add column interrupts text,
      add column error text,
      add column metadata jsonb,
      add column created_at timestamptz,
      add column updated_at timestamptz`,
    // Backfill existing threads from their latest top-level checkpoint. A payload that is not
    // JSON must not stop the database from opening: it reads as null, and the thread as
    // `error` (its next run would fail on it too). `json`, not `jsonb`: payloads may hold
    // \u0000, which jsonb refuses. The function lives in this session only.
    `create function pg_temp.stateweaver_try_json(payload text) returns json
      language plpgsql immutable as $$
      begin
        return payload::json;
      exception when others then
        return null;
      end $$`,
    `update ${t.threads} t set
        status = case
          when b.doc is null then 'error'
          when json_typeof(b.doc -> 'interrupts') = 'array'
            and json_array_length(b.doc -> 'interrupts') > 0 then 'interrupted'
          else 'idle' end,
        interrupts = case when json_typeof(b.doc -> 'interrupts') = 'array'
          then (b.doc -> 'interrupts')::text else '[]' end,
        error = case when b.doc is null then '{"name":"CorruptCheckpointError","message":"The latest checkpoint of this thread is not valid JSON."}' end,
        metadata = '{}'::jsonb,
        created_at = coalesce(b.first_at, b.latest_at),
        updated_at = date_trunc('milliseconds', b.latest_at)
      from (
        select h.thread_id, c.created_at as latest_at, pg_temp.stateweaver_try_json(c.payload) as doc,
          (select f.created_at from ${t.checkpoints} f
            where f.thread_id = h.thread_id and f.ns = '' order by f.seq limit 1) as first_at
        from ${t.threads} h
        join ${t.checkpoints} c on c.thread_id = h.thread_id and c.ns = '' and c.id = h.latest_id
        where h.ns = ''
      ) b
      where t.thread_id = b.thread_id and t.ns = ''`,
    "drop function pg_temp.stateweaver_try_json(text)",
    // A head row whose checkpoint is missing (never written so by stateweaver) still gets a record.
    `update ${t.threads} set status = 'idle', interrupts = '[]', metadata = '{}'::jsonb,
        created_at = date_trunc('milliseconds', now()), updated_at = date_trunc('milliseconds', now())
      where ns = '' and status is null`,
    // The inbox query: one status, newest first, a page at a time (keyset on updated_at, id).
    `create index ${t.prefix}threads_by_status on ${t.threads} (status, updated_at, thread_id)
      where ns = ''`,
    // Every thread, newest first (no status filter).
    `create index ${t.prefix}threads_by_update on ${t.threads} (updated_at, thread_id)
      where ns = ''`,
  ],
  (t) => [
    // Channel values stored by version: a checkpoint stores only what it changed (see
    // stored-values.ts). Older rows keep their values in the payload (channels null).
    `create table ${t.values} (
      thread_id text not null,
      ns text not null,
      channel text not null,
      version text not null,
      prev text,
      keep integer,
      base text,
      payload text not null,
      primary key (thread_id, ns, channel, version)
    )`,
    // Arrays, not JSON: `unnest` lets the planner expect a handful of channels per row.
    `alter table ${t.checkpoints} add column channels text[], add column versions text[]`,
  ],
  (t, o) => {
    // Thread changes an inbox shows, sent on `${prefix}thread_changes` (see thread-changes.ts)
    // by the transaction that makes them, so servers sharing the database hear each other's.
    // Only a status or interrupts change notifies: the steps inside a run do not. The
    // triggers cost each checkpoint write some 60–80 µs on PGlite (S6), where nobody listens.
    if (!o.threadChanges) return [];
    const fn = `${t.prefix}notify_thread_change`;
    const send = (thread: string, change: string) =>
      `perform pg_notify('${t.prefix}thread_changes', json_build_object('threadId', ${thread}, 'change', ${change})::text);`;
    return [
      `create or replace function ${fn}() returns trigger language plpgsql as $$
        begin
          if tg_table_name = '${t.claims}' then
            if tg_op = 'INSERT' then ${send("new.thread_id", "'started'")}
            else ${send("old.thread_id", "'released'")} end if;
          elsif tg_op = 'DELETE' then ${send("old.thread_id", "'deleted'")}
          elsif tg_op = 'INSERT' and new.status is distinct from 'interrupted' then
            ${send("new.thread_id", "'started'")}
          else ${send(
            "new.thread_id",
            `case new.status when 'interrupted' then 'paused' when 'error' then 'failed'
              else 'finished' end`,
          )}
          end if;
          return null;
        end $$`,
      `create trigger ${t.prefix}thread_inserted after insert on ${t.threads}
        for each row when (new.ns = '') execute function ${fn}()`,
      `create trigger ${t.prefix}thread_changed after update on ${t.threads}
        for each row when (new.ns = '' and (old.status is distinct from new.status
          or old.interrupts is distinct from new.interrupts)) execute function ${fn}()`,
      `create trigger ${t.prefix}thread_deleted after delete on ${t.threads}
        for each row when (old.ns = '') execute function ${fn}()`,
      // A run taking or leaving a thread: its items leave the inbox or come back.
      `create trigger ${t.prefix}claim_taken after insert on ${t.claims}
        for each row execute function ${fn}()`,
      `create trigger ${t.prefix}claim_released after delete on ${t.claims}
        for each row execute function ${fn}()`,
    ];
  },
  (t) => [
    // The run that stored each pending write, for a rollback to remove a stopped run's
    // (see Checkpointer.rewindThread). Older writes name none and are never removed so.
    `alter table ${t.writes} add column run_id text`,
  ],
  (t) => [
    // Every checkpoint write moves its thread's `updated_at`, so each index keyed on it takes
    // a new entry per write. A search without a status walks `threads_by_status` once per
    // stored status instead (see `searchThreadsQuery`), so this one only cost writes.
    `drop index if exists ${t.prefix}threads_by_update`,
  ],
];

/** Brings the schema up to date. Safe when several processes start at once on one database. */
export async function migrate(
  driver: SqlDriver,
  t: Tables,
  options: MigrationOptions = { threadChanges: true },
): Promise<void> {
  await driver.transaction(async (query) => {
    // Serialises concurrent initialisers; released at commit.
    await query("select pg_advisory_xact_lock(hashtext($1))", [`stateweaver:${t.prefix}`]);
    await query(
      `create table if not exists ${t.version} (
        version integer primary key,
        applied_at timestamptz not null default now()
      )`,
    );
    const { rows } = await query(`select coalesce(max(version), 0) as version from ${t.version}`);
    const current = Number(rows[0]?.version ?? 0);
    if (current > migrations.length) {
      throw new SchemaTooNewError(t.prefix, current, migrations.length);
    }
    for (let version = current + 1; version <= migrations.length; version++) {
      for (const statement of migrations[version - 1]!(t, options)) await query(statement);
      await query(`insert into ${t.version} (version) values ($1)`, [version]);
    }
  });
}
