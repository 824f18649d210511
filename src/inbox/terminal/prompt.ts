import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";

/**
 * Prompts on a writable and reads answers line by line from a readable; `undefined`
 * once the input has ended.
 *
 * @example
 * const prompt = new Prompt(process.stdin, process.stdout);
 * const name = await prompt.ask("Your name: ");
 */
export class Prompt {
  readonly out: Writable;
  readonly #lines: AsyncIterator<string>;
  readonly #close: () => void;

  constructor(input: Readable, out: Writable) {
    const rl = createInterface({ input, terminal: false, crlfDelay: Number.POSITIVE_INFINITY });
    this.out = out;
    this.#lines = rl[Symbol.asyncIterator]();
    this.#close = () => rl.close();
  }

  async ask(question: string): Promise<string | undefined> {
    this.out.write(question);
    const next = await this.#lines.next();
    return next.done ? undefined : next.value.trim();
  }

  say(text: string): void {
    this.out.write(text.endsWith("\n") ? text : `${text}\n`);
  }

  close(): void {
    this.#close();
  }
}
