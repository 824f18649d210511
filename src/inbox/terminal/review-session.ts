import { randomUUID } from "node:crypto";
import type { DecisionType, ReviewDecision } from "../../agent/index.js";
import {
  type InboxClient,
  type InboxItem,
  InboxRequestError,
  type ToolReviewValue,
  type WireMessage,
} from "./inbox-client.js";
import {
  actionBlock,
  argsAreLong,
  messageText,
  pendingTable,
  threadHeader,
} from "./pending-table.js";
import type { Prompt } from "./prompt.js";
import { cell, json, printable } from "./terminal-text.js";

/**
 * What a review session needs: the server, the terminal, who decides, and optionally a
 * graph to list only its reviews.
 */
export interface ReviewSessionOptions {
  inbox: InboxClient;
  prompt: Prompt;
  reviewer: string;
  graph?: string;
  now?: () => number;
}

const SHORTCUT: Record<DecisionType, string> = {
  approve: "a",
  edit: "e",
  reject: "r",
  respond: "s",
};

/**
 * The terminal reviewer's loop: list what is pending, pick one, decide it, send the
 * decision, follow the run, and list again, until `q` or the end of the input. Errors
 * the server answers (a stale review, refused fields) are shown and the loop goes on;
 * an unreachable server or a refused token ends it by throwing.
 *
 * @example
 * await reviewSession({ inbox, prompt, reviewer: "dana" });
 */
export async function reviewSession(options: ReviewSessionOptions): Promise<void> {
  const { inbox, prompt, graph } = options;
  const now = options.now ?? Date.now;
  for (;;) {
    const { items } = await inbox.items(graph);
    prompt.say(`\n${items.length} pending at ${inbox.url}${graph ? ` (graph ${graph})` : ""}`);
    prompt.say(pendingTable(items, now()));
    const choice = await prompt.ask(
      items.length > 0
        ? "Pick a review by number, r to refresh, q to quit: "
        : "r to refresh, q to quit: ",
    );
    if (choice === undefined || choice === "q") return;
    if (choice === "r" || choice === "") continue;
    const item = items[Number(choice) - 1];
    if (!/^\d+$/.test(choice) || item === undefined) {
      prompt.say(
        `"${cell(choice, 20)}" is not one of the choices: type 1 to ${items.length}, r or q.`,
      );
      continue;
    }
    await reviewItem(options, item);
  }
}

async function reviewItem(options: ReviewSessionOptions, listed: InboxItem): Promise<void> {
  const { inbox, prompt } = options;
  for (;;) {
    const view = await inbox.thread(listed.threadId);
    const item = view.pending.find((p) => p.interruptId === listed.interruptId);
    if (!item) {
      prompt.say("That review is no longer pending: the thread has moved on.");
      return;
    }
    prompt.say(`\n${threadHeader(view)}`);
    const answer = await askAnswer(prompt, item);
    if (answer === undefined) return;
    if ((await send(options, item, answer)) === "done") return;
  }
}

/** An answer to send; `override` when an approve covers args the reviewer did not expand. */
interface Answer {
  value: unknown;
  override?: boolean;
}

async function askAnswer(prompt: Prompt, item: InboxItem): Promise<Answer | undefined> {
  if (item.kind === "tool_review") {
    const review = await askDecisions(prompt, item.value as ToolReviewValue);
    return review && { value: { decisions: review.decisions }, override: review.override };
  }
  if (item.kind === "breakpoint") {
    prompt.say(`The run is paused at a breakpoint on node "${printable(item.node)}".`);
    const go = await prompt.ask("Continue the run? [y/N]: ");
    return go?.toLowerCase() === "y" ? { value: null } : undefined;
  }
  prompt.say(
    `The graph asks (node "${printable(item.node)}"):\n  ${json(item.value).replace(/\n/g, "\n  ")}`,
  );
  const text = await prompt.ask(
    "Answer as JSON (other text is sent as a string; empty goes back): ",
  );
  if (!text) return undefined;
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { value: text };
  }
}

async function askDecisions(
  prompt: Prompt,
  review: ToolReviewValue,
): Promise<{ decisions: ReviewDecision[]; override: boolean } | undefined> {
  const decisions: ReviewDecision[] = [];
  let override = false;
  for (const [i, action] of review.actionRequests.entries()) {
    let expanded = !argsAreLong(action.args);
    prompt.say(actionBlock(review, i, expanded));
    const allowed = review.reviewConfigs[i]?.allowedDecisions ?? [];
    const choices = allowed.map((type) => `${SHORTCUT[type]} ${type}`).join(", ");
    let decision: ReviewDecision | undefined;
    while (decision === undefined) {
      const menu = expanded ? choices : `${choices}, v view all args`;
      const key = await prompt.ask(`Decide (${menu}; b back): `);
      if (key === undefined || key === "b") return undefined;
      if (key === "v" && !expanded) {
        expanded = true;
        prompt.say(actionBlock(review, i, true));
        continue;
      }
      const type = allowed.find((t) => SHORTCUT[t] === key || t === key);
      if (type === undefined) {
        prompt.say(`Choose one of: ${menu}.`);
        continue;
      }
      // Approving what one has not read is allowed, but said out loud and recorded.
      if (type === "approve" && !expanded) {
        const sure = await prompt.ask(
          "You have not seen all of these args. Approve anyway (recorded as an override)? [y/N]: ",
        );
        if (sure?.toLowerCase() !== "y") continue;
        override = true;
      }
      decision = await askDecision(prompt, type, action.name, action.args);
    }
    decisions.push(decision);
  }
  const summary = decisions.map((d, i) => `${i + 1} ${d.type}`).join(", ");
  const confirm = await prompt.ask(`Send ${summary}? [Y/n]: `);
  return confirm?.toLowerCase() === "n" || confirm === undefined
    ? undefined
    : { decisions, override };
}

// Undefined asks the reviewer to choose again (an edit or answer was abandoned).
async function askDecision(
  prompt: Prompt,
  type: DecisionType,
  name: string,
  args: Record<string, unknown>,
): Promise<ReviewDecision | undefined> {
  switch (type) {
    case "approve":
      return { type };
    case "reject": {
      const message = await prompt.ask("Why (sent to the agent; empty for none): ");
      return message ? { type, message } : { type };
    }
    case "respond": {
      const message = await prompt.ask("Answer in the tool's place: ");
      return message ? { type, message } : undefined;
    }
    case "edit": {
      const edited = await askArgs(prompt, args);
      return edited && { type, editedAction: { name, args: edited } };
    }
  }
}

// Reads lines until they parse as a JSON object; an empty first line cancels.
async function askArgs(
  prompt: Prompt,
  current: Record<string, unknown>,
): Promise<Record<string, unknown> | undefined> {
  prompt.say(
    `Now: ${JSON.stringify(current).length > 200 ? "(see args above)" : printable(JSON.stringify(current))}`,
  );
  let text = "";
  for (;;) {
    const line = await prompt.ask(text === "" ? "New args as JSON (empty cancels): " : "… ");
    if (line === undefined || (line === "" && text === "")) return undefined;
    text += `${line}\n`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      if (line === "") {
        prompt.say("That is not valid JSON; start again.");
        text = "";
      }
      continue;
    }
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
    prompt.say('Args must be a JSON object, e.g. {"path": "build/cache.tmp"}.');
    text = "";
  }
}

async function send(
  options: ReviewSessionOptions,
  item: InboxItem,
  answer: Answer,
): Promise<"done" | "again"> {
  const { inbox, prompt, reviewer } = options;
  let runId: string | null;
  let approval: { required: number; approvedBy: unknown[] } | undefined;
  try {
    ({ runId, approval } = await inbox.decide(item.threadId, {
      checkpointId: item.checkpointId,
      interruptId: item.interruptId,
      answer: answer.value,
      reviewer,
      idempotencyKey: randomUUID(),
      ...(answer.override && { unexpandedApproveOverride: true }),
    }));
  } catch (error) {
    if (!(error instanceof InboxRequestError) || error.status === 401 || error.status === 403)
      throw error;
    return refused(prompt, error);
  }
  if (runId === null) {
    prompt.say(
      `Approval recorded (${approval?.approvedBy.length ?? 1} of ${approval?.required ?? "?"}); the calls run once enough different people approved the same arguments.`,
    );
    return "done";
  }
  prompt.say(`Decision recorded; the run continues on the server (run ${printable(runId)}).`);
  try {
    const values = await inbox.follow(item.threadId, runId);
    const last = (values?.messages as WireMessage[] | undefined)?.at(-1);
    if (last) prompt.say(`Latest message: ${cell(messageText(last.content), 200)}`);
  } catch (error) {
    prompt.say(`(Could not follow the run: ${printable((error as Error).message)})`);
  }
  return "done";
}

function refused(prompt: Prompt, error: InboxRequestError): "done" | "again" {
  if (error.status === 409) {
    prompt.say(`Not sent: ${printable(error.message)}`);
    if (error.pending?.length === 0) prompt.say("Nothing waits on this thread now.");
    else if (error.pending)
      prompt.say(`Waiting on this thread now:\n${pendingTable(error.pending, Date.now())}`);
    return "done";
  }
  prompt.say(`The server refused the decision (${error.code}): ${printable(error.message)}`);
  for (const field of error.fields)
    prompt.say(`  ${printable(field.path)}: ${printable(field.message)}`);
  // A 400 leaves the thread as it was, so the same review can be decided again.
  return error.status === 400 ? "again" : "done";
}
