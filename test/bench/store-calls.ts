/**
 * The store calls one S3 cycle (`invoke` to the pause, then `resume`) makes on
 * `PGliteCheckpointer` (`memory://`), counted and timed call by call through a `Proxy`
 * around the store, for one or more builds (each checkout's `dist/`):
 *
 *   npm run -s build    # in each checkout
 *   node --import tsx test/bench/store-calls.ts /tmp/base . --cycles 1000 --warmup 300
 *
 * Prints, per build and store method: calls per cycle, the median µs of one call, and µs
 * per cycle (the call's mean times its calls per cycle); then the whole cycle's median.
 */
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { checkoutArgs } from "./checkout-args.js";
import * as ours from "./graphs/ours.js";
import { median } from "./measure.js";

const { dirs, option } = checkoutArgs(
  "usage: store-calls.ts <checkout> [<checkout> …] [--cycles 1000] [--warmup 300]",
);
const cycles = Number(option("--cycles") ?? 1000);
const warmup = Number(option("--warmup") ?? 300);

/** One build's module, loaded by path (its types are not this checkout's). */
type Module = any;

for (const dir of dirs) {
  const at = (p: string) => pathToFileURL(join(resolve(dir), "dist/src", p)).href;
  const core: Module = await import(at("index.js"));
  const checkpoint: Module = await import(at("checkpoint/index.js"));
  const store = new checkpoint.PGliteCheckpointer("memory://");
  const times = new Map<string, number[]>();
  let counting = false;
  const watched = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function" || name === "constructor") return value;
      return async (...callArgs: unknown[]) => {
        const t0 = performance.now();
        try {
          return await value.apply(target, callArgs);
        } finally {
          if (counting) {
            const list = times.get(String(name)) ?? [];
            list.push((performance.now() - t0) * 1000);
            times.set(String(name), list);
          }
        }
      };
    },
  });
  const graph = ours.approval(watched, core);
  let thread = 0;
  const cycle = async () => {
    const config = { configurable: { thread_id: `calls-${thread++}` } };
    const paused = await graph.invoke({ details: "x" }, { config });
    if (paused.status !== "interrupted") throw new Error("S3 did not pause");
    const done = await graph.resume(true, { config });
    if (done.status !== "done" || done.state.approved !== true) throw new Error("S3 resumed wrong");
  };
  for (let i = 0; i < warmup; i++) await cycle();
  counting = true;
  const whole: number[] = [];
  for (let i = 0; i < cycles; i++) {
    const t0 = performance.now();
    await cycle();
    whole.push((performance.now() - t0) * 1000);
  }
  await store.close();
  console.log(`\n${dir}: ${cycles} S3 cycles on PGlite after ${warmup} of warm-up`);
  console.log("store call        per cycle  median µs  µs per cycle");
  let calls = 0;
  for (const [name, list] of [...times].sort((x, y) => y[1].length - x[1].length)) {
    const per = list.length / cycles;
    calls += per;
    const mean = list.reduce((a, b) => a + b, 0) / list.length;
    console.log(
      `${name.padEnd(16)} ${per.toFixed(2).padStart(10)} ${median(list).toFixed(0).padStart(10)} ${(mean * per).toFixed(0).padStart(13)}`,
    );
  }
  console.log(`${"calls".padEnd(16)} ${calls.toFixed(2).padStart(10)}`);
  console.log(
    `${"the cycle".padEnd(16)} ${"".padStart(10)} ${median(whole).toFixed(0).padStart(10)}`,
  );
}
