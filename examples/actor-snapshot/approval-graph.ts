// The graph both processes of actor-snapshot-file.ts compile: the same definition, so a
// snapshot one process saved fits the other's machine.
import { END, Graph, interrupt, START } from "stateweaver";

export const approvalGraph = new Graph({ name: "Refund" })
  .addNode("check", async (s) => ({ eligible: s.amount <= 500 }))
  .addNode("approve", (s) => ({
    approved: interrupt<boolean>({ question: `Refund ${s.amount} to ${s.customer}?` }),
  }))
  .addNode("pay", (s) => ({ paid: s.approved === true && s.eligible === true }))
  .addEdge(START, "check")
  .addEdge("check", "approve")
  .addEdge("approve", "pay")
  .addEdge("pay", END)
  .compile();
