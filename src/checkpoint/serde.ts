import { NonSerializableError } from "../errors/index.js";

/**
 * Throws `NonSerializableError` naming the first path that is not plain JSON.
 * Runs before anything is written, so a bad value never reaches the store.
 *
 * @example
 * assertJson({ cb: () => 1 }, "state"); // NonSerializableError: state.cb is a function…
 */
export function assertJson(value: unknown, path: string): void {
  walk(value, path, undefined);
}

function walk(value: unknown, path: string, seen: Set<object> | undefined): void {
  switch (typeof value) {
    case "string":
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value))
        throw new NonSerializableError(path, `${value} (not a finite number)`);
      return;
    case "undefined":
      return; // dropped by JSON for object keys; arrays check their items below
    case "function":
      throw new NonSerializableError(path, "a function");
    case "symbol":
      throw new NonSerializableError(path, "a symbol");
    case "bigint":
      throw new NonSerializableError(path, "a BigInt");
  }
  if (value === null) return;
  const obj = value as object;
  if (typeof (obj as { toJSON?: unknown }).toJSON === "function") return;
  const visited = seen ?? new Set<object>();
  if (visited.has(obj)) throw new NonSerializableError(path, "a circular reference");
  visited.add(obj);
  if (Array.isArray(obj)) {
    for (let i = 0; i < obj.length; i++) {
      const item = obj[i];
      if (item === undefined)
        throw new NonSerializableError(`${path}[${i}]`, "undefined inside an array");
      walk(item, `${path}[${i}]`, visited);
    }
  } else {
    const proto = Object.getPrototypeOf(obj);
    if (proto !== Object.prototype && proto !== null) {
      const name = (proto?.constructor as { name?: string } | undefined)?.name ?? "unknown";
      throw new NonSerializableError(path, `an instance of ${name} without toJSON()`);
    }
    for (const key in obj) {
      walk((obj as Record<string, unknown>)[key], `${path}.${key}`, visited);
    }
  }
  visited.delete(obj);
}

/** A deep, JSON-faithful copy: what a store hands back is never aliased with what it was given. */
export function jsonClone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
