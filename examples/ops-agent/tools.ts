// The ops agent's tools. Each acts on the sandbox (or the demo database) only; their
// errors become error tool messages the model reads.
import { interrupt } from "stateweaver";
import { tool } from "stateweaver/models";
import { z } from "zod";
import type { Sandbox } from "./sandbox.js";
import type { SqlDatabase } from "./sql-database.js";

/** What the tools act on. */
export interface OpsWorld {
  sandbox: Sandbox;
  database: SqlDatabase;
}

const sandboxPath = z
  .string()
  .min(1)
  .describe('A path relative to the sandbox, e.g. "build/cache.tmp"');

/** The ops agent's tools: list_files, fetch_file, remove_file, execute_sql, notify_email, ask_user. */
export function opsTools({ sandbox, database }: OpsWorld) {
  return [
    tool({
      name: "list_files",
      description: "List the files under a folder of the sandbox, recursively.",
      schema: z.object({ dir: sandboxPath.default(".") }),
      run: async ({ dir }) => {
        const files = await sandbox.list(dir);
        return files.length === 0 ? `No files under ${dir}.` : files.join("\n");
      },
    }),
    tool({
      name: "fetch_file",
      description: "Read a text file from the sandbox.",
      schema: z.object({ path: sandboxPath }),
      run: ({ path }) => sandbox.read(path),
    }),
    tool({
      name: "remove_file",
      description: "Delete one file from the sandbox.",
      schema: z.object({ path: sandboxPath }),
      run: async ({ path }) => {
        await sandbox.remove(path);
        return `Removed ${path}.`;
      },
    }),
    tool({
      name: "execute_sql",
      description:
        "Run one PostgreSQL statement against the orders database (table orders: id, customer, status, amount_cents, created_at).",
      schema: z.object({ query: z.string().min(1).describe("One SQL statement") }),
      run: ({ query }) => database.query(query),
    }),
    tool({
      name: "notify_email",
      description: "Send an email (the demo writes it to the sandbox's outbox folder).",
      schema: z.object({
        to: z.email(),
        // One line: a line break in a subject would write extra headers into the message.
        subject: z
          .string()
          .min(1)
          .max(200)
          .regex(/^[^\r\n]*$/, "A subject is one line."),
        body: z.string().max(10_000),
      }),
      run: async ({ to, subject, body }, { toolCall }) => {
        // Named after the call id, so a replayed call rewrites the same file.
        await sandbox.write(
          `outbox/${toolCall.id}.eml`,
          `To: ${to}\nSubject: ${subject}\n\n${body}\n`,
        );
        return `Sent "${subject}" to ${to}.`;
      },
    }),
    tool({
      name: "ask_user",
      description: "Ask the person who filed the ticket a question and wait for the answer.",
      schema: z.object({ question: z.string().min(1) }),
      run: ({ question }) => {
        const answer: unknown = interrupt({ question });
        return typeof answer === "string" ? answer : JSON.stringify(answer);
      },
    }),
  ];
}
