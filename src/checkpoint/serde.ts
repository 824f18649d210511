import { isStateweaverError, NonSerializableError, ValueTooDeepError } from "../errors/index.js";

/**
 * How many levels of objects and arrays a value may nest, wherever it enters a run. Every
 * layer handles this with room to spare: V8's `JSON.stringify`, which every store uses,
 * throws a RangeError at a few thousand levels (fewer when called deep in a stack);
 * Postgres parses json/jsonb to ~10,000 levels under its default 2MB `max_stack_depth`;
 * the stores keep text and `JSON.parse` reads any depth. A checkpoint wraps a value in
 * fewer than ten levels of its own.
 */
export const MAX_JSON_DEPTH = 1000;

/**
 * The JSON form of a value entering a run: the value itself when it is plain JSON (the
 * usual case, at the cost of one walk), else a copy, made only along the paths where a
 * `toJSON()` was applied (a Date becomes its ISO string) or an `undefined` property left
 * out, exactly as a checkpoint would store it and a restore give it back. Nothing given is
 * changed. Throws `NonSerializableError` naming the first path that is not JSON, or
 * `ValueTooDeepError`; `key` is appended to `path` (kept apart so that the hot path
 * builds no string).
 *
 * @example
 * toJsonValue({ at: new Date(0) }, "state"); // { at: "1970-01-01T00:00:00.000Z" }
 * toJsonValue({ cb: () => 1 }, "state"); // NonSerializableError: state.cb is a function…
 */
export function toJsonValue(value: unknown, path: string, key?: string): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (Number.isFinite(value)) return value;
      break;
    case "object":
      if (value === null) return value;
      break;
  }
  return new JsonForm(path, key).of(value);
}

/**
 * Throws `NonSerializableError` naming the first path that is not plain JSON (or
 * `ValueTooDeepError`). Values with `toJSON()` pass when what it returns is JSON.
 *
 * @example
 * assertJson({ cb: () => 1 }, "state"); // NonSerializableError: state.cb is a function…
 */
export function assertJson(value: unknown, path: string): void {
  toJsonValue(value, path);
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
 * One walk over a value. The path is kept as a stack of keys and spelled out only for an
 * error: building a string for every nested key cost more than the check itself. Cycles
 * are found when the walk reaches `MAX_JSON_DEPTH`: no set of visited objects is kept on
 * the hot path.
 */
class JsonForm {
  readonly #root: string;
  readonly #rootKey: string | undefined;
  /** Keys from the root to where the walk is; `#found[i]` is the object `#keys[i]` is in. */
  readonly #keys: Array<string | number> = [];
  readonly #found: object[] = [];
  /** How many keys deep the value being walked came from a `toJSON()` (-1: none). */
  #toJsonAt = -1;

  constructor(root: string, rootKey: string | undefined) {
    this.#root = root;
    this.#rootKey = rootKey;
  }

  of(value: unknown): unknown {
    try {
      return this.#walk(value);
    } catch (error) {
      if (isStateweaverError(error)) throw error;
      this.#toJsonAt = -1;
      this.#fail(`a getter or Proxy that throws when read (${describe(error)})`, error);
    }
  }

  #walk(value: unknown): unknown {
    switch (typeof value) {
      case "string":
      case "boolean":
      case "undefined": // left out of objects by JSON; arrays refuse it below
        return value;
      case "number":
        if (!Number.isFinite(value)) this.#fail(`${value} (not a finite number)`);
        return value;
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
    if (value === null) return value;
    const found = value as { toJSON?: unknown };
    if (typeof found.toJSON === "function") return this.#converted(found as JsonConvertible);
    return this.#members(found, found);
  }

  /** What `toJSON()` returns is the value's JSON form, as in `JSON.stringify` (called once). */
  #converted(found: JsonConvertible): unknown {
    const keys = this.#keys;
    const key = keys.length > 0 ? String(keys[keys.length - 1]) : (this.#rootKey ?? "");
    let json: unknown;
    try {
      json = found.toJSON(key);
    } catch (error) {
      if (isStateweaverError(error)) throw error;
      this.#fail(`an object whose toJSON() throws (${describe(error)})`, error);
    }
    const outer = this.#toJsonAt;
    this.#toJsonAt = keys.length;
    const out =
      typeof json === "object" && json !== null ? this.#members(json, found) : this.#walk(json);
    this.#toJsonAt = outer;
    return out;
  }

  /** An object's or array's members; `found` is what stood in the value (before any toJSON). */
  #members(obj: object, found: object): unknown {
    const stack = this.#found;
    if (stack.length === MAX_JSON_DEPTH) this.#tooDeep();
    stack.push(found);
    const keys = this.#keys;
    let copy: Record<string, unknown> | unknown[] | undefined;
    if (Array.isArray(obj)) {
      for (let i = 0; i < obj.length; i++) {
        keys.push(i);
        const item: unknown = obj[i];
        const json = item === undefined ? item : this.#walk(item);
        if (json === undefined) this.#fail("undefined inside an array");
        if (json !== item) {
          copy ??= obj.slice();
          (copy as unknown[])[i] = json;
        }
        keys.pop();
      }
    } else {
      const proto = Object.getPrototypeOf(obj);
      if (proto !== Object.prototype && proto !== null) {
        const name = (proto?.constructor as { name?: string } | undefined)?.name;
        this.#fail(
          name && name !== "Object"
            ? `an instance of ${name} without toJSON()`
            : "an object with a prototype of its own",
        );
      }
      for (const key in obj) {
        keys.push(key);
        const item = (obj as Record<string, unknown>)[key];
        const json = this.#walk(item);
        if (json !== item || json === undefined) {
          copy ??= { ...obj };
          if (json === undefined) delete (copy as Record<string, unknown>)[key];
          else setOwn(copy as Record<string, unknown>, key, json);
        }
        keys.pop();
      }
    }
    stack.pop();
    return copy ?? obj;
  }

  /** At the depth limit: a cycle if an object repeats on the way down, else too deep. */
  #tooDeep(): never {
    const seen = new Set<object>();
    const stack = this.#found;
    for (let i = 0; i < stack.length; i++) {
      if (seen.has(stack[i]!)) {
        this.#keys.length = i;
        this.#toJsonAt = -1;
        this.#fail("a circular reference");
      }
      seen.add(stack[i]!);
    }
    throw new ValueTooDeepError(this.#path(0), MAX_JSON_DEPTH);
  }

  #path(depth: number): string {
    let path = this.#root;
    if (this.#rootKey !== undefined) path += `.${this.#rootKey}`;
    const keys = this.#keys;
    for (let i = 0; i < depth; i++) {
      const key = keys[i]!;
      path += typeof key === "number" ? `[${key}]` : `.${key}`;
    }
    return path;
  }

  #fail(what: string, cause?: unknown): never {
    const depth = this.#keys.length;
    const via = this.#toJsonAt === depth ? `an object whose toJSON() returned ${what}` : what;
    throw new NonSerializableError(
      this.#path(depth),
      via,
      cause === undefined ? undefined : { cause },
    );
  }
}

interface JsonConvertible {
  toJSON(key: string): unknown;
}

/** An error's name and message for another error's text; never throws itself. */
function describe(error: unknown): string {
  try {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  } catch {
    return "something that is not an Error";
  }
}

/**
 * `JSON.stringify` for a store: what cannot be stored (nested too deep for the JSON
 * encoder, a cycle, a BigInt — handed to a store directly, past the runtime's checks) is
 * the same typed error the runtime gives, naming the path, never a RangeError or TypeError.
 */
export function stringifyStored(value: unknown, what: string): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    assertJson(value, what); // the failure path only: find and name the fault
    throw new NonSerializableError(what, `not storable as JSON (${String(error)})`);
  }
}

/**
 * A shallow copy of `source`'s own enumerable string keys, as `{ ...source }` makes, for an
 * object that then gets keys `source` lacks. In Node 20's V8 a spread's copy has a hidden
 * class no added key can extend through the transition cache: each such add makes a new
 * one (~2 µs each, and more as they pile up until the next GC), where a copy built key by
 * key reuses them (~0.1 µs). Keys are set as own data (`setOwn`), `__proto__` too.
 *
 * @example
 * const next = copyOwn(values); setOwn(next, "approved", true);
 */
export function copyOwn(source: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) setOwn(out, key, source[key]);
  return out;
}

/** A deep, JSON-faithful copy: what a store hands back is never aliased with what it was given. */
export function jsonClone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
