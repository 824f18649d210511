// Pairs a resume value with the interrupts a thread waits on (pure; a refusal is a typed error).
import type { InterruptRecord } from "../../checkpoint/checkpointer.js";
import { toJsonValue } from "../../checkpoint/serde.js";
import { InvalidConfigError, InvalidResumeError } from "../../errors/index.js";
import { isInterruptId } from "../../runtime/interrupt.js";
import { nullResume } from "../definition/command.js";

/**
 * Pair a resume value with the interrupts a thread waits on: one pending takes a plain
 * value, several a map keyed by interrupt id; `nullResume` is `null`; no value continues
 * breakpoints only. Anything that does not fit is an `InvalidResumeError` saying what would,
 * thrown before the run starts, so a refused resume never changes the thread.
 *
 * @example
 * resumeAnswers([{ id: "a1…", node: "ask", … }], "yes", { threadId: "t1", atBreakpoint: false });
 * // { "a1…": "yes" }
 */
export function resumeAnswers(
  pending: readonly InterruptRecord[],
  value: unknown,
  at: { threadId: string; atBreakpoint: boolean },
): Record<string, unknown> {
  const { threadId } = at;
  if (pending.length === 0) {
    throw new InvalidResumeError(
      `Thread "${threadId}" has no pending interrupt to resume. Check getState(config).interrupts, or start a new run with invoke(input).`,
    );
  }
  if (at.atBreakpoint) return {};
  const resolved = value === nullResume ? null : value;
  if (value === undefined && pending.every((p) => p.timing !== "during")) {
    // Breakpoints inside subgraphs: continuing needs no value.
    const answers = byInterruptId();
    for (const p of pending) answers[p.id] = null;
    return answers;
  }
  if (value === undefined) {
    throw new InvalidResumeError(
      `resume() without a value only continues a static breakpoint; thread "${threadId}" waits on interrupt(). Pass the value to resume with (or nullResume to resume with null).`,
    );
  }
  const ids = new Set(pending.map((p) => p.id));
  const answers = byInterruptId();
  if (
    isPlainObject(resolved) &&
    Object.keys(resolved).length > 0 &&
    Object.keys(resolved).every((k) => ids.has(k))
  ) {
    // Converted below: the caller's object stays as given.
    for (const k of Object.keys(resolved)) answers[k] = resolved[k];
  } else if (isPlainObject(resolved) && Object.keys(resolved).some(isInterruptId)) {
    const unknown = Object.keys(resolved).filter((k) => !ids.has(k));
    throw new InvalidResumeError(
      `Unknown interrupt id${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} for thread "${threadId}". Pending: ${pending.map((p) => `${p.id} (${p.node})`).join(", ")}.`,
    );
  } else if (pending.length === 1) {
    answers[pending[0]!.id] = resolved;
  } else {
    throw new InvalidResumeError(
      `Thread "${threadId}" has ${pending.length} pending interrupts, so a single value is ambiguous. Resume with an object keyed by interrupt id: { ${pending.map((p) => `"${p.id}": … /* ${p.node} */`).join(", ")} }.`,
    );
  }
  for (const [k, v] of Object.entries(answers)) {
    answers[k] = v === nullResume ? null : toJsonValue(v, `resume value for ${k}`);
  }
  return answers;
}

/**
 * What `invoke(null)` answers on a thread paused in a step: breakpoints inside subgraphs
 * are continued; tasks waiting on `interrupt()` are re-run unanswered, so they reach their
 * interrupt again and report it (as LangGraph.js does).
 */
export function continueAnswers(
  pending: readonly InterruptRecord[],
  threadId: string,
): Record<string, unknown> {
  if (pending.length === 0) {
    throw new InvalidConfigError(
      `invoke(null) continues a thread from its checkpoint, but thread "${threadId}" has none to continue (it has not started, or it finished). Pass an input object.`,
    );
  }
  const answers = byInterruptId();
  for (const p of pending) if (p.timing !== "during") answers[p.id] = null;
  return answers;
}

/**
 * An empty map of answers by interrupt id. Its keys are new on every thread: a
 * null-prototype object takes them as a dictionary, where a literal would make a new hidden
 * class for each id (~2 µs in Node 20), and no key can reach a prototype.
 */
function byInterruptId(): Record<string, unknown> {
  return Object.create(null) as Record<string, unknown>;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}
