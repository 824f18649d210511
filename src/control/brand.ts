// Why brands: a project can load two copies of stateweaver (a server's and a user module's, or
// two installs), and `instanceof` only knows its own copy's classes. A brand is a registered
// symbol (`Symbol.for`), the same in every copy, so a value made by one copy is recognised by
// all of them.

/** The static property that names the brand a class answers `instanceof` for. */
const CLASS_BRAND = Symbol.for("stateweaver.classBrand");

/** Any class, abstract or not, whatever its constructor takes. */
export type AnyClass = abstract new (...args: any[]) => unknown;

/**
 * Brand `cls` as `stateweaver.<name>`: its instances, and its subclasses' instances, carry the
 * brand on their prototype chain (non-enumerable, so JSON and equality do not see it), and
 * `instanceof cls` answers by the brand when the class defines `static [Symbol.hasInstance]`
 * with {@link isBrandedInstance}. Returns the brand's symbol, for guards.
 *
 * @example
 * export class Send { static [Symbol.hasInstance](v: unknown) { return isBrandedInstance(this, v); } }
 * const SEND = brandClass(Send, "Send");
 * export const isSend = (v: unknown): v is Send => hasBrand(v, SEND);
 */
export function brandClass(cls: AnyClass, name: string): symbol {
  const brand = Symbol.for(`stateweaver.${name}`);
  Object.defineProperty(cls.prototype, brand, { value: true });
  Object.defineProperty(cls, CLASS_BRAND, { value: brand });
  return brand;
}

/**
 * Whether `value` carries `brand` (made by any copy of stateweaver).
 *
 * @example
 * hasBrand(new Send("write", {}), Symbol.for("stateweaver.Send")); // true
 */
export function hasBrand(value: unknown, brand: symbol): boolean {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    (value as Record<symbol, unknown>)[brand] === true
  );
}

/**
 * `instanceof` for a class with `static [Symbol.hasInstance]`: a branded class (see
 * {@link brandClass}) answers by its brand; a class that is not branded itself (a user's
 * subclass of our error, say) inherits the static method, and answers the ordinary way.
 *
 * @example
 * static [Symbol.hasInstance](value: unknown) { return isBrandedInstance(this, value); }
 */
export function isBrandedInstance(cls: AnyClass, value: unknown): boolean {
  if (Object.hasOwn(cls, CLASS_BRAND)) {
    return hasBrand(value, (cls as unknown as Record<symbol, symbol>)[CLASS_BRAND] as symbol);
  }
  return Function.prototype[Symbol.hasInstance].call(cls, value);
}
