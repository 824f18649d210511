/**
 * Preloaded into S14's `stateweaver worker` processes by `s14-breakdown.ts --profile`: the
 * first SIGUSR2 starts V8's CPU profiler, the second stops it and writes the profile to
 * `$S14_WORKER_PROFILE` (then prints `profiled` on stderr), so the profile covers the burst
 * alone, not start-up and the pauses.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";

const file = process.env.S14_WORKER_PROFILE;
if (file) {
  const session = new Session();
  session.connect();
  let on = false;
  process.on("SIGUSR2", () => {
    void (async () => {
      if (!on) {
        on = true;
        await session.post("Profiler.enable");
        await session.post("Profiler.setSamplingInterval", { interval: 200 });
        await session.post("Profiler.start");
        process.stderr.write("profiling\n");
        return;
      }
      on = false;
      const { profile } = await session.post("Profiler.stop");
      writeFileSync(file, JSON.stringify(profile));
      process.stderr.write("profiled\n");
    })();
  });
}
