/**
 * Vitest setup file: a test that prints through console.warn or console.error
 * fails, naming what it printed. XState's dev warnings ("Event … was sent to
 * stopped actor …") go through console.warn, so a run that misuses an actor
 * cannot pass quietly.
 *
 * A test that expects a warning asserts it instead:
 * `const warn = vi.spyOn(console, "warn").mockImplementation(() => {})`, then
 * `expect(warn).toHaveBeenCalledWith(…)`; the spy replaces this guard until
 * `warn.mockRestore()`.
 */
import { format } from "node:util";
import { afterAll, afterEach, beforeEach } from "vitest";

type Level = "warn" | "error";
interface Printed {
  level: Level;
  text: string;
  /** Where it was printed from: the frames below the console call. */
  stack: string;
}

const printed: Printed[] = [];
const original = { warn: console.warn, error: console.error };

function guard(level: Level) {
  return (...args: unknown[]) => {
    // Recorded, not thrown: a throw inside XState or a stream callback could be swallowed
    // or change what the code under test does; the test fails in afterEach instead.
    const stack = (new Error().stack ?? "").split("\n").slice(2, 8).join("\n");
    printed.push({ level, text: format(...args), stack });
    original[level](...args);
  };
}

function failIfPrinted(when: string): void {
  if (printed.length === 0) return;
  const lines = printed.splice(0).map((p) => `console.${p.level}: ${p.text}\n${p.stack}`);
  throw new Error(
    `${when} printed ${lines.length} warning(s) or error(s); fix their cause, or, if the test expects one, spy on console and assert it.\n\n${lines.join("\n\n")}`,
  );
}

console.warn = guard("warn");
console.error = guard("error");

beforeEach(() => {
  failIfPrinted("Something before this test (a beforeAll hook, or an earlier test after it ended)");
});

afterEach(() => {
  failIfPrinted("This test");
});

afterAll(() => {
  failIfPrinted("This file, after its last test,");
  console.warn = original.warn;
  console.error = original.error;
});
