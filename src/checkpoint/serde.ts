import { NonSerializableError } from "../errors/index.js";

/**
 * Throws `NonSerializableError` naming the first path that is not plain JSON.
 * Runs before anything is written, so a bad value never reaches the store.
 *
 * @example
 * assertJson({ cb: () => 1 }, "state"); // NonSerializableError: state.cb is a function…
 */
export function assertJson(value: unknown, path: string): void {
  new JsonCheck(path).walk(value);
}

/**
 * Set `key` on `target` as its own data property. Plain assignment of `"__proto__"` (a
 * key JSON.parse gives as own data) would set the prototype instead.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else target[key] = value;
}

/**
 * One check of a value. The path to where it is inside the value is kept as a stack of
 * keys and spelled out only for the error: building a string for every nested key cost
 * more than the check itself.
 */
class JsonCheck {
  readonly #root: string;
  readonly #keys: Array<string | number> = [];
  #seen: Set<object> | undefined;

  constructor(root: string) {
    this.#root = root;
  }

  walk(value: unknown): void {
    switch (typeof value) {
      case "string":
      case "boolean":
        return;
      case "number":
        if (!Number.isFinite(value)) this.#fail(`${value} (not a finite number)`);
        return;
      case "undefined":
        return; // dropped by JSON for object keys; arrays check their items below
      case "function":
        this.#fail("a function");
        break;
      case "symbol":
        this.#fail("a symbol");
        break;
      case "bigint":
        this.#fail("a BigInt");
        break;
    }
    if (value === null) return;
    const obj = value as object;
    if (typeof (obj as { toJSON?: unknown }).toJSON === "function") return;
    this.#seen ??= new Set<object>();
    const seen = this.#seen;
    if (seen.has(obj)) this.#fail("a circular reference");
    seen.add(obj);
    const keys = this.#keys;
    if (Array.isArray(obj)) {
      for (let i = 0; i < obj.length; i++) {
        keys.push(i);
        if (obj[i] === undefined) this.#fail("undefined inside an array");
        this.walk(obj[i]);
        keys.pop();
      }
    } else {
      const proto = Object.getPrototypeOf(obj);
      if (proto !== Object.prototype && proto !== null) {
        const name = (proto?.constructor as { name?: string } | undefined)?.name ?? "unknown";
        this.#fail(`an instance of ${name} without toJSON()`);
      }
      for (const key in obj) {
        keys.push(key);
        this.walk((obj as Record<string, unknown>)[key]);
        keys.pop();
      }
    }
    seen.delete(obj);
  }

  #fail(what: string): never {
    let path = this.#root;
    for (const key of this.#keys) path += typeof key === "number" ? `[${key}]` : `.${key}`;
    throw new NonSerializableError(path, what);
  }
}

/** A deep, JSON-faithful copy: what a store hands back is never aliased with what it was given. */
export function jsonClone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
