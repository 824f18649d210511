/**
 * The JSON the inbox reads and sends, as /work/inbox-api.md describes it (see docs/inbox.md).
 * Kept here rather than imported from the server so the browser bundle has no Node types.
 */

export type DecisionType = "approve" | "edit" | "reject" | "respond";
export type ItemKind = "tool_review" | "interrupt" | "breakpoint";

export interface ActionRequest {
  id: string;
  name: string;
  args: Record<string, unknown>;
  description?: string;
}

export interface ReviewConfig {
  actionName: string;
  allowedDecisions: DecisionType[];
  argsSchema?: JsonSchema;
  /** How many different people must approve before the call runs (absent: one). */
  approvals?: number;
}

/** One approval of a review that needs several. */
export interface Approval {
  identity: string;
  displayName: string;
  authenticatedBy: "auth_handler" | "shared_token";
  approvedAt: string;
}

/** The JSON Schema subset the edit form understands; anything else is edited as JSON. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  items?: JsonSchema;
  description?: string;
  title?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  anyOf?: JsonSchema[];
  default?: unknown;
  additionalProperties?: boolean | JsonSchema;
}

export interface InboxItem {
  threadId: string;
  graphId: string;
  interruptId: string;
  kind: ItemKind;
  node: string;
  ns: string[] | string;
  value: unknown;
  checkpointId: string;
  waitingSince: string;
  threadMetadata: Record<string, unknown>;
  summary: string;
  /** The review's deadline (the list is sorted by it, soonest first), or null. */
  deadline?: { at: string; onExpiry: unknown } | null;
  /** The group a passed deadline handed the review to, or null. */
  reviewGroup?: string | null;
  /** A review needing several approvers: how many, and who approved so far; else null. */
  approvals?: { required: number; approvedBy: Approval[]; answer: unknown } | null;
  /** Per action, the decisions the signed-in person may not take, with the reason (thread page). */
  refused?: Array<Partial<Record<DecisionType, string>>>;
}

export interface InboxList {
  items: InboxItem[];
  counts: { total: number; byGraph: Record<string, number> };
  nextCursor: string | null;
}

export type ReviewDecision =
  | { type: "approve" }
  | { type: "edit"; editedAction: { name: string; args: Record<string, unknown> } }
  | { type: "reject"; message?: string }
  | { type: "respond"; message: string };

export interface Decision {
  interruptId: string;
  checkpointId: string;
  threadId: string;
  reviewer: string;
  /** How the server knew the reviewer: `shared_token` means a name they typed, unverified. */
  authenticatedBy?: "auth_handler" | "shared_token";
  decidedAt: string;
  waitedMs: number;
  answer: unknown;
  proposed?: ActionRequest[];
  runId: string;
  unexpandedApproveOverride?: boolean;
}

export interface GraphShape {
  nodes: Array<{ id: string }>;
  edges: Array<{ source: string; target: string; conditional?: boolean; label?: string }>;
}

/** A message as LangChain serializes it (what the SDK returns). */
export interface WireMessage {
  type?: string;
  role?: string;
  id?: string;
  content: unknown;
  name?: string;
  tool_calls?: Array<{ id?: string; name: string; args: Record<string, unknown> }>;
  tool_call_id?: string;
  status?: string;
}

/** One step of the thread (see src/server/history-timeline.ts), oldest first. */
export interface HistoryEntry {
  step: number;
  checkpointId: string;
  createdAt: string;
  /** "ran", "waiting" (for a person) or "next" (runs next). */
  status: "ran" | "waiting" | "next";
  nodes: string[];
  writes: Record<string, unknown> | null;
  next: string[];
  pausedAt?: string;
  /** The answers that let this step run (or that it waits on), oldest first. */
  decisions: Decision[];
  /** The step ended the run. */
  finished: boolean;
}

export interface ThreadView {
  thread: {
    threadId: string;
    graphId: string;
    status: string;
    metadata: Record<string, unknown>;
    createdAt: string;
    updatedAt: string;
  };
  values: unknown;
  messages: WireMessage[];
  pending: InboxItem[];
  checkpointId: string | null;
  graph: GraphShape;
  waitingAt: string[];
  history: HistoryEntry[];
  decisions: Decision[];
}

export interface DecisionBody {
  checkpointId: string;
  interruptId: string;
  answer: unknown;
  reviewer?: string;
  idempotencyKey: string;
  unexpandedApproveOverride?: boolean;
}

export interface ReviewReceipt {
  decision: Decision;
  threadId: string;
  diff: Array<{ path: string; proposed: unknown; edited: unknown }>;
  toolResults: Array<{ toolCallId: string; name: string; content: unknown }>;
}

export interface FieldError {
  path: string;
  message: string;
}

/** The tool review carried by an item's value, or undefined for any other interrupt. */
export function reviewOf(
  item: InboxItem,
): { actionRequests: ActionRequest[]; reviewConfigs: ReviewConfig[] } | undefined {
  const v = item.value as { actionRequests?: unknown; reviewConfigs?: unknown } | null;
  if (!v || !Array.isArray(v.actionRequests) || !Array.isArray(v.reviewConfigs)) return undefined;
  return v as { actionRequests: ActionRequest[]; reviewConfigs: ReviewConfig[] };
}

/** What `GET /auth/csrf` says about signing in, and who is signed in. */
export interface SignInState {
  authenticated: boolean;
  tokenRequired: boolean;
  /** `auth_handler`: the deployment's auth file signs people in; `shared_token`: one token, names typed. */
  signIn: "auth_handler" | "shared_token";
  user?: { identity: string; displayName: string; verified: boolean };
}
