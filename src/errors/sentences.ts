// Error messages are built from fragments (a field's problem, a cause's message, a fixed
// "the thread is unchanged"), and a fragment may or may not end in a full stop already.
// Joining them here, and nowhere by hand, keeps "got 1.. The thread" out of every message.

const ENDS_A_SENTENCE = /[.!?…]$/;

/**
 * Sentences joined with a space, each ending in exactly one full stop: a part that ends
 * in `.`, `!`, `?` or `…` keeps its own ending, one without gets a `.`. Empty parts are
 * left out.
 *
 * @internal
 * @example
 * sentences("got 1.", "The thread is unchanged"); // "got 1. The thread is unchanged."
 */
export function sentences(...parts: readonly string[]): string {
  return parts
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part) => (ENDS_A_SENTENCE.test(part) ? part : `${part}.`))
    .join(" ");
}

/**
 * Clauses joined with `; ` into one sentence ending in one full stop: each clause's own
 * final full stop is dropped (an ellipsis stays). Empty clauses are left out.
 *
 * @internal
 * @example
 * clauses(["a: too short.", "b: required"]); // "a: too short; b: required."
 */
export function clauses(parts: readonly string[]): string {
  const joined = parts
    .map((part) => part.trim().replace(/(?<!\.)\.$/, ""))
    .filter((part) => part !== "")
    .join("; ");
  return sentences(joined);
}
