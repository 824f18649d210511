// The second process of actor-snapshot-file.ts: it reads the saved snapshot, continues the
// graph's actor from it with the answer, and prints the final state as JSON.
import { readFileSync } from "node:fs";
import { createActor, waitFor } from "xstate";
import { approvalGraph } from "./approval-graph.js";

const [file, answer] = process.argv.slice(2);
const snapshot = JSON.parse(readFileSync(file!, "utf8"));
const actor = createActor(approvalGraph.machine, { snapshot }).start();
if (!actor.getSnapshot().hasTag("interrupted")) throw new Error("the saved run is not paused");
actor.send({ type: "RESUME", resume: answer === "yes" });
const done = await waitFor(actor, (s) => s.status === "done");
process.stdout.write(JSON.stringify(done.output));
