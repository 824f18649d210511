// The tickets the demo seeds on first start, so the inbox has real reviews waiting.
import { randomUUID } from "node:crypto";
import type { CompiledGraph } from "stateweaver";
import type { Agent } from "stateweaver/agent";
import { message } from "stateweaver/models";

/**
 * One ops ticket: what its thread is started with, and the title kept in its metadata.
 *
 * @example
 * const ticket: Ticket = { title: "Report", text: "Run the monthly report SQL." };
 */
export interface Ticket {
  title: string;
  text: string;
}

/** The seeded tickets; each stops at a different kind of review. */
export const DEMO_TICKETS: readonly Ticket[] = [
  { title: "Clean up temp files", text: "Clean up the temp files in the sandbox." },
  { title: "Monthly report", text: "Run the monthly report SQL for November." },
  { title: "Backup failure", text: "Email the on-call that last night's backup failed." },
  { title: "Disk almost full", text: "The disk is almost full, please free some space." },
];

/**
 * Starts a ticket on a new thread of `agent` and runs it until it pauses or ends.
 *
 * @example
 * const { threadId } = await startTicket(agent, DEMO_TICKETS[0]!);
 */
export async function startTicket(agent: Pick<Agent, "invoke">, ticket: Ticket) {
  const threadId = randomUUID();
  const result = await agent.invoke(
    { messages: [message.user(ticket.text)] },
    { config: { configurable: { thread_id: threadId } }, metadata: { ticket: ticket.title } },
  );
  return { threadId, result };
}

/**
 * Starts the demo tickets on `graphs.ops` when it has no thread yet (the first start), so
 * the inbox opens on real pending reviews. Later starts leave the threads as they are.
 *
 * @example
 * await seed({ ops: agent }); // the server calls this with its own graphs
 */
export async function seed(graphs: Readonly<Record<string, CompiledGraph<any, any>>>) {
  const ops = graphs.ops;
  if (!ops) throw new Error('seed() needs the "ops" graph; stateweaver.json names it "ops".');
  const existing = await ops.threads.search({ limit: 1 });
  if (existing.threads.length > 0) return [];
  const started = [];
  for (const ticket of DEMO_TICKETS) started.push(await startTicket(ops, ticket));
  return started;
}
