import { Command } from "../index.js";
import type { RunInput } from "./run.js";

/**
 * A stored run input as `invoke`/`stream` take it: input values, a `Command`, or `null`
 * (continue from the checkpoint).
 *
 * @example
 * graph.stream(argOf({ command: { resume: true } }), { config });
 */
export function argOf(input: RunInput): unknown {
  if (input === null) return null;
  if ("command" in input)
    return new Command(input.command as ConstructorParameters<typeof Command>[0]);
  return input.input;
}
