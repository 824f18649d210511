/**
 * `stateweaver/agent`: tool-calling agents built as graphs, middleware around their loop,
 * and human review of tool calls.
 *
 * @example
 * import { createAgent, defineAgent, humanInTheLoop, HITL, subagent, asyncSubagent } from "stateweaver/agent";
 */

export { AgentConfigError, InvalidResumeError, NotAReviewError } from "../errors/index.js";
export {
  type AsyncSubagentSpec,
  type AsyncTaskUpdateStrategy,
  asyncSubagent,
  type LocalAsyncSubagentSpec,
  type RemoteAsyncSubagentSpec,
} from "./async-subagent.js";
export type { PendingReview } from "./async-subagent-backend.js";
export { type AsyncTask, type AsyncTaskStatus, mergeAsyncTasks } from "./async-subagent-state.js";
export { ASYNC_TASK_TOOLS } from "./async-subagent-tools.js";
export { type Agent, type AgentOptions, createAgent } from "./create-agent.js";
export {
  type AgentDefinition,
  type DefinedAgent,
  type DefinedAgentCallOptions,
  defineAgent,
} from "./define-agent.js";
export { type HumanInTheLoopOptions, humanInTheLoop } from "./human-in-the-loop.js";
export { invokeModel } from "./invoke-model.js";
export { type MessagesState, messagesGraph } from "./messages-graph.js";
export {
  type AgentHook,
  type AgentRuntime,
  defineMiddleware,
  type HookResult,
  type Middleware,
  type ModelRequest,
  type ToolCallRequest,
} from "./middleware.js";
export {
  type ActionRequest,
  type ApproveDecision,
  DECISION_TYPES,
  type DeadlineExpiry,
  type DecisionType,
  type EditDecision,
  HITL,
  type InterruptLike,
  type RejectDecision,
  type RespondDecision,
  type ReviewConfig,
  type ReviewDeadline,
  type ReviewDecision,
  type ReviewerRule,
  type ReviewerRules,
  type ReviewRequest,
  type ReviewResume,
  type ToolReview,
} from "./review.js";
export { parseDuration } from "./review-deadline.js";
export type {
  InterruptOnConfig,
  ReviewDeadlinePolicy,
  ReviewPolicy,
  ToolCallDescription,
  ToolCallPredicate,
} from "./review-policy.js";
export {
  type Reviewer,
  type ReviewerRuleOption,
  type ReviewersOption,
  reviewRefusal,
} from "./review-rights.js";
export { type AgentInput, type AgentState, addMessages } from "./state.js";
export { type SubagentSpec, subagent } from "./subagent.js";
export { toolNode, toolsCondition } from "./tool-node.js";
