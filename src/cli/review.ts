import type { Readable, Writable } from "node:stream";
import { isStateweaverError } from "../errors/index.js";
import {
  InboxClient,
  Prompt,
  pendingTable,
  printable,
  reviewSession,
} from "../inbox/terminal/index.js";

/**
 * What `runReview` talks to: the terminal's streams, the environment (for
 * `STATEWEAVER_TOKEN` and `STATEWEAVER_REVIEWER`), and optionally a `fetch`.
 *
 * @example
 * const io: ReviewIO = { stdin: process.stdin, stdout: process.stdout, env: process.env };
 */
export interface ReviewIO {
  stdin: Readable;
  stdout: Writable;
  /** Where fatal errors go; `stdout` when not given. */
  stderr?: Writable;
  env: Record<string, string | undefined>;
  fetch?: typeof fetch;
}

const USAGE = `Usage: stateweaver review [--url <url>] [--graph <id>] [--reviewer <name>] [--list]

Lists what waits for review on a stateweaver server and takes decisions at the prompt.
  --url       the server (default http://127.0.0.1:2024); STATEWEAVER_TOKEN is sent as a bearer token
  --graph     only reviews of this graph
  --reviewer  the name recorded with each decision (default STATEWEAVER_REVIEWER, then USER)
  --list      print the pending reviews and exit
`;

interface ReviewArgs {
  url: string;
  graph?: string;
  reviewer?: string;
  list: boolean;
  help: boolean;
}

function parseArgs(argv: readonly string[]): ReviewArgs | string {
  const args: ReviewArgs = { url: "http://127.0.0.1:2024", list: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    if (flag === "--list" || flag === "--help" || flag === "-h") {
      if (flag === "--list") args.list = true;
      else args.help = true;
      continue;
    }
    if (flag !== "--url" && flag !== "--graph" && flag !== "--reviewer")
      return `Unknown option "${flag}".`;
    const value = inline ?? argv[++i];
    if (value === undefined || value === "") return `${flag} needs a value, e.g. ${flag}=…`;
    args[flag.slice(2) as "url" | "graph" | "reviewer"] = value;
  }
  return args;
}

/**
 * `stateweaver review`: the terminal reviewer, over the server's HTTP inbox API only.
 * Returns the exit code: 0 when the reviewer quits (or the input ends), 1 when the
 * server cannot be reached or refuses the token, 2 for bad options.
 *
 * @example
 * process.exitCode = await runReview(process.argv.slice(3), {
 *   stdin: process.stdin, stdout: process.stdout, env: process.env,
 * });
 */
export async function runReview(argv: readonly string[], io: ReviewIO): Promise<number> {
  const args = parseArgs(argv);
  if (typeof args === "string") {
    io.stdout.write(`${args}\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  const inbox = new InboxClient({
    url: args.url,
    token: io.env.STATEWEAVER_TOKEN,
    fetch: io.fetch,
  });
  const prompt = new Prompt(io.stdin, io.stdout);
  try {
    if (args.list) {
      const { items } = await inbox.items(args.graph);
      io.stdout.write(pendingTable(items, Date.now()));
      return 0;
    }
    await reviewSession({
      inbox,
      prompt,
      reviewer: args.reviewer ?? io.env.STATEWEAVER_REVIEWER ?? io.env.USER ?? "terminal",
      ...(args.graph !== undefined && { graph: args.graph }),
    });
    return 0;
  } catch (error) {
    if (!isStateweaverError(error)) throw error;
    const auth = "status" in error && (error.status === 401 || error.status === 403);
    (io.stderr ?? io.stdout).write(
      `${printable(error.message)}${auth ? "\nSet STATEWEAVER_TOKEN to the server's token." : ""}\n`,
    );
    return 1;
  } finally {
    prompt.close();
  }
}
