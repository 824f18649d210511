// Builds the ops agent from its parts: tools on a sandbox, review policies, a model.
import { join } from "node:path";
import { createAgent } from "stateweaver/agent";
import type { Checkpointer } from "stateweaver/checkpoint";
import { type ChatModel, initChatModel } from "stateweaver/models";
import { opsReviewPolicies } from "./review-policies.js";
import { Sandbox } from "./sandbox.js";
import { scriptedOpsModel } from "./scripted-model.js";
import { SqlDatabase } from "./sql-database.js";
import { opsTools } from "./tools.js";

const SYSTEM_PROMPT = `You are an ops agent working on tickets. You act only through your tools, on a sandbox folder (paths are relative to it) and an orders database. Look before you act: list or read files before removing them. When a ticket is unclear, ask with ask_user. Some calls are reviewed by a person, who may approve, edit, reject or answer them; follow their answer. Finish with a short summary of what was done.`;

/**
 * What the ops agent is built from. `dataDir` holds the sandbox (`<dataDir>/sandbox`) and
 * the orders database (`<dataDir>/orders`); without `model` the scripted offline model is used.
 *
 * @example
 * const options: OpsAgentOptions = { dataDir: "./.stateweaver", checkpointer: new MemoryCheckpointer() };
 */
export interface OpsAgentOptions {
  dataDir: string;
  model?: ChatModel;
  checkpointer?: Checkpointer;
}

/**
 * Builds the ops agent (graph name `"ops"`). `sandbox` and `database` are what its tools
 * act on, for callers that want to look at them afterwards.
 *
 * @example
 * const { agent, sandbox } = createOpsAgent({ dataDir: tmp, checkpointer: new MemoryCheckpointer() });
 */
export function createOpsAgent(options: OpsAgentOptions) {
  const sandbox = new Sandbox(join(options.dataDir, "sandbox"));
  const database = new SqlDatabase(join(options.dataDir, "orders"));
  const agent = createAgent({
    name: "ops",
    model: options.model ?? scriptedOpsModel(),
    tools: opsTools({ sandbox, database }),
    systemPrompt: SYSTEM_PROMPT,
    interruptOn: opsReviewPolicies,
    checkpointer: options.checkpointer,
  });
  return { agent, sandbox, database };
}

/**
 * The model the demo runs on: OpenAI when OPENAI_API_KEY is set, else Anthropic when
 * ANTHROPIC_API_KEY is, else the scripted model. OPS_AGENT_MODEL (`"<provider>:<model>"`)
 * picks another model of a provider whose key is set.
 *
 * @example
 * chooseModel({}).provider; // "fake"
 */
export function chooseModel(env: Record<string, string | undefined>): ChatModel {
  const keys: Record<string, string | undefined> = {
    openai: env.OPENAI_API_KEY,
    anthropic: env.ANTHROPIC_API_KEY,
  };
  const id =
    env.OPS_AGENT_MODEL ||
    (keys.openai ? "openai:gpt-5.4" : keys.anthropic ? "anthropic:claude-sonnet-4-5" : undefined);
  if (id === undefined) return scriptedOpsModel();
  const apiKey = keys[id.slice(0, id.indexOf(":"))];
  return initChatModel(id, apiKey === undefined ? {} : { apiKey });
}
