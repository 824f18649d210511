// The base of every error stateweaver throws, and the guard that knows it across copies.

import { isBrandedInstance } from "../control/brand.js";
import { brandError } from "./brand-error.js";

/**
 * Every error stateweaver throws is a `StateweaverError`: it has a stable `code`
 * to switch on and a message that says what was wrong and what to do about it.
 *
 * @example
 * try { await graph.resume("yes", { config }) } catch (e) {
 *   if (e instanceof InvalidResumeError) showToUser(e.message);
 * }
 * // Across copies of stateweaver (a server and a user module), `instanceof` still holds;
 * // so does isStateweaverError(e).
 */
export class StateweaverError extends Error {
  static {
    brandError(StateweaverError);
  }

  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }

  /** By brand, not by prototype: an error thrown by another copy of stateweaver is one too. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class on the right of instanceof (a subclass too)
    return isBrandedInstance(this, value);
  }
}

/**
 * True for any error stateweaver throws, whichever copy of stateweaver threw it.
 *
 * @example
 * catch (e) { if (isStateweaverError(e)) console.log(e.code); else throw e; }
 */
export function isStateweaverError(value: unknown): value is StateweaverError {
  // By brand: StateweaverError's `instanceof` answers for every copy's errors.
  return value instanceof StateweaverError;
}
