// Who reviews what: a different policy per tool, so the inbox shows every kind of form.
import type { InterruptOnConfig } from "stateweaver/agent";
import { z } from "zod";

/**
 * - `remove_file`: approve, edit the path, or reject.
 * - `execute_sql`: approve, reject, or edit, where the edited query must be one read
 *   statement (the `argsSchema`, checked by the agent and shown to the reviewer).
 * - `notify_email`: approve, reject, or respond in the tool's place.
 * - `list_files` and `fetch_file` only read, so they run unreviewed; `ask_user` pauses by
 *   itself with a plain interrupt.
 */
export const opsReviewPolicies: InterruptOnConfig = {
  remove_file: {
    allowedDecisions: ["approve", "edit", "reject"],
    description: (call) => `Delete ${String(call.args.path)} from the sandbox.`,
  },
  execute_sql: {
    allowedDecisions: ["approve", "edit", "reject"],
    description: "Run this SQL against the orders database.",
    argsSchema: z.object({
      query: z
        .string()
        .max(2000)
        // Spelled out in both cases: the JSON Schema sent to reviewers keeps no regex flags.
        .regex(
          /^\s*([Ss][Ee][Ll][Ee][Cc][Tt]|[Ww][Ii][Tt][Hh])\s[^;]*;?\s*$/,
          "An edited query must be one SELECT (or WITH) statement.",
        )
        .describe("One SELECT (or WITH) statement: an edit may not change data."),
    }),
  },
  notify_email: {
    allowedDecisions: ["approve", "reject", "respond"],
    description: (call) => `Email ${String(call.args.to)}: "${String(call.args.subject)}".`,
  },
  list_files: false,
  fetch_file: false,
  ask_user: false,
};
