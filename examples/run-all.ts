// Runs every example in its own process; any failed assertion fails the whole run.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const examples = readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && f !== "run-all.ts")
  .sort();
let failed = 0;
for (const file of examples) {
  const started = Date.now();
  const run = spawnSync(
    process.execPath,
    ["--conditions=source", "--import", "tsx", `${dir}${file}`],
    {
      encoding: "utf8",
    },
  );
  // A warning (an XState dev warning included) fails the example too: examples show clean runs.
  const ok = run.status === 0 && run.stderr === "";
  if (!ok) failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${file} (${Date.now() - started} ms)`);
  if (!ok) console.log(run.stdout + run.stderr);
}
console.log(`examples: ${examples.length - failed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
