import { InvalidConfigError } from "../../errors/index.js";
import type { ThreadSearch } from "../thread-records.js";

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
  values: string;
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
    values: `${prefix}channel_values`,
  };
}

/** The statement text of a store, for its table names. */
export function statements(t: Tables) {
  // Checkpoint rows first (kind 0), then their writes in insertion order (kind 1), then
  // the channel versions their values are assembled from (kind 2; see stored-values.ts):
  // one round trip. `key` (checkpoint id, task id or version) and `parent_id` name a row
  // whose payload is damaged. Rows written before channel versions (channels null) keep
  // their values in the payload.
  //
  // A chain's links all lie between its base (the whole value it starts from) and its
  // newest version, so the versions are read as one primary-key range per (channel, base):
  // a few index scans, whatever the length of a conversation. Should a link fall outside
  // (ids out of time order across machines), the store reads again with `walk`, which
  // follows `prev` link by link. Every lookup is a LATERAL subquery on the primary key
  // (`limit 1`; `offset 0` keeps a range one too): as a join, the planner would scan or
  // hash the thread's whole values table.
  const version = (ns: string, channel: string, v: string, columns: string) => `lateral (
      select ${columns} from ${t.values} b
      where b.thread_id = $1 and b.ns = ${ns} and b.channel = ${channel} and b.version = ${v}
      limit 1) b`;
  const chains = (seeds: string) => `
    k(ns, channel, version, prev) as (
      select b.ns, b.channel, b.version, b.prev from ${seeds}
      union
      select b.ns, b.channel, b.version, b.prev from k
        cross join ${version("k.ns", "k.channel", "k.prev", "b.ns, b.channel, b.version, b.prev")})`;
  const seeds = "c cross join lateral unnest(c.channels, c.versions) e(channel, version)";
  const valueColumns = "b.payload, null, null, b.channel, b.prev, b.keep, b.base";
  const rangeRows = `select 2, 0::bigint, b.version, null, ${valueColumns}
      from r cross join lateral (
        select b.version, b.payload, b.channel, b.prev, b.keep, b.base from ${t.values} b
        where b.thread_id = $1 and b.ns = $2 and b.channel = r.channel
          and b.version between r.lo and r.hi
        offset 0) b`;
  const values = {
    // One checkpoint: one range per channel, no duplicates to fold.
    one: {
      with: `
    r as (
      select e.channel, coalesce(b.base, e.version) as lo, e.version as hi from ${seeds}
        cross join ${version("$2", "e.channel", "e.version", "b.base")})`,
      rows: rangeRows,
    },
    // A page: its checkpoints share chains, so each (channel, base) is read once, to the newest.
    range: {
      with: `
    s as (select distinct e.channel, e.version from ${seeds}),
    r as (
      select s.channel, coalesce(b.base, s.version) as lo, max(s.version) as hi from s
        cross join ${version("$2", "s.channel", "s.version", "b.base")}
      group by s.channel, coalesce(b.base, s.version))`,
      rows: rangeRows,
    },
    walk: {
      with: chains(`${seeds}
        cross join ${version("$2", "e.channel", "e.version", "b.ns, b.channel, b.version, b.prev")}`),
      rows: `select 2, 0::bigint, k.version, null, ${valueColumns}
      from k cross join ${version("k.ns", "k.channel", "k.version", "b.payload, b.channel, b.prev, b.keep, b.base")}`,
    },
  };
  type Read = keyof typeof values;
  const checkpointColumns = `c.parent_id, c.payload, ${asJson("c.channels")}, ${asJson("c.versions")},
      null::text as channel, null::text as prev, null::integer as keep, null::text as base`;
  // The rows of the checkpoint `c` names (kind 0), its pending writes (1) and its values
  // (see `values`), after `c` and the CTEs before it; `more` adds rows of other kinds.
  const tupleRows = (read: Read, more = "") => `
    ${values[read].with}
    select 0 as kind, 0::bigint as seq, c.id as key, ${checkpointColumns} from c
    union all
    select 1, w.seq, w.task_id, null, w.payload, null, null, null, null, null, null
      from ${t.writes} w join c on w.checkpoint_id = c.id
      where w.thread_id = $1 and w.ns = $2
    union all
    ${values[read].rows}${more}
    order by kind, seq`;
  const tuple = (where: string, read: Read) => `
    with recursive c as (
      select id, parent_id, payload, channels, versions from ${t.checkpoints} where ${where}),
    ${tupleRows(read)}`;
  // A run's claim taken with its read of the latest top-level checkpoint (`claimLatest`):
  // $1 thread, $2 ns (''), $3 run id, $4 lifetime in ms. The head row is locked first (see
  // the lock order in store.ts), so a claim that waits on a run's last checkpoint and
  // release sees that checkpoint's id;
  // that row, committed after this statement began, is not in its snapshot, so the claim
  // is taken only where the checkpoint the head names is (a kind-3 row says it was). A
  // refusal returns nothing: busy, or (that race only) to be run again.
  const claimLatest = `
    with recursive head as (
      select latest_id from ${t.threads} where thread_id = $1 and ns = '' for no key update),
    claimed as (
      insert into ${t.claims} (thread_id, run_id, expires_at)
      select $1, $3::text, now() + $4::integer * interval '1 millisecond'
      where coalesce((select latest_id from head), '') = ''
        or exists (select 1 from ${t.checkpoints}
          where thread_id = $1 and ns = '' and id = (select latest_id from head))
      on conflict (thread_id) do update
        set run_id = excluded.run_id, expires_at = excluded.expires_at
        where ${t.claims}.expires_at <= now()
      returning 1),
    c as (
      select id, parent_id, payload, channels, versions from ${t.checkpoints}
      where thread_id = $1 and ns = '' and id = (select latest_id from head)
        and exists (select 1 from claimed)),
    ${tupleRows(
      "one",
      `
    union all
    select 3, 0, null, null, null, null, null, null, null, null, null from claimed`,
    )}`;
  // A page of history, newest first, with the versions its values are assembled from.
  const list = (read: Read) => `
    with recursive c as (
      select id, parent_id, payload, channels, versions, seq from ${t.checkpoints}
      where thread_id = $1 and ns = $2
        and ($3::text is null
          or seq < (select seq from ${t.checkpoints} where thread_id = $1 and ns = $2 and id = $3))
      order by seq desc
      limit $4),
    ${values[read].with}
    select 0 as kind, c.seq, c.id as key, ${checkpointColumns} from c
    union all
    ${values[read].rows}
    order by kind, seq desc`;
  // A checkpoint write is ONE autocommitted statement: the head-row claim or advance in a
  // data-modifying CTE, and the checkpoint insert selecting from it. The insert writes a row
  // only when the head row was claimed/advanced (`head` returned one), so the statement's
  // row count is 1 on success and 0 when `expectedLatestId` was not the latest. A unique
  // violation in the insert aborts the whole statement, head change included.
  //
  // The top-level head row (ns = '') is also the thread's record: the same statement writes
  // its graph ($9), status ($10), interrupts ($11) and metadata ($12, merged), so the
  // record cannot disagree with the latest checkpoint. For a subgraph's namespace they are
  // null. Times are the database's, cut to the millisecond that cursors carry.
  //
  // The channel versions this checkpoint wrote ($15…$19: channel, prev, keep, payload, base) go
  // in by the same statement, and only with it. Its `channels` and `versions` ($13, $14)
  // name the version each channel's value is in.
  const insertCheckpointFrom = `, stored as (
        insert into ${t.values} (thread_id, ns, channel, version, prev, keep, base, payload)
        select $1, $2, v.channel, $3, v.prev, v.keep, v.base, v.payload from head,
          unnest($15::text[], $16::text[], $17::integer[], $18::text[], $19::text[])
            v(channel, prev, keep, payload, base))
      insert into ${t.checkpoints}
        (thread_id, ns, id, parent_id, step, source, created_at, payload, channels, versions)
      select $1, $2, $3, $4::text, $5::integer, $6::text, $7::timestamptz, $8::text,
        $13::text[], $14::text[]
      from head`;
  // A run's last checkpoint may also end its claim (`putAndRelease`): the claim row of run
  // $n goes in the same statement, only if the checkpoint was written (`head` returned one).
  // Not for a thread's first checkpoint: a claim waiting on that release would find no head
  // row to lock (see `claim`), and read the thread as new.
  const releasing = (run: number) => `, released as (
        delete from ${t.claims} where thread_id = $1 and run_id = $${run}
          and exists (select 1 from head))
      `;
  const topNow = `case when $2 = '' then ${NOW_MS} end`;
  // Under READ COMMITTED an UPDATE blocked on the head row's lock re-evaluates its WHERE
  // against the row the other writer committed, so of two writers expecting the same
  // latest exactly one matches. No head row (new or deleted thread): nothing matches.
  // A checkpoint ends an `error` status: the thread has moved on.
  const advance = (check: string, release = "") => `with head as (
        update ${t.threads} set latest_id = $3, graph = coalesce($9::text, graph),
          status = $10::text, interrupts = $11::text, error = null,
          metadata = case when $12::jsonb is null then metadata else metadata || $12::jsonb end,
          updated_at = ${topNow}
        where thread_id = $1 and ns = $2 and latest_id = $20${check}
        returning 1)
      ${release}${insertCheckpointFrom}`;
  const keptVersionsStored = `
          and not exists (select 1 from unnest($21::text[], $22::text[]) r(channel, version)
            where not exists (select 1 from ${t.values} b where b.thread_id = $1 and b.ns = $2
              and b.channel = r.channel and b.version = r.version))`;
  const claimFirst = `with head as (
        insert into ${t.threads}
          (thread_id, ns, latest_id, graph, status, interrupts, metadata, created_at, updated_at)
        values ($1, $2, $3, $9::text, $10::text, $11::text,
          case when $2 = '' then coalesce($12::jsonb, '{}'::jsonb) end, ${topNow}, ${topNow})
        on conflict (thread_id, ns) do update set latest_id = excluded.latest_id,
          graph = excluded.graph, status = excluded.status, interrupts = excluded.interrupts,
          metadata = ${t.threads}.metadata || excluded.metadata, updated_at = excluded.updated_at
          where ${t.threads}.latest_id = ''
        returning 1)
      ${insertCheckpointFrom}`;
  return {
    // ON CONFLICT waits for a concurrent claim of the same (thread, ns) to end: if it
    // commits, this one claims nothing; only one first checkpoint of a thread wins. A head
    // row with no checkpoint yet (createThread, latest_id '') is taken over, keeping its
    // metadata and creation time.
    claimAndInsert: claimFirst,
    createThread: `insert into ${t.threads}
        (thread_id, ns, latest_id, status, interrupts, metadata, created_at, updated_at)
      values ($1, '', '', 'idle', '[]', $2::jsonb, ${NOW_MS}, ${NOW_MS})
      on conflict do nothing`,
    advanceAndInsert: advance(""),
    advanceAndInsertReleasing: advance("", releasing(21)),
    // A checkpoint that follows another than the latest (a fork, or time travel) keeps
    // versions of a checkpoint a prune in another process may have deleted since it was
    // read: each must still be stored ($21, $22), or nothing is written. One that follows
    // the latest needs no check: a prune keeps the latest and every version it reads.
    forkAndInsert: advance(keptVersionsStored),
    forkAndInsertReleasing: advance(keptVersionsStored, releasing(23)),
    latestId: `select latest_id from ${t.threads} where thread_id = $1 and ns = $2`,
    upsertWrite: `insert into ${t.writes}
        (thread_id, ns, checkpoint_id, task_id, node, payload, run_id)
      values ($1, $2, $3, $4, $5, $6, $7)
      on conflict (thread_id, ns, checkpoint_id, task_id)
      do update set node = excluded.node, payload = excluded.payload, run_id = excluded.run_id`,
    claimLatest,
    // A paused step (see Checkpointer.putPause), in one statement: the thread's record, if
    // $3 is still its latest top-level checkpoint, interrupted with interrupts $8; its
    // tasks' writes ($4…$7: task id, node, payload, run id) against checkpoint $3; and the
    // claim of run $9 (if given) ended. In that order (the lock order, store.ts): the claim
    // and the writes wait for `record` (a count never below 0, only its evaluation matters).
    putPause: `with record as (
        update ${t.threads} set status = 'interrupted', interrupts = $8::text, error = null,
          updated_at = ${NOW_MS}
        where thread_id = $1 and ns = '' and $2 = '' and latest_id = $3
        returning 1),
      pause as (
        insert into ${t.writes} (thread_id, ns, checkpoint_id, task_id, node, payload, run_id)
        select $1, $2, $3, w.task_id, w.node, w.payload, w.run_id
          from unnest($4::text[], $5::text[], $6::text[], $7::text[]) w(task_id, node, payload, run_id)
          where (select count(*) from record) >= 0
        on conflict (thread_id, ns, checkpoint_id, task_id)
        do update set node = excluded.node, payload = excluded.payload, run_id = excluded.run_id)
      delete from ${t.claims} where thread_id = $1 and run_id = $9::text
        and (select count(*) from record) >= 0`,
    // The writes of checkpoints $3 of (thread $1, ns $2), each checkpoint's in stored order.
    writesOf: `select checkpoint_id, task_id, payload from ${t.writes}
      where thread_id = $1 and ns = $2 and checkpoint_id = any($3::text[]) order by seq`,
    latestTuple: tuple("thread_id = $1 and ns = $2 order by seq desc limit 1", "one"),
    tupleById: tuple("thread_id = $1 and ns = $2 and id = $3", "one"),
    list: list("range"),
    // The same, following each chain link by link (see `walk` above).
    latestTupleWalk: tuple("thread_id = $1 and ns = $2 order by seq desc limit 1", "walk"),
    tupleByIdWalk: tuple("thread_id = $1 and ns = $2 and id = $3", "walk"),
    listWalk: list("walk"),
    // Inserted only while the thread's latest top-level checkpoint is the one expected
    // (none: no head row); an existing claim is taken over only once it has expired. A
    // claim that succeeds merges the run's metadata ($5) into the thread's record, if any.
    // Returns one row when claimed. The head row is locked before the claim row (the lock
    // order, store.ts), and for the update that merges the metadata, not `for share`: two
    // claims sharing it would each wait for the other to let it go. A claim that waited for
    // a run's last checkpoint and release (one transaction, `putAndRelease`) then sees that
    // checkpoint, not the statement's older snapshot.
    claim: `with head as (
        select latest_id from ${t.threads} where thread_id = $1 and ns = '' for no key update),
      claimed as (
        insert into ${t.claims} (thread_id, run_id, expires_at)
        select $1, $2, now() + $4::integer * interval '1 millisecond'
        where coalesce((select latest_id from head), '') = coalesce($3::text, '')
        on conflict (thread_id) do update
          set run_id = excluded.run_id, expires_at = excluded.expires_at
          where ${t.claims}.expires_at <= now()
        returning 1),
      merged as (
        update ${t.threads} set metadata = metadata || $5::jsonb
        where $5::jsonb is not null and thread_id = $1 and ns = ''
          and exists (select 1 from claimed))
      select 1 as claimed from claimed`,
    renewClaim: `insert into ${t.claims} (thread_id, run_id, expires_at)
      values ($1, $2, now() + $3::integer * interval '1 millisecond')
      on conflict (thread_id) do update
        set run_id = excluded.run_id, expires_at = excluded.expires_at
        where ${t.claims}.run_id = excluded.run_id or ${t.claims}.expires_at <= now()`,
    liveClaim: `select 1 from ${t.claims} where thread_id = $1 and expires_at > now()`,
    // Ends the run's claim; a failed run's error ($3, JSON) goes on the thread's record in
    // the same statement, only if this run still held the thread. With an error the head
    // row is locked before the claim row is deleted (the lock order, store.ts): `released`
    // waits for `head` (its count is never below 0, only its evaluation matters).
    releaseClaim: `with head as (
        select 1 from ${t.threads}
        where $3::text is not null and thread_id = $1 and ns = '' for no key update),
      released as (
        delete from ${t.claims} where thread_id = $1 and run_id = $2
          and (select count(*) from head) >= 0
        returning 1)
      update ${t.threads} set status = 'error', error = $3::text, updated_at = ${NOW_MS}
      where $3::text is not null and thread_id = $1 and ns = ''
        and exists (select 1 from released)`,
    getThread: `select ${recordColumns(t)} from ${t.threads} t
      where t.thread_id = $1 and t.ns = ''`,
    // The head row's latest id alone: a run's admission compares it, and the whole record
    // (two dates formatted, the claim looked up) costs PGlite about twice as much.
    latestCheckpointId: `select latest_id from ${t.threads} where thread_id = $1 and ns = ''`,
    updateThreadMetadata: `update ${t.threads} t set metadata = t.metadata || $2::jsonb,
        updated_at = ${NOW_MS}
      where t.thread_id = $1 and t.ns = ''
      returning ${recordColumns(t)}`,
    // A checkpoint's metadata patched (Checkpointer.patchCheckpointMetadata): its payload
    // read locked, merged in JavaScript (so its key order stays), and written back.
    checkpointPayload: `select payload from ${t.checkpoints}
      where thread_id = $1 and ns = $2 and id = $3 for update`,
    setCheckpointPayload: `update ${t.checkpoints} set payload = $4
      where thread_id = $1 and ns = $2 and id = $3`,
    // deleteThread's first statement: the thread's head rows locked (the top-level one
    // first), its claim deleted, then those head rows (the lock order, store.ts; the count
    // is never below 0, only its evaluation matters).
    deleteHeadsAndClaim: `with heads as (
        select ns from ${t.threads} where thread_id = $1 order by ns for update),
      unclaimed as (
        delete from ${t.claims} where thread_id = $1 and (select count(*) from heads) >= 0)
      delete from ${t.threads} where thread_id = $1 and ns in (select ns from heads)`,
    deleteWrites: `delete from ${t.writes} where thread_id = $1`,
    deleteCheckpoints: `delete from ${t.checkpoints} where thread_id = $1`,
    deleteValues: `delete from ${t.values} where thread_id = $1`,
    // Retention and copies (see Checkpointer.prune, pruneThreads, copyThread). Each runs in
    // a transaction that first holds its threads with a claim of its own ($2, a run id), so
    // no run starts on them meanwhile: a concurrent claimThread waits on the head row
    // until the transaction ends, and the hold is deleted before it commits. A live claim
    // of a run is left alone: those threads are not returned.
    hold: hold(t, "any"),
    // The same for a batch of stale threads (pruneThreads): only those whose head row it
    // locked, since one with none yet may get one while the batch is held.
    holdHeaded: hold(t, "headed"),
    unhold: `delete from ${t.claims} where thread_id = any($1::text[]) and run_id = $2`,
    // The latest $2 top-level checkpoints, and each subgraph namespace's latest: what
    // planPrune decides from (their metadata).
    pruneTop: `select id, parent_id, payload from ${t.checkpoints}
      where thread_id = $1 and ns = '' order by seq desc limit $2`,
    pruneNamespaceHeads: `select h.ns, c.id, c.parent_id, c.payload from ${t.threads} h
      join ${t.checkpoints} c on c.thread_id = h.thread_id and c.ns = h.ns and c.id = h.latest_id
      where h.thread_id = $1 and h.ns <> ''`,
    // Everything of the thread but the kept (ns, id) pairs ($2, $3). Writes first: they
    // would go with their checkpoints (on delete cascade), but are counted for the vacuum.
    pruneWrites: `delete from ${t.writes} w where w.thread_id = $1 and not exists (
        select 1 from unnest($2::text[], $3::text[]) k(ns, id)
        where k.ns = w.ns and k.id = w.checkpoint_id)`,
    pruneCheckpoints: `delete from ${t.checkpoints} c where c.thread_id = $1 and not exists (
        select 1 from unnest($2::text[], $3::text[]) k(ns, id) where k.ns = c.ns and k.id = c.id)`,
    // The versions no kept checkpoint reaches (through its chains) any more.
    pruneValues: `with recursive ${chains(`${t.checkpoints} c
          cross join lateral unnest(c.channels, c.versions) e(channel, version)
          cross join ${version("c.ns", "e.channel", "e.version", "b.ns, b.channel, b.version, b.prev")}
          where c.thread_id = $1`)}
      delete from ${t.values} b where b.thread_id = $1 and not exists (
        select 1 from k where k.ns = b.ns and k.channel = b.channel and k.version = b.version)`,
    pruneNamespaces: `delete from ${t.threads}
      where thread_id = $1 and ns <> '' and not (ns = any($2::text[]))`,
    // Rewinds (see Checkpointer.rewindThread), in a transaction holding the thread. The head
    // rows are locked before anything is deleted, so a put that did not claim the thread
    // waits and then fails; the top-level one first (the hold has it), then by namespace.
    lockHeads: `select ns from ${t.threads} where thread_id = $1 order by ns for update`,
    // The top-level checkpoint rewound to: its seq is where the cut is, in every namespace.
    rewindTarget: `select id, parent_id, payload, seq::text as seq from ${t.checkpoints}
      where thread_id = $1 and ns = '' and id = $2`,
    // Everything stored after seq $2. A version belongs to the checkpoint that wrote it (its
    // id), in one of that checkpoint's channels: a kept checkpoint never reads it.
    rewindWrites: `delete from ${t.writes} w using ${t.checkpoints} c
      where c.thread_id = $1 and c.seq > $2::bigint
        and w.thread_id = $1 and w.ns = c.ns and w.checkpoint_id = c.id`,
    rewindValues: `delete from ${t.values} b using ${t.checkpoints} c
        cross join lateral unnest(c.channels) e(channel)
      where c.thread_id = $1 and c.seq > $2::bigint
        and b.thread_id = $1 and b.ns = c.ns and b.channel = e.channel and b.version = c.id`,
    rewindCheckpoints: `delete from ${t.checkpoints} where thread_id = $1 and seq > $2::bigint`,
    // A stopped run's writes ($2) on the checkpoints kept.
    rewindRunWrites: `delete from ${t.writes} where thread_id = $1 and run_id = $2`,
    // Each subgraph namespace's head names its latest kept checkpoint; namespaces (and, after
    // a rewind to null, the thread's record) with none left lose their head row.
    rewindNamespaceHeads: `update ${t.threads} h set latest_id = l.id
      from (select distinct on (ns) ns, id from ${t.checkpoints}
        where thread_id = $1 and ns <> '' order by ns, seq desc) l
      where h.thread_id = $1 and h.ns = l.ns and h.latest_id <> l.id`,
    rewindEmptyHeads: `delete from ${t.threads} h where h.thread_id = $1 and not exists (
        select 1 from ${t.checkpoints} c where c.thread_id = $1 and c.ns = h.ns)`,
    // The writes kept on the checkpoint rewound to ($2), in the order they were stored.
    rewindTargetWrites: `select payload from ${t.writes}
      where thread_id = $1 and ns = '' and checkpoint_id = $2 order by seq`,
    // The record, as the put of its new latest ($2) would have written it (status $3,
    // interrupts $4); graph, metadata and createdAt stay.
    rewindRecord: `update ${t.threads} set latest_id = $2, status = $3::text,
        interrupts = $4::text, error = null, updated_at = ${NOW_MS}
      where thread_id = $1 and ns = ''`,
    // One batch of pruneThreads candidates for one status ($1) and graph ($6, if given),
    // after the keyset ($3, $4):
    // walks threads_by_status in order. `at` is the exact time, for the next batch's keyset.
    staleThreads: `select t.thread_id, t.updated_at::text as at from ${t.threads} t
      where t.ns = '' and t.status = $1::text and t.updated_at < $2::timestamptz
        and (t.updated_at, t.thread_id) > ($3::timestamptz, $4::text)
        and ($6::text is null or t.graph = $6::text)
        and not exists (select 1 from ${t.claims} c
          where c.thread_id = t.thread_id and c.expires_at > now())
      order by t.updated_at, t.thread_id
      limit $5`,
    // Of the held threads ($1), the ones still stale when deleted (a run may have written since).
    deleteStaleHeads: `delete from ${t.threads}
      where thread_id = any($1::text[]) and ns = '' and status = any($2::text[])
        and updated_at < $3::timestamptz
      returning thread_id`,
    deleteThreadsRows: `delete from ${t.threads} where thread_id = any($1::text[])`,
    deleteThreadsWrites: `delete from ${t.writes} where thread_id = any($1::text[])`,
    deleteThreadsCheckpoints: `delete from ${t.checkpoints} where thread_id = any($1::text[])`,
    deleteThreadsValues: `delete from ${t.values} where thread_id = any($1::text[])`,
    threadExists: `select 1 from ${t.threads} where thread_id = $1 and ($2::boolean or ns = '') limit 1`,
    // The copy's record is new: its times are the copy's (subgraph heads keep theirs, null).
    copyHeads: `insert into ${t.threads}
        (thread_id, ns, latest_id, graph, status, interrupts, error, metadata, created_at, updated_at)
      select $2, ns, latest_id, graph, status, interrupts, error, metadata,
        case when ns = '' then ${NOW_MS} end, case when ns = '' then ${NOW_MS} end
      from ${t.threads} where thread_id = $1`,
    copySource: `select ns, id, parent_id, payload, ${asJson("channels")}, ${asJson("versions")}, seq from ${t.checkpoints}
      where thread_id = $1 and seq > $2 order by seq limit $3`,
    // The rewritten payloads ($3…$5) in history order, so the copy's seq keeps each
    // namespace's order; the other columns come from the source rows as they are.
    copyCheckpoints: `insert into ${t.checkpoints}
        (thread_id, ns, id, parent_id, step, source, created_at, payload, channels, versions)
      select $2, c.ns, c.id, c.parent_id, c.step, c.source, c.created_at, p.payload, c.channels,
        c.versions
      from unnest($3::text[], $4::text[], $5::text[]) with ordinality p(ns, id, payload, ord)
      join ${t.checkpoints} c on c.thread_id = $1 and c.ns = p.ns and c.id = p.id
      order by p.ord`,
    copyWrites: `insert into ${t.writes} (thread_id, ns, checkpoint_id, task_id, node, payload, run_id)
      select $2, ns, checkpoint_id, task_id, node, payload, run_id from ${t.writes}
      where thread_id = $1 order by seq`,
    copyValues: `insert into ${t.values} (thread_id, ns, channel, version, prev, keep, base, payload)
      select $2, ns, channel, version, prev, keep, base, payload from ${t.values}
      where thread_id = $1`,
    // Run outside a transaction; only for a database without autovacuum (PGlite).
    vacuum: `vacuum ${t.threads}, ${t.checkpoints}, ${t.writes}, ${t.claims}, ${t.values}`,
  };
}

export type Statements = ReturnType<typeof statements>;

/** An array column as JSON text: read the same way through every driver. */
const asJson = (column: string) => `to_json(${column})::text as ${column.replace(/^\w+\./, "")}`;

/**
 * The hold statement (see `hold` in `statements`): the threads' head rows ($1) are locked
 * first, then their claims, each in thread id order (the lock order, store.ts; the count is
 * never below 0, only its evaluation matters). `headed`: only threads that have a head row.
 */
function hold(t: Tables, threads: "any" | "headed"): string {
  return `with heads as (
        select thread_id from ${t.threads} where thread_id = any($1::text[]) and ns = ''
        order by thread_id for update)
      insert into ${t.claims} (thread_id, run_id, expires_at)
      select id, $2, now() + interval '1 minute' from unnest($1::text[]) id
      where (select count(*) from heads) >= 0${
        threads === "headed" ? " and id in (select thread_id from heads)" : ""
      }
      order by id
      on conflict (thread_id) do update
        set run_id = excluded.run_id, expires_at = excluded.expires_at
        where ${t.claims}.expires_at <= now()
      returning thread_id`;
}

/** The database's time, cut to the millisecond: what a thread cursor can carry exactly. */
const NOW_MS = "date_trunc('milliseconds', now())";

/** The text of a `timestamptz` column as ISO-8601 UTC with milliseconds. */
const iso = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A thread record's columns (of the head row `t`); `busy` while a claim is live. */
function recordColumns(t: Tables): string {
  return `t.thread_id, t.latest_id, t.graph, t.status, t.interrupts, t.error,
      t.metadata::text as metadata, ${iso("t.created_at")} as created_at,
      ${iso("t.updated_at")} as updated_at,
      exists (select 1 from ${t.claims} c where c.thread_id = t.thread_id and c.expires_at > now())
        as busy`;
}

/**
 * The statuses a top-level head row stores: `busy` is read from a live claim, never stored.
 * Every statement that writes one writes one of these (a checkpoint's `storedStatusOf`,
 * `createThread`, `putPause`, a failed run's release, a rewind, a copy, and migration 3's
 * backfill), so a search without a status reads every thread by reading each of them.
 */
const STORED_STATUSES = ["idle", "interrupted", "error"] as const;

/**
 * The statement for one `searchThreads` page (one row more than the limit, to tell whether
 * another page follows). Filters become predicates only when given, so the planner sees
 * plain equalities. A search for a stored status walks the `threads_by_status` index in
 * order; one without a status walks it once per stored status, each walk stopping at a
 * page, and keeps the page's worth of the newest (or oldest) of them. No
 * index is keyed on `updated_at` alone: each checkpoint write moves it, and such an index
 * would take a new entry on every write (migration 7). Neither reads a checkpoint. `busy`
 * is a live claim; any other status is the stored one of a thread no run holds.
 */
export function searchThreadsQuery(
  t: Tables,
  search: ThreadSearch,
): { text: string; params: unknown[] } {
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const live = `exists (select 1 from ${t.claims} c
      where c.thread_id = t.thread_id and c.expires_at > now())`;
  const stored = search.status !== undefined && search.status !== "busy";
  const where = ["t.ns = ''"];
  if (search.status === "busy") where.push(live);
  else if (stored) where.push(`t.status = ${param(search.status)}::text`, `not ${live}`);
  if (search.graph !== undefined) where.push(`t.graph = ${param(search.graph)}::text`);
  if (search.metadata) {
    where.push(`t.metadata @> ${param(JSON.stringify(search.metadata))}::jsonb`);
  }
  const direction = search.order;
  if (search.after) {
    const at = param(search.after.updatedAt);
    const id = param(search.after.threadId);
    where.push(
      `(t.updated_at, t.thread_id) ${direction === "desc" ? "<" : ">"} (${at}::timestamptz, ${id}::text)`,
    );
  }
  const order = `order by t.updated_at ${direction}, t.thread_id ${direction}`;
  const limit = param(search.limit + 1);
  // A stored status is one walk of `threads_by_status`; `busy` starts from the live
  // claims (few: one per running run), found by their key and sorted.
  if (search.status !== undefined) {
    const text = `select ${recordColumns(t)} from ${t.threads} t
    where ${where.join(" and ")}
    ${order}
    limit ${limit}`;
    return { text, params };
  }
  // One walk per stored status, each to a page at most; the page is the first of their
  // union. The record's columns are made for that page only, not for every row walked.
  const walks = STORED_STATUSES.map(
    (status) => `(select t.* from ${t.threads} t
      where t.status = '${status}' and ${where.join(" and ")}
      ${order}
      limit ${limit})`,
  );
  const text = `select ${recordColumns(t)} from (
      select t.* from (
        ${walks.join("\n        union all\n        ")}) t
      ${order}
      limit ${limit}) t
    ${order}`;
  return { text, params };
}
