/**
 * The terminal reviewer's parts, over the server's HTTP inbox API only: the client, the
 * table and thread views, the prompt loop, and escaping of model-written text.
 *
 * @example
 * import { InboxClient, Prompt, reviewSession } from "../inbox/terminal/index.js";
 */
export {
  type DecisionBody,
  InboxClient,
  type InboxItem,
  InboxRequestError,
  ServerUnreachableError,
  type ThreadView,
  type ToolReviewValue,
  type WireMessage,
} from "./inbox-client.js";
export {
  ARGS_PREVIEW_CHARS,
  ARGS_PREVIEW_LINES,
  actionBlock,
  argsAreLong,
  messageText,
  pendingTable,
  threadHeader,
} from "./pending-table.js";
export { Prompt } from "./prompt.js";
export { type ReviewSessionOptions, reviewSession } from "./review-session.js";
export { cell, json, printable, waitedFor } from "./terminal-text.js";
