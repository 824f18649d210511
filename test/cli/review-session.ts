// Drives `runReview` like a person at a terminal: it waits for a prompt, then types.
import { PassThrough } from "node:stream";
import { runReview } from "../../src/cli/review.js";

/** A running `stateweaver review`, with its output so far and a keyboard. */
export interface TerminalSession {
  /** Everything printed so far. */
  readonly output: () => string;
  /** Waits until the output, after what earlier waits consumed, matches; returns that part. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  type(line: string): void;
  /** Ends the input (Ctrl-D) and returns the exit code. */
  end(): Promise<number>;
  readonly exitCode: Promise<number>;
}

export function startReview(
  argv: string[],
  env: Record<string, string | undefined> = {},
): TerminalSession {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let text = "";
  let consumed = 0;
  stdout.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  const exitCode = runReview(argv, { stdin, stdout, env });
  return {
    output: () => text,
    async waitFor(pattern, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const rest = text.slice(consumed);
        const match = pattern.exec(rest);
        if (match) {
          consumed += match.index + match[0].length;
          return rest.slice(0, match.index + match[0].length);
        }
        if (Date.now() > until)
          throw new Error(`The reviewer never printed ${pattern}; it printed:\n${rest}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    type(line) {
      stdin.write(`${line}\n`);
    },
    async end() {
      stdin.end();
      return exitCode;
    },
    exitCode,
  };
}
