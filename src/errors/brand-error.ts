// Brands an error class where it is declared, so `instanceof` knows its errors from any copy of stateweaver.
import { type AnyClass, brandClass } from "../control/brand.js";

/**
 * Brand one of our error classes as `stateweaver.error.<Name>`, from its own static block:
 * branding where the class is declared means no list to keep, and none to forget a class in
 * (`test/control/values-across-copies.test.ts` checks every exported class carries its brand).
 * Internal: a user's own subclass stays unbranded and keeps ordinary `instanceof`.
 *
 * @internal
 * @example
 * export class RunNotFoundError extends StateweaverError {
 *   static {
 *     brandError(RunNotFoundError);
 *   }
 * }
 */
export function brandError(errorClass: AnyClass): void {
  brandClass(errorClass, `error.${errorClass.name}`);
}
