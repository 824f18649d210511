#!/usr/bin/env node
// The `stateweaver` bin: picks the command from argv; the only code that touches the process.
import { auditCommand } from "./audit.js";
import { serveCommand } from "./serve.js";
import { sessionsCommand } from "./sessions.js";
import { workerCommand } from "./worker.js";

const USAGE = `Usage: stateweaver <command>

  serve    the API and the web inbox (PORT, HOST, STATEWEAVER_DATA_DIR, DATABASE_URL, STATEWEAVER_TOKEN;
           --config <file>, --port, --host, --watch-ui: rebuild the config's ui when its files change)
  worker   execute background runs from the PostgreSQL queue (DATABASE_URL, --concurrency)
  review   answer pending reviews in the terminal, through the HTTP API
  audit    export [--since <ISO time>] [--format jsonl] | verify [--expect-head <hash>]:
           the decisions' audit log (exit 0 intact, 1 error, 2 the hash chain is broken)
  sessions revoke --user <identity> | --everyone: end signed-in inbox sessions
`;

/** The terminal reviewer lives in review.ts (its own module, loaded only for `review`). */
async function reviewCommand(argv: string[]): Promise<number> {
  // A variable specifier: review.ts is written separately and loaded only when asked for.
  const modulePath = "./review.js";
  const { runReview } = (await import(modulePath)) as {
    runReview(
      argv: string[],
      io: {
        stdin: NodeJS.ReadableStream;
        stdout: NodeJS.WritableStream;
        stderr: NodeJS.WritableStream;
        env: NodeJS.ProcessEnv;
      },
    ): Promise<number | undefined>;
  };
  const code = await runReview(argv, {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  });
  return code ?? 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "serve":
      return serveCommand(rest, process.env);
    case "worker":
      return workerCommand(rest, process.env);
    case "review":
      return reviewCommand(rest);
    case "sessions":
      return sessionsCommand(rest, {
        stdout: process.stdout,
        stderr: process.stderr,
        env: process.env,
      });
    case "audit":
      return auditCommand(rest, {
        stdout: process.stdout,
        stderr: process.stderr,
        env: process.env,
      });
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(USAGE);
      return command === undefined ? 1 : 0;
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
      return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    // Set even when 0: graphile-worker sets 57 when any schema's breaking migration stops a
    // pool, which the worker survives by replacing the pool; a clean stop still exits 0.
    process.exitCode = code;
  },
  (error: unknown) => {
    const e = error as { code?: string; message?: string };
    process.stderr.write(`stateweaver: ${e?.message ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
