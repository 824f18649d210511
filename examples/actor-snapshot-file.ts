// Snapshot-driven resume: one process runs a graph's actor until it pauses and saves
// `getPersistedSnapshot()` (plain JSON) to a file; a second process (spawned here)
// restores the actor from that file with createActor(graph.machine, { snapshot }),
// answers the pause, and finishes the run.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createActor, waitFor } from "xstate";
import { approvalGraph } from "./actor-snapshot/approval-graph.js";

const actor = createActor(approvalGraph.machine, {
  input: { customer: "ada@example.com", amount: 120 },
}).start();
const paused = await waitFor(actor, (s) => s.hasTag("interrupted"));
console.log(
  "paused at",
  paused.context.interrupts[0].node,
  "asking:",
  paused.context.interrupts[0].value,
);

const dir = mkdtempSync(join(tmpdir(), "stateweaver-actor-"));
const file = join(dir, "refund.json");
writeFileSync(file, JSON.stringify(actor.getPersistedSnapshot()));
actor.stop();

try {
  const resume = fileURLToPath(new URL("./actor-snapshot/resume.ts", import.meta.url));
  // Another Node process, started the way this one was (tsx, the same import conditions).
  const run = spawnSync(process.execPath, [...process.execArgv, resume, file, "yes"], {
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stderr, "");
  const state = JSON.parse(run.stdout);
  console.log("the second process finished with:", state);
  assert.deepEqual(state, {
    customer: "ada@example.com",
    amount: 120,
    eligible: true,
    approved: true,
    paid: true,
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
