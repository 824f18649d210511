// The offline model of the ops demo: it reads the ticket and what the tools answered
// so far, and plays the matching playbook, so every ticket runs without an API key.
import type {
  ChatModel,
  ChatModelCallOptions,
  FakeReply,
  Message,
  ToolCall,
} from "stateweaver/models";
import { FakeChatModel } from "stateweaver/models";

/** The report the "monthly report" ticket runs (November 2026 of the demo orders). */
export const MONTHLY_REPORT_SQL =
  "SELECT status, count(*)::int AS orders, (sum(amount_cents) / 100.0)::float8 AS revenue FROM orders WHERE created_at >= date '2026-11-01' AND created_at < date '2026-12-01' GROUP BY status ORDER BY status";

interface Turn {
  ticket: string;
  /** How many times the model has answered this ticket already. */
  turn: number;
  /** The tool messages since the model's last reply. */
  results: Array<Extract<Message, { role: "tool" }>>;
  /** The `path` argument of the call a tool message answers. */
  pathOf: (result: Turn["results"][number]) => string;
  /** A tool call id unique in the thread (it is counted from the messages so far). */
  callId: (i: number) => string;
}

type Playbook = (t: Turn) => FakeReply;

/**
 * A chat model that needs no network: each call hands the conversation to a fresh
 * one-reply `FakeChatModel` whose reply is computed from it. Being a pure function of the
 * messages, it never runs out of script and answers the same after a restart.
 *
 * @example
 * const agent = createAgent({ model: scriptedOpsModel(), tools, interruptOn });
 */
export function scriptedOpsModel(): ChatModel {
  const once = () => new FakeChatModel({ responses: [planReply], model: "ops-script" });
  return {
    provider: "fake",
    model: "ops-script",
    invoke: (messages: readonly Message[], options?: ChatModelCallOptions) =>
      once().invoke(messages, options),
    stream: (messages: readonly Message[], options?: ChatModelCallOptions) =>
      once().stream(messages, options),
  };
}

/** The reply to a conversation: the latest user message picks the playbook. */
export function planReply(messages: readonly Message[]): FakeReply {
  const at = messages.findLastIndex((m) => m.role === "user");
  const ticket = at === -1 ? "" : String(messages[at]!.content);
  const since = messages.slice(at + 1);
  const lastReply = since.findLastIndex((m) => m.role === "assistant");
  const calls = lastReply === -1 ? [] : (since[lastReply] as { toolCalls: ToolCall[] }).toolCalls;
  const turn: Turn = {
    ticket,
    turn: since.filter((m) => m.role === "assistant").length,
    results: since.slice(lastReply + 1).filter((m) => m.role === "tool"),
    pathOf: (r) => String(calls.find((c) => c.id === r.toolCallId)?.args.path ?? r.name),
    callId: (i) => `ops_${messages.length}_${i}`,
  };
  const match = PLAYBOOKS.find(([pattern]) => pattern.test(ticket));
  return (match?.[1] ?? unknownTicket)(turn);
}

const call = (t: Turn, i: number, name: string, args: Record<string, unknown>) => ({
  id: t.callId(i),
  name,
  args,
});

const outcome = (r: Turn["results"][number]) =>
  r.status === "success" ? r.content : `not done (${r.content.replace(/^Error: /, "")})`;

const emailOnCall: Playbook = (t) => {
  if (t.turn === 0)
    return {
      content: "Looking up who is on call.",
      toolCalls: [call(t, 0, "fetch_file", { path: "oncall.txt" })],
    };
  if (t.turn === 1) {
    const address = t.results[0]?.content.match(/[\w.+-]+@[\w-]+(\.[\w-]+)+/)?.[0];
    if (t.results[0]?.status !== "success" || !address)
      return "I could not find the on-call's address in oncall.txt; please tell me who to email.";
    return {
      content: `Emailing the on-call (${address}).`,
      toolCalls: [
        call(t, 0, "notify_email", {
          to: address,
          subject: `Ops ticket: ${t.ticket.split(/[\r\n]/)[0]!.slice(0, 80)}`,
          body: `Hello,\n\nA ticket needs you: ${t.ticket}\n\n-- the ops agent`,
        }),
      ],
    };
  }
  return `Email: ${outcome(t.results[0]!)}`;
};

const monthlyReport: Playbook = (t) => {
  if (t.turn === 0)
    return {
      content: "Running the monthly report.",
      toolCalls: [call(t, 0, "execute_sql", { query: MONTHLY_REPORT_SQL })],
    };
  return `Report: ${outcome(t.results[0]!)}`;
};

// Lists a folder, then removes the files that match: one review for all of them.
const removeMatching = (dir: string, keep: (path: string) => boolean, what: string): Playbook => {
  const playbook: Playbook = (t) => {
    if (t.turn === 0)
      return {
        content: `Looking for ${what} in ${dir === "." ? "the sandbox" : dir}.`,
        toolCalls: [call(t, 0, "list_files", { dir })],
      };
    if (t.turn === 1) {
      const listing = t.results[0];
      if (listing?.status !== "success") return `I could not list ${dir}: ${listing?.content}`;
      const paths = listing.content.split("\n").filter(keep);
      if (paths.length === 0) return `There are no ${what} in ${dir}.`;
      return {
        content: `Removing ${paths.length} ${what}.`,
        toolCalls: paths.map((path, i) => call(t, i, "remove_file", { path })),
      };
    }
    return t.results
      .map((r) => (r.status === "success" ? r.content : `Kept ${t.pathOf(r)}: ${outcome(r)}`))
      .join("\n");
  };
  return playbook;
};

const cleanTempFiles = removeMatching(".", (p) => p.endsWith(".tmp"), "temp files");

// Asks which folder to clear, then clears old rotated files in the chosen one.
const freeDiskSpace: Playbook = (t) => {
  if (t.turn === 0)
    return {
      content: "I need to know where I may delete files.",
      toolCalls: [
        call(t, 0, "ask_user", {
          question: "Which folder may I clear old files from: build, logs or reports?",
        }),
      ],
    };
  const folder = (t.results[0]?.content ?? "").replace(/["']/g, "").trim() || ".";
  // Turns after the answer are the folder clean-up's own turns, one later.
  return removeMatching(
    folder,
    (p) => /\.(\d+|tmp)$/.test(p),
    "old files",
  )({
    ...t,
    turn: t.turn - 1,
  });
};

const showFile: Playbook = (t) => {
  if (t.turn === 0) {
    const path = t.ticket.match(/(?:show|read|fetch|open)\s+(?:me\s+)?(\S+)/i)?.[1] ?? "";
    return { content: "Reading it.", toolCalls: [call(t, 0, "fetch_file", { path })] };
  }
  const r = t.results[0]!;
  return r.status === "success" ? r.content : `I could not read it: ${r.content}`;
};

const unknownTicket: Playbook = () =>
  "I can clean up temp files, run the monthly report SQL, email the on-call, free disk space, or show a file. Which one?";

const PLAYBOOKS: ReadonlyArray<[RegExp, Playbook]> = [
  [/\b(e-?mail|notify|on-?call)\b/i, emailOnCall],
  [/\b(sql|report)\b/i, monthlyReport],
  [/\b(temp|tmp)\b/i, cleanTempFiles],
  [/\b(disk|space)\b/i, freeDiskSpace],
  [/\b(show|read|fetch|open)\b/i, showFile],
];
