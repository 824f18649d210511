// A graph actor on a thread: an XState actor of `graph.machineFor(config)` runs the refund
// graph, pauses, and stores the pause on its thread, where the inbox query finds it and
// `graph.invoke(new Command({ resume }))` answers it. Then the other way round: a thread
// `invoke` paused is continued by an actor made for it.
import assert from "node:assert/strict";
import { Command, whenSaved } from "stateweaver";
import { PGliteCheckpointer } from "stateweaver/checkpoint";
import { createActor, waitFor } from "xstate";
import { approvalGraph } from "./actor-snapshot/approval-graph.js";

const checkpointer = new PGliteCheckpointer("memory://");
const graph = approvalGraph.withCheckpointer(checkpointer);

// 1. The actor pauses; the thread shows the pause; invoke answers it.
const refund1 = { configurable: { thread_id: "refund-1" } };
const actor = createActor(await graph.machineFor(refund1), {
  input: { customer: "ada@example.com", amount: 120 },
}).start();
await waitFor(actor, (s) => s.hasTag("interrupted"));
await whenSaved(actor); // the actor stores its checkpoints in the background
const inbox = await checkpointer.searchThreads({ status: "interrupted" });
console.log(
  "waiting for a person:",
  inbox.threads.map((t) => t.threadId),
);
assert.deepEqual(
  inbox.threads.map((t) => t.threadId),
  ["refund-1"],
);
actor.stop();
const answered = await graph.invoke(new Command({ resume: true }), { config: refund1 });
console.log("refund-1, answered by invoke:", answered.state);
assert.equal(answered.status, "done");
assert.deepEqual(answered.state, {
  customer: "ada@example.com",
  amount: 120,
  eligible: true,
  approved: true,
  paid: true,
});

// 2. invoke pauses; an actor made for the thread shows the pause and answers it.
const refund2 = { configurable: { thread_id: "refund-2" } };
await graph.invoke({ customer: "bob@example.com", amount: 900 }, { config: refund2 });
const continued = createActor(await graph.machineFor(refund2)).start();
assert.equal(continued.getSnapshot().hasTag("interrupted"), true);
console.log("refund-2 asks:", continued.getSnapshot().context.interrupts[0].value);
continued.send({ type: "RESUME", resume: false });
const done = await waitFor(continued, (s) => s.status === "done");
await whenSaved(continued);
console.log("refund-2, answered by the actor:", done.output);
assert.deepEqual(done.output, {
  customer: "bob@example.com",
  amount: 900,
  eligible: false,
  approved: false,
  paid: false,
});
assert.deepEqual((await graph.getState(refund2)).values, done.output);
assert.equal((await checkpointer.getThread("refund-2"))?.status, "idle");

await checkpointer.close();
