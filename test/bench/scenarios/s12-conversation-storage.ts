/**
 * S12: what a conversation stores. One node appends a 1 KB message per step (random text,
 * so nothing compresses it), run to steps 10, 100 and 500 by both libraries on the local
 * PostgreSQL: ours through `PostgresCheckpointer`, LangGraph.js through its `PostgresSaver`
 * (`@langchain/langgraph-checkpoint-postgres`). At each mark: bytes stored (the payload
 * columns of every row of the thread, and the tables' size on disk), the time of a step
 * (node + checkpoint write; both runs with `durability: "sync"`, so the write is in it)
 * and of reading the latest checkpoint. `ours_us`/`peer_us` are the bytes at step 500, so
 * the ratio is ours over theirs (target ≤ 0.1); ours must also stay within 2× the
 * messages' own bytes. Needs STATEWEAVER_PG_URL.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { Annotation, END as LG_END, START as LG_START, StateGraph } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { END, Graph, START } from "stateweaver";
import { PostgresCheckpointer } from "stateweaver/checkpoint";
import { median } from "../measure.js";
import { check, result, round, type Scenario } from "../scenario.js";

export const MARKS = [10, 100, 500] as const;
export const TARGET = 0.1;

type Message = { id: string; role: string; content: string };
const message = (turn: number): Message => ({
  id: `m${turn}`,
  role: "ai",
  content: randomBytes(768).toString("base64"), // 1,024 characters
});

/** Step start times, for the per-step cost. */
type Clock = number[];

function oursGraph(store: PostgresCheckpointer, clock: Clock) {
  type Chat = { messages: Message[]; turn: number; until: number };
  return new Graph<Chat>({ name: "Chat" })
    .addReducer("messages", (a: Message[] = [], b: Message[]) => [...a, ...b])
    .addNode("reply", (s) => {
      clock.push(performance.now());
      return { turn: s.turn + 1, messages: [message(s.turn)] };
    })
    .addEdge(START, "reply")
    .addConditionalEdges("reply", (s) => (s.turn < s.until ? "reply" : END))
    .compile({ checkpointer: store });
}

const Chat = Annotation.Root({
  messages: Annotation<Message[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  turn: Annotation<number>,
  until: Annotation<number>,
});

function theirGraph(saver: PostgresSaver, clock: Clock) {
  return new StateGraph(Chat)
    .addNode("reply", (s) => {
      clock.push(performance.now());
      return { turn: s.turn + 1, messages: [message(s.turn)] };
    })
    .addEdge(LG_START, "reply")
    .addConditionalEdges("reply", (s) => (s.turn < s.until ? "reply" : LG_END))
    .compile({ checkpointer: saver });
}

interface Mark {
  bytes: number;
  diskBytes: number;
  stepUs: number;
  readUs: number;
}

/** The median gap between step starts over the last `n` steps of a segment. */
function stepUs(clock: Clock, n = 10): number {
  const gaps: number[] = [];
  for (let i = Math.max(1, clock.length - n); i < clock.length; i++) {
    gaps.push((clock[i]! - clock[i - 1]!) * 1000);
  }
  return median(gaps);
}

async function timeReads(read: () => Promise<unknown>, n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await read();
    times.push((performance.now() - t) * 1000);
  }
  return median(times);
}

export const s12: Scenario = {
  id: "S12",
  title: "conversation storage: 1 KB/step, ours vs PostgresSaver (bytes, step, read)",
  async run({ quick, log }) {
    const url = process.env.STATEWEAVER_PG_URL;
    check(url !== undefined, "S12 needs STATEWEAVER_PG_URL (the local PostgreSQL)", url);
    const marks = quick ? MARKS.slice(0, 2) : MARKS;
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const tag = randomUUID().slice(0, 8);
    const prefix = `bench_s12_${tag}_`;
    const schema = `bench_s12_${tag}`;
    await pool.query(`create schema ${schema}`);
    const store = new PostgresCheckpointer({ pool, tablePrefix: prefix });
    const saver = new PostgresSaver(pool, undefined, { schema });
    await saver.setup();
    const ourTables = ["checkpoints", "channel_values", "writes", "threads"].map(
      (t) => `${prefix}${t}`,
    );
    try {
      const oursClock: Clock = [];
      const theirClock: Clock = [];
      const ours = oursGraph(store, oursClock);
      const theirs = theirGraph(saver, theirClock);
      const config = { configurable: { thread_id: "s12" } };
      const rows: Array<{ step: number; ours: Mark; theirs: Mark; messageBytes: number }> = [];
      let started = false;
      for (const until of marks) {
        oursClock.length = 0;
        theirClock.length = 0;
        const input = started ? { until } : { messages: [], turn: 0, until };
        const done = await ours.invoke(input, {
          config,
          recursionLimit: 10_000,
          durability: "sync",
        });
        check(done.state.turn === until, "S12 ours reached the mark", done.state.turn);
        const state = await theirs.invoke(input, {
          ...config,
          recursionLimit: 10_000,
          durability: "sync",
        });
        check(state.turn === until, "S12 theirs reached the mark", state.turn);
        started = true;
        const messageBytes = JSON.stringify(done.state.messages).length;

        const sum = async (sql: string) => Number((await pool.query(sql)).rows[0].n);
        const disk = async (tables: string[]) =>
          sum(`select ${tables.map((t) => `pg_total_relation_size('${t}')`).join(" + ")} as n`);
        const oursBytes =
          (await sum(
            `select coalesce(sum(octet_length(payload) + coalesce(pg_column_size(channels) + pg_column_size(versions), 0)), 0) as n from ${prefix}checkpoints`,
          )) +
          (await sum(
            `select coalesce(sum(octet_length(payload)), 0) as n from ${prefix}channel_values`,
          )) +
          (await sum(`select coalesce(sum(octet_length(payload)), 0) as n from ${prefix}writes`));
        const theirBytes =
          (await sum(
            `select coalesce(sum(octet_length(checkpoint::text) + octet_length(metadata::text)), 0) as n from ${schema}.checkpoints`,
          )) +
          (await sum(
            `select coalesce(sum(coalesce(octet_length(blob), 0)), 0) as n from ${schema}.checkpoint_blobs`,
          )) +
          (await sum(
            `select coalesce(sum(coalesce(octet_length(blob), 0)), 0) as n from ${schema}.checkpoint_writes`,
          ));
        const theirTables = ["checkpoints", "checkpoint_blobs", "checkpoint_writes"].map(
          (t) => `${schema}.${t}`,
        );
        const reads = quick ? 5 : 20;
        const oursRead = await timeReads(() => store.getLatest("s12"), reads);
        const theirRead = await timeReads(() => saver.getTuple(config), reads);
        rows.push({
          step: until,
          messageBytes,
          ours: {
            bytes: oursBytes,
            diskBytes: await disk(ourTables),
            stepUs: stepUs(oursClock),
            readUs: oursRead,
          },
          theirs: {
            bytes: theirBytes,
            diskBytes: await disk(theirTables),
            stepUs: stepUs(theirClock),
            readUs: theirRead,
          },
        });
        log(`  step ${until}: ours ${oursBytes} B, theirs ${theirBytes} B`);
      }
      const last = rows.at(-1)!;
      const extra: Record<string, number | string> = {};
      for (const r of rows) {
        extra[`step${r.step}_bytes`] =
          `${r.ours.bytes} vs ${r.theirs.bytes} (messages ${r.messageBytes})`;
        extra[`step${r.step}_disk_kb`] =
          `${round(r.ours.diskBytes / 1024)} vs ${round(r.theirs.diskBytes / 1024)}`;
        extra[`step${r.step}_step_us`] = `${round(r.ours.stepUs)} vs ${round(r.theirs.stepUs)}`;
        extra[`step${r.step}_read_us`] = `${round(r.ours.readUs)} vs ${round(r.theirs.readUs)}`;
      }
      const perMessage = last.ours.bytes / last.messageBytes;
      return result({
        scenario: "S12",
        title: s12.title,
        ours_us: last.ours.bytes,
        peer_us: last.theirs.bytes,
        target: TARGET,
        peer: "LangGraph.js PostgresSaver, same conversation (figures are bytes, not µs)",
        met: last.ours.bytes / last.theirs.bytes <= TARGET && perMessage <= 2,
        extra,
        checks: [
          {
            what: `bytes stored / messages' bytes at step ${last.step}`,
            value: round(perMessage, 2),
            target: 2,
            met: perMessage <= 2,
            detail: `${last.ours.bytes} B for ${last.messageBytes} B of messages`,
          },
        ],
      });
    } finally {
      await store.close();
      for (const t of [...ourTables, `${prefix}claims`, `${prefix}schema_version`]) {
        await pool.query(`drop table if exists ${t} cascade`);
      }
      await pool.query(`drop schema if exists ${schema} cascade`);
      await pool.end();
    }
  },
};
