// The ops agent of `npm start`: tickets about files, SQL and email, acted on inside a
// sandbox folder, with a different review policy per tool. The server loads `agent` and
// calls `seed` (see stateweaver.json); run this file directly for an offline walkthrough
// that decides every seeded ticket and checks what happened.
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Agent } from "stateweaver/agent";
import { chooseModel, createOpsAgent } from "./ops-agent/create-ops-agent.js";

export { chooseModel, createOpsAgent, type OpsAgentOptions } from "./ops-agent/create-ops-agent.js";
export { seed } from "./ops-agent/tickets.js";

const dataDir = resolve(process.env.STATEWEAVER_DATA_DIR ?? ".stateweaver");

/** The agent the server hosts as graph "ops"; the server gives it its store. */
export const agent: Agent = createOpsAgent({ dataDir, model: chooseModel(process.env) }).agent;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { walkthrough } = await import("./ops-agent/walkthrough.js");
  await walkthrough();
}
