/**
 * The run table of `PostgresRunQueue`, next to the checkpoint tables (same prefix). Jobs live
 * in graphile-worker's own schema; a run row is the record clients read, a job only wakes a
 * worker. Created if missing, under an advisory lock so concurrent first starts agree.
 */
export function runTables(prefix: string) {
  return {
    runs: `${prefix}runs`,
    workers: `${prefix}run_workers`,
    channel: `${prefix}runs`,
    deliveries: `${prefix}deliveries`,
  };
}

/** `schema`: graphile-worker's, whose jobs a delayed run's due time is read from once. */
export function createRunTables(t: ReturnType<typeof runTables>, schema: string): string {
  return `
    create table if not exists ${t.runs} (
      run_id text primary key,
      thread_id text not null,
      graph_id text not null,
      status text not null,
      multitask_strategy text not null,
      request jsonb not null,
      metadata jsonb not null,
      error jsonb,
      attempt integer not null default 0,
      -- The graphile-worker worker holding the run, and until when (renewed by its heartbeat).
      worker_id text,
      lease_until timestamptz,
      cancel_action text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      started_at timestamptz,
      ended_at timestamptz
    );
    -- When the run may start (its after_seconds): its thread's turn may pass to it no sooner.
    -- Null (a row from before this column) counts as due at once.
    alter table ${t.runs} add column if not exists due_at timestamptz;
    -- Rows from before it that still wait take their due time from their job, once.
    update ${t.runs} r set due_at = j.run_at from ${schema}._private_jobs j
     where r.status = 'pending' and r.due_at is null and j.key = r.run_id;
    create index if not exists ${t.runs}_thread on ${t.runs} (thread_id, created_at desc);
    create index if not exists ${t.runs}_active on ${t.runs} (thread_id)
      where status in ('pending', 'running');
    create index if not exists ${t.runs}_worker on ${t.runs} (worker_id) where status = 'running';
    create table if not exists ${t.workers} (
      worker_id text primary key,
      seen_at timestamptz not null
    );
    -- One row per delivery (a webhook) ever added: its key makes an event delivered once
    -- however many processes add it; a graphile-worker job wakes a worker for each attempt.
    create table if not exists ${t.deliveries} (
      key text primary key,
      payload jsonb not null,
      status text not null default 'pending',
      attempts integer not null default 0,
      last_error text,
      created_at timestamptz not null default clock_timestamp(),
      updated_at timestamptz not null default clock_timestamp()
    );
    create index if not exists ${t.deliveries}_ended on ${t.deliveries} (updated_at)
      where status <> 'pending';`;
}
