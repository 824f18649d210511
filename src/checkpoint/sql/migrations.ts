import { SchemaTooNewError } from "../../errors/index.js";
import type { SqlDriver } from "./driver.js";
import type { Tables } from "./statements.js";

/**
 * Schema migrations; migration N brings the schema to version N. Append, never edit:
 * databases already at a version skip everything up to it.
 */
const migrations: Array<(t: Tables) => string[]> = [
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
];

/** Brings the schema up to date. Safe when several processes start at once on one database. */
export async function migrate(driver: SqlDriver, t: Tables): Promise<void> {
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
      for (const statement of migrations[version - 1]!(t)) await query(statement);
      await query(`insert into ${t.version} (version) values ($1)`, [version]);
    }
  });
}
