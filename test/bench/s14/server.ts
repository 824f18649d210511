/**
 * S14's server, alone in a process of its own (test/bench/s14-breakdown.ts starts it): one
 * checkout's build (`<checkout>/dist`), hosting that checkout's question graph, on PGlite
 * in memory running its runs itself, or on PostgreSQL only queueing them (concurrency 0).
 *
 *   node --import tsx test/bench/s14/server.ts <checkout> pglite
 *   node --import tsx test/bench/s14/server.ts <checkout> postgres <url> <tablePrefix>
 *
 * Prints one JSON line `{ "url": … }` when it listens, then answers lines on stdin, each
 * with one JSON line: `mark` (its user and system CPU, GC time and time waited for a pooled connection so
 * far, µs), `profile` (starts V8's CPU
 * profiler), `unprofile <file>` (stops it and writes the profile there), `statements`
 * (on PGlite: the statements PGlite executed since the last `statements`, by text), `exit`.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join, resolve } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const [dir, setup, url, tablePrefix] = process.argv.slice(2);
if (!dir || (setup !== "pglite" && setup !== "postgres") || (setup === "postgres" && !url)) {
  console.error("usage: server.ts <checkout> pglite | <checkout> postgres <url> <tablePrefix>");
  process.exit(2);
}
const at = (p: string) => pathToFileURL(join(resolve(dir), p)).href;
// One checkout's build: its types are not this checkout's.
const checkpoint: any = await import(at("dist/src/checkpoint/index.js"));
const runs: any = await import(at("dist/src/runs/index.js"));
const serverModule: any = await import(at("dist/src/server/index.js"));
const { question } = await import(at("test/bench/graphs/question.ts"));

/**
 * Statements PGlite executed, by text (a Bind of a named statement, an unnamed Parse, a
 * simple query), with the CPU time PGlite spent in the exchanges that carried them (µs; an
 * exchange of several statements goes to its last, one of none to the last parsed).
 */
const pgliteStatements = new Map<string, { calls: number; us: number }>();
if (setup === "pglite") {
  const { PGlite } = await import("@electric-sql/pglite");
  const texts = new Map<string, string>();
  const cstring = (m: Uint8Array, at: number) => {
    const end = m.indexOf(0, at);
    return [Buffer.from(m.subarray(at, end)).toString("utf8"), end + 1] as const;
  };
  // `query()` sends a statement over several exchanges (parse, describe, bind and execute,
  // sync): those after the parse go to the statement it parsed.
  let unnamed = "(other)";
  const count = (message: Uint8Array): string => {
    let last = unnamed;
    for (let at = 0; at + 5 <= message.length; ) {
      const type = String.fromCharCode(message[at]!);
      const length = Buffer.from(message.buffer, message.byteOffset + at + 1, 4).readInt32BE(0);
      if (type === "P") {
        const [name, next] = cstring(message, at + 5);
        const [text] = cstring(message, next);
        if (name) texts.set(name, text);
        else {
          last = unnamed = text;
          tally(text).calls++;
        }
      } else if (type === "Q") {
        last = unnamed = cstring(message, at + 5)[0];
        tally(last).calls++;
      } else if (type === "B") {
        const [, next] = cstring(message, at + 5);
        const [name] = cstring(message, next);
        if (name) {
          last = texts.get(name) ?? name;
          tally(last).calls++;
        }
      }
      at += 1 + length;
    }
    return last;
  };
  const tally = (text: string) => {
    const known = pgliteStatements.get(text);
    if (known) return known;
    const t = { calls: 0, us: 0 };
    pgliteStatements.set(text, t);
    return t;
  };
  // Every exchange (query, execProtocol, their streams) goes through this one.
  const original = (PGlite.prototype as any).execProtocolRawSync;
  (PGlite.prototype as any).execProtocolRawSync = function (this: unknown, message: Uint8Array) {
    const text = count(message);
    // CPU time, not wall: on a loaded machine a wall clock counts the time descheduled.
    const start = process.cpuUsage();
    try {
      return original.call(this, message);
    } finally {
      const { user, system } = process.cpuUsage(start);
      tally(text).us += user + system;
    }
  };
}

/**
 * Time requests waited for a pooled PostgreSQL connection (`pg.Pool#connect`, which
 * `pool.query` goes through too), µs, and how many connects.
 */
const poolWait = { us: 0, connects: 0 };
if (setup === "postgres") {
  const { default: pg } = await import("pg");
  const connect = pg.Pool.prototype.connect as (...args: unknown[]) => unknown;
  // S14_POOL_MAX: every pool's size, for trying larger ones (pg-pool reads it per connect).
  const poolMax = Number(process.env.S14_POOL_MAX) || undefined;
  (pg.Pool.prototype as any).connect = function (
    this: { options: { max: number } },
    callback?: unknown,
  ) {
    if (poolMax) this.options.max = poolMax;
    const start = performance.now();
    const waited = () => {
      poolWait.us += (performance.now() - start) * 1000;
      poolWait.connects++;
    };
    if (typeof callback === "function") {
      return connect.call(this, (error: unknown, ...rest: unknown[]) => {
        waited();
        return callback(error, ...rest);
      });
    }
    return (connect.call(this) as Promise<unknown>).finally(waited);
  };
}

let gcUs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcUs += entry.duration * 1000;
}).observe({ entryTypes: ["gc"] });

const server =
  setup === "pglite"
    ? serverModule.createServer({
        graphs: { question },
        checkpointer: new checkpoint.PGliteCheckpointer("memory://"),
      })
    : serverModule.createServer({
        graphs: { question },
        checkpointer: new checkpoint.PostgresCheckpointer({ connectionString: url, tablePrefix }),
        queue: await runs.PostgresRunQueue.open({ connectionString: url, tablePrefix }),
        concurrency: 0,
      });
const listening = await server.listen({ port: 0 });
console.log(JSON.stringify({ url: listening.url }));

const session = new Session();
session.connect();
for await (const line of createInterface({ input: process.stdin })) {
  const [command, arg] = line.split(" ");
  if (command === "mark") {
    const { user, system } = process.cpuUsage();
    console.log(JSON.stringify({ userUs: user, systemUs: system, gcUs, poolWait }));
  } else if (command === "profile") {
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 200 });
    await session.post("Profiler.start");
    console.log(JSON.stringify({ profiling: true }));
  } else if (command === "unprofile") {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(arg!, JSON.stringify(profile));
    console.log(JSON.stringify({ written: arg }));
  } else if (command === "statements") {
    console.log(JSON.stringify({ statements: Object.fromEntries(pgliteStatements) }));
    pgliteStatements.clear();
  } else if (command === "exit") {
    break;
  }
}
session.disconnect();
await server.close();
process.exit(0);
