/**
 * `stateweaver/models`: messages, tools, and chat models (OpenAI, Anthropic, scripted fake).
 *
 * @example
 * import { initChatModel, message, tool, runToolCall } from "stateweaver/models";
 */

export { ModelConfigError, ModelError, StructuredOutputError } from "../errors/index.js";
export { AnthropicChatModel, type AnthropicChatModelOptions } from "./anthropic.js";
export type { ChatModel, ChatModelCallOptions, ChatModelChunk } from "./chat-model.js";
export {
  FakeChatModel,
  type FakeChatModelCall,
  type FakeReply,
  type FakeResponse,
  type FakeToolCall,
} from "./fake.js";
export {
  type ChatModelProvider,
  chatModelProviders,
  initChatModel,
} from "./init-chat-model.js";
export { initEmbeddings } from "./init-embeddings.js";
export {
  type AssistantMessage,
  isAssistantMessage,
  isSystemMessage,
  isToolMessage,
  isUserMessage,
  type Message,
  message,
  type SystemMessage,
  type TokenUsage,
  type ToolCall,
  type ToolMessage,
  type UserMessage,
} from "./message.js";
export { OpenAIChatModel, type OpenAIChatModelOptions } from "./openai.js";
export { OpenAIEmbeddings, type OpenAIEmbeddingsOptions } from "./openai-embeddings.js";
export type { ProviderOptions } from "./provider-options.js";
export {
  isRemoveMessage,
  REMOVE_ALL_MESSAGES,
  type RemoveMessage,
  removeMessage,
} from "./remove-message.js";
export { answerTool, type ResponseFormat } from "./response-format.js";
export { type RunToolCallOptions, runToolCall, type ToolCallRuntime } from "./run-tool-call.js";
export { replyIdInTask, streamedInRun } from "./streamed-call.js";
export {
  type StructuredModel,
  type StructuredOutputOptions,
  withStructuredOutput,
} from "./structured-output.js";
export {
  type JsonSchema,
  type Tool,
  type ToolDefinition,
  type ToolRuntime,
  type ToolSchema,
  tool,
} from "./tool.js";
