import { InvalidConfigError } from "../../errors/index.js";

/** Table names start with this unless a store is given another `tablePrefix`. */
export const DEFAULT_TABLE_PREFIX = "stateweaver_";

/** The names of one store's tables, derived from its prefix. */
export interface Tables {
  prefix: string;
  version: string;
  threads: string;
  checkpoints: string;
  writes: string;
  claims: string;
}

export function tables(prefix: string): Tables {
  // Names are spliced into SQL, so only plain lower-case identifiers are accepted.
  if (!/^[a-z_][a-z0-9_]{0,39}$/.test(prefix)) {
    throw new InvalidConfigError(
      `Table prefix "${prefix}" is not allowed: use at most 40 lower-case letters, digits and underscores, starting with a letter or underscore (e.g. "stateweaver_").`,
    );
  }
  return {
    prefix,
    version: `${prefix}schema_version`,
    threads: `${prefix}threads`,
    checkpoints: `${prefix}checkpoints`,
    writes: `${prefix}writes`,
    claims: `${prefix}claims`,
  };
}

/** The statement text of a store, for its table names. */
export function statements(t: Tables) {
  // Checkpoint row first (kind 0), then its writes in insertion order: one round trip.
  // `key` (checkpoint or task id) and `parent_id` name a row whose payload is damaged.
  const tuple = (where: string) => `
    with c as (select id, parent_id, payload from ${t.checkpoints} where ${where})
    select 0 as kind, 0::bigint as seq, c.id as key, c.parent_id, c.payload from c
    union all
    select 1, w.seq, w.task_id, null, w.payload from ${t.writes} w join c on w.checkpoint_id = c.id
      where w.thread_id = $1 and w.ns = $2
    order by kind, seq`;
  // A checkpoint write is ONE autocommitted statement: the head-row claim or advance in a
  // data-modifying CTE, and the checkpoint insert selecting from it. The insert writes a row
  // only when the head row was claimed/advanced (`head` returned one), so the statement's
  // row count is 1 on success and 0 when `expectedLatestId` was not the latest. A unique
  // violation in the insert aborts the whole statement, head change included.
  const insertCheckpointFrom = `insert into ${t.checkpoints}
      (thread_id, ns, id, parent_id, step, source, created_at, payload)
      select $1, $2, $3, $4::text, $5::integer, $6::text, $7::timestamptz, $8::text from head`;
  return {
    // ON CONFLICT DO NOTHING waits for a concurrent claim of the same (thread, ns) to end:
    // if it commits, this one claims nothing; only one first checkpoint of a thread wins.
    claimAndInsert: `with head as (
        insert into ${t.threads} (thread_id, ns, latest_id) values ($1, $2, $3)
        on conflict do nothing
        returning 1)
      ${insertCheckpointFrom}`,
    // Under READ COMMITTED an UPDATE blocked on the head row's lock re-evaluates its WHERE
    // against the row the other writer committed, so of two writers expecting the same
    // latest exactly one matches. No head row (new or deleted thread): nothing matches.
    advanceAndInsert: `with head as (
        update ${t.threads} set latest_id = $3
        where thread_id = $1 and ns = $2 and latest_id = $9
        returning 1)
      ${insertCheckpointFrom}`,
    latestId: `select latest_id from ${t.threads} where thread_id = $1 and ns = $2`,
    upsertWrite: `insert into ${t.writes} (thread_id, ns, checkpoint_id, task_id, node, payload)
      values ($1, $2, $3, $4, $5, $6)
      on conflict (thread_id, ns, checkpoint_id, task_id)
      do update set node = excluded.node, payload = excluded.payload`,
    latestTuple: tuple("thread_id = $1 and ns = $2 order by seq desc limit 1"),
    tupleById: tuple("thread_id = $1 and ns = $2 and id = $3"),
    list: `select id, parent_id, payload from ${t.checkpoints}
      where thread_id = $1 and ns = $2
        and ($3::text is null
          or seq < (select seq from ${t.checkpoints} where thread_id = $1 and ns = $2 and id = $3))
      order by seq desc
      limit $4`,
    // Inserted only while the thread's latest top-level checkpoint is the one expected
    // (none: no head row); an existing claim is taken over only once it has expired.
    claim: `insert into ${t.claims} (thread_id, run_id, expires_at)
      select $1, $2, now() + $4::integer * interval '1 millisecond'
      where coalesce((select latest_id from ${t.threads} where thread_id = $1 and ns = ''), '')
        = coalesce($3::text, '')
      on conflict (thread_id) do update
        set run_id = excluded.run_id, expires_at = excluded.expires_at
        where ${t.claims}.expires_at <= now()`,
    renewClaim: `insert into ${t.claims} (thread_id, run_id, expires_at)
      values ($1, $2, now() + $3::integer * interval '1 millisecond')
      on conflict (thread_id) do update
        set run_id = excluded.run_id, expires_at = excluded.expires_at
        where ${t.claims}.run_id = excluded.run_id or ${t.claims}.expires_at <= now()`,
    liveClaim: `select 1 from ${t.claims} where thread_id = $1 and expires_at > now()`,
    releaseClaim: `delete from ${t.claims} where thread_id = $1 and run_id = $2`,
    deleteClaim: `delete from ${t.claims} where thread_id = $1`,
    deleteWrites: `delete from ${t.writes} where thread_id = $1`,
    deleteCheckpoints: `delete from ${t.checkpoints} where thread_id = $1`,
    deleteThreads: `delete from ${t.threads} where thread_id = $1`,
    // Run outside a transaction; only for a database without autovacuum (PGlite).
    vacuum: `vacuum ${t.threads}, ${t.checkpoints}, ${t.writes}, ${t.claims}`,
  };
}

export type Statements = ReturnType<typeof statements>;
