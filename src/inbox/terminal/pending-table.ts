import type { InboxItem, ThreadView, ToolReviewValue, WireMessage } from "./inbox-client.js";
import { cell, json, printable, waitedFor } from "./terminal-text.js";

const KIND_LABEL: Record<InboxItem["kind"], string> = {
  tool_review: "tool review",
  interrupt: "question",
  breakpoint: "breakpoint",
};

/**
 * The pending reviews as a numbered table: graph, thread, kind, summary, waiting for.
 * Every cell is flattened to one line and escaped.
 *
 * @example
 * stdout.write(pendingTable(items, Date.now()));
 */
export function pendingTable(items: readonly InboxItem[], now: number): string {
  if (items.length === 0) return "Nothing waits for review.\n";
  const rows = [
    ["#", "graph", "thread", "kind", "summary", "waiting"],
    ...items.map((item, i) => [
      String(i + 1),
      cell(item.graphId, 12),
      cell(item.threadId, 8),
      KIND_LABEL[item.kind] ?? cell(String(item.kind), 12),
      cell(titled(item), 56),
      waitedFor(item.waitingSince, now),
    ]),
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => [...r[c]!].length)));
  return `${rows
    .map((r) =>
      r
        .map((text, c) => text.padEnd(widths[c]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n")}\n`;
}

// The summary (a question's own words when the interrupt asks one), after the thread's
// title when its metadata has one.
function titled(item: InboxItem): string {
  const question = (item.value as { question?: unknown } | null)?.question;
  const summary =
    item.kind === "interrupt" && typeof question === "string" ? question : item.summary;
  const title = item.threadMetadata?.ticket ?? item.threadMetadata?.title;
  return typeof title === "string" ? `${title}: ${summary}` : summary;
}

/**
 * The thread around a pending item: its id, graph, metadata and its latest messages.
 *
 * @example
 * stdout.write(threadHeader(await inbox.thread(item.threadId)));
 */
export function threadHeader(view: ThreadView, lastMessages = 4): string {
  const { thread } = view;
  const lines = [
    `Thread ${printable(thread.threadId)} (graph ${printable(thread.graphId)}, ${printable(thread.status)})`,
  ];
  const meta = Object.entries(thread.metadata ?? {}).filter(([k]) => !k.startsWith("stateweaver:"));
  if (meta.length > 0)
    lines.push(
      `  ${meta.map(([k, v]) => `${cell(k, 20)}: ${cell(JSON.stringify(v), 60)}`).join(", ")}`,
    );
  for (const m of view.messages.slice(-lastMessages)) lines.push(`  ${messageLine(m)}`);
  return `${lines.join("\n")}\n`;
}

function messageLine(m: WireMessage): string {
  const role = m.type ?? m.role ?? "?";
  const label =
    { human: "user", ai: "agent", assistant: "agent", tool: `tool ${m.name ?? ""}`.trim() }[role] ??
    role;
  const calls = (m.tool_calls ?? []).map((c) => `${c.name}(…)`).join(", ");
  const text = messageText(m.content);
  return `${cell(label, 20)}: ${cell(text || (calls ? `calls ${calls}` : "(empty)"), 100)}`;
}

/**
 * The text of a message's content: a string, or the text blocks of LangChain's content list.
 *
 * @example
 * messageText([{ type: "text", text: "Done." }]); // "Done."
 */
export function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((b) => (typeof b?.text === "string" ? b.text : "")).join("");
  return JSON.stringify(content) ?? "";
}

/** Args longer than this many lines are shown cut until the reviewer asks for all of them. */
export const ARGS_PREVIEW_LINES = 20;
/** …or longer than this many characters. */
export const ARGS_PREVIEW_CHARS = 1500;

/**
 * True when an action's args are too long to show whole by default.
 *
 * @example
 * if (argsAreLong(action.args)) prompt.say("type v to see all of them");
 */
export function argsAreLong(args: unknown): boolean {
  const text = json(args);
  return text.length > ARGS_PREVIEW_CHARS || text.split("\n").length > ARGS_PREVIEW_LINES;
}

/**
 * One action request of a tool review: its number, tool, description, args and, when
 * its policy has one, the schema an edit must match. Long args are cut to
 * `ARGS_PREVIEW_LINES`, with their full size, unless `expanded`.
 *
 * @example
 * stdout.write(actionBlock(review, 0));
 */
export function actionBlock(review: ToolReviewValue, index: number, expanded = false): string {
  const action = review.actionRequests[index]!;
  const config = review.reviewConfigs[index];
  const indent = (text: string) => text.replace(/\n/g, "\n    ");
  const args = json(action.args);
  const preview = args.slice(0, ARGS_PREVIEW_CHARS).split("\n").slice(0, ARGS_PREVIEW_LINES);
  const shown =
    expanded || !argsAreLong(action.args)
      ? args.split("\n")
      : [...preview, `… cut: ${args.length} characters, ${args.split("\n").length} lines in all`];
  const lines = [
    `Action ${index + 1} of ${review.actionRequests.length}: ${printable(action.name)}`,
    `    ${indent(printable(String(action.description ?? ""), { multiline: true }))}`,
    "  args:",
    `    ${shown.join("\n    ")}`,
  ];
  if (config?.argsSchema)
    lines.push("  edits must match:", `    ${indent(json(config.argsSchema))}`);
  return `${lines.join("\n")}\n`;
}
