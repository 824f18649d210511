// An app's own XState machine (an order workflow) invokes an approval graph as a child
// actor: it sees the graph pause, answers it with sendTo, and takes the graph's final
// state in onDone. No invoke()/resume() here: the graph is just another actor.
import assert from "node:assert/strict";
import { END, Graph, interrupt, START } from "stateweaver";
import { assign, createActor, sendTo, setup, waitFor } from "xstate";

const approval = new Graph({ name: "OrderApproval" })
  .addNode("assess", async (s) => ({ risk: s.total > 1000 ? "high" : "low" }))
  .addNode("approve", (s) => ({
    approved: interrupt<boolean>({ question: `Approve order ${s.orderId}?`, risk: s.risk }),
  }))
  .addEdge(START, "assess")
  .addEdge("assess", "approve")
  .addEdge("approve", END)
  .compile();

interface OrderContext {
  orderId: string;
  total: number;
  approved?: boolean;
}

const order = setup({
  types: {
    context: {} as OrderContext,
    events: {} as { type: "DECIDE"; approved: boolean },
  },
  actors: { approval: approval.machine },
}).createMachine({
  id: "order",
  context: { orderId: "A-17", total: 2400 },
  initial: "awaitingApproval",
  states: {
    awaitingApproval: {
      invoke: {
        id: "approval",
        src: "approval",
        input: ({ context }: { context: OrderContext }) => ({
          orderId: context.orderId,
          total: context.total,
        }),
        onDone: {
          target: "decided",
          actions: assign({ approved: ({ event }) => event.output.approved }),
        },
      },
      on: {
        DECIDE: {
          actions: sendTo("approval", ({ event }) => ({ type: "RESUME", resume: event.approved })),
        },
      },
    },
    decided: {
      always: [
        { guard: ({ context }) => context.approved === true, target: "shipped" },
        "cancelled",
      ],
    },
    shipped: { type: "final" },
    cancelled: { type: "final" },
  },
});

const app = createActor(order).start();
// The graph's pause is its snapshot: active, tagged "interrupted", its interrupts listed.
const child = app.getSnapshot().children.approval!;
const paused = await waitFor(child, (s) => s.hasTag("interrupted"));
const [pending] = paused.context.interrupts;
console.log("the approval graph waits at", pending.node, "for:", pending.value);
assert.deepEqual(pending.value, { question: "Approve order A-17?", risk: "high" });
assert.ok(app.getSnapshot().matches("awaitingApproval"));

app.send({ type: "DECIDE", approved: true });
const done = await waitFor(app, (s) => s.status === "done");
console.log("order:", done.value, done.context);
assert.equal(done.value, "shipped");
assert.equal(done.context.approved, true);
