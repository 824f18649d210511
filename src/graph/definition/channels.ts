// The state's channels: how writes merge into the values through per-key reducers.
import type { z } from "zod";
import { copyOwn, setOwn, toJsonValue } from "../../checkpoint/serde.js";
import { InvalidUpdateError } from "../../errors/index.js";
import type { TaskRecord } from "../../runtime/task.js";
import { START } from "./constants.js";
import type { Reducer } from "./types.js";

/**
 * How a graph's state changes: writes go through per-key reducers (the last
 * write wins where no reducer is set), optionally checked against a zod schema.
 * Values enter in their JSON form (see `toWrites`), and every key is set as the
 * state's own data: a `"__proto__"` key from `JSON.parse` stays a key, never the
 * state's prototype.
 */
export class Channels {
  readonly reducers: ReadonlyMap<string, Reducer>;
  readonly schema: z.ZodObject | undefined;
  readonly #shape: Record<string, z.ZodType> | undefined;
  readonly #defaults: ReadonlyMap<string, () => unknown>;

  constructor(
    reducers: ReadonlyMap<string, Reducer>,
    schema: z.ZodObject | undefined,
    defaults: ReadonlyMap<string, () => unknown> = new Map(),
  ) {
    this.reducers = reducers;
    this.schema = schema;
    this.#shape = schema?.shape as Record<string, z.ZodType> | undefined;
    this.#defaults = defaults;
  }

  /**
   * Values a new thread starts with, in their JSON form: the schema's defaults, then the
   * reducers' (`addReducer`'s `default`), which win.
   */
  initialValues(): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    for (const [key, make] of this.#defaults) {
      const json = toJsonValue(make(), "default state", key);
      if (json !== undefined) setOwn(values, key, json);
    }
    if (!this.#shape) return values;
    for (const [key, type] of Object.entries(this.#shape)) {
      if (this.#defaults.has(key)) continue;
      const parsed = type.safeParse(undefined);
      if (!parsed.success || parsed.data === undefined) continue;
      const json = toJsonValue(parsed.data, "default state", key);
      if (json !== undefined) setOwn(values, key, json);
    }
    return values;
  }

  /**
   * Turn a node's returned update (or the input, or an `updateState` value) into writes:
   * each value in its JSON form (`toJsonValue`: non-JSON is refused, a Date becomes its
   * string), so that nodes see the same state with or without a checkpointer, before
   * and after a restore; then keys and types are checked against the schema.
   */
  toWrites(
    update: unknown,
    values: Record<string, unknown>,
    who: { node: string; step: number },
  ): Array<[string, unknown]> {
    if (update === undefined || update === null) return [];
    if (typeof update !== "object" || Array.isArray(update)) {
      throw new InvalidUpdateError(
        `Node "${who.node}" returned ${Array.isArray(update) ? "an array" : typeof update} at step ${who.step}; return an object of state keys to update, a Command, or nothing.`,
      );
    }
    const root = who.node === START ? "input" : "state";
    const writes: Array<[string, unknown]> = [];
    for (const write of Object.entries(update as Record<string, unknown>)) {
      const value = write[1];
      if (value === undefined) continue;
      const json = toJsonValue(value, root, write[0]);
      if (json === undefined) continue; // a toJSON() that gives nothing: JSON leaves the key out
      write[1] = json;
      writes.push(write);
    }
    if (this.#shape) for (const write of writes) this.#check(write, values, who);
    return writes;
  }

  /**
   * Like `toWrites`, for an ordered list of writes (a subgraph's journal). Its values
   * are in JSON form already: they entered the subgraph through its own `toWrites`.
   */
  toWriteList(
    list: ReadonlyArray<[string, unknown]>,
    values: Record<string, unknown>,
    who: { node: string; step: number },
  ): Array<[string, unknown]> {
    const writes = list.filter(
      ([key, v]) => v !== undefined && (!this.#shape || key in this.#shape),
    );
    if (this.#shape) {
      let local = values;
      for (const write of writes) {
        this.#check(write, local, who);
        local = this.apply(local, [write]);
      }
    }
    return writes;
  }

  /** Keep only the keys this graph's schema knows (all keys without a schema). */
  pick(values: Record<string, unknown>): Record<string, unknown> {
    const shape = this.#shape;
    if (!shape) return values;
    const out: Record<string, unknown> = {};
    for (const key in values) if (Object.hasOwn(shape, key)) setOwn(out, key, values[key]);
    return out;
  }

  #check(
    [key, value]: [string, unknown],
    values: Record<string, unknown>,
    who: { node: string; step: number },
  ) {
    // Own keys only: "constructor" or "__proto__" would find what every object inherits.
    const type = Object.hasOwn(this.#shape!, key) ? this.#shape![key] : undefined;
    const by = who.node === START ? "The input" : `Node "${who.node}"`;
    if (!type) {
      throw new InvalidUpdateError(
        `${by} wrote unknown key "${key}" at step ${who.step}. The state schema has: ${Object.keys(this.#shape!).join(", ")}. Add "${key}" to the schema or stop writing it.`,
      );
    }
    const reducer = this.reducers.get(key);
    const next = reducer ? reducer(own(values, key), value) : value;
    const parsed = type.safeParse(next);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new InvalidUpdateError(
        `${by} wrote an invalid value to "${key}" at step ${who.step}: ${issue?.path.length ? `${issue.path.join(".")}: ` : ""}${issue?.message ?? "does not match the schema"}.`,
      );
    }
  }

  /** Apply one task's writes in order (used for local views and updateState). */
  apply(
    values: Record<string, unknown>,
    writes: ReadonlyArray<[string, unknown]>,
  ): Record<string, unknown> {
    if (writes.length === 0) return values;
    // Not a spread: a write may add a key (see copyOwn).
    const next = copyOwn(values);
    for (const [key, value] of writes) {
      const reducer = this.reducers.get(key);
      setOwn(next, key, reducer ? reducer(own(next, key), value) : value);
    }
    return next;
  }

  /**
   * The barrier: merge every finished task's writes in task order. Two tasks
   * writing a key that has no reducer in the same step is an error: which value
   * should win would depend on timing.
   */
  merge(
    values: Record<string, unknown>,
    tasks: readonly TaskRecord[],
    step: number,
  ): Record<string, unknown> {
    let writer: Map<string, string> | undefined;
    let next: Record<string, unknown> | undefined;
    for (const task of tasks) {
      if (!task.writes || task.writes.length === 0) continue;
      next ??= copyOwn(values); // not a spread: a write may add a key (see copyOwn)
      for (const [key, value] of task.writes) {
        const reducer = this.reducers.get(key);
        if (reducer) {
          setOwn(next, key, reducer(own(next, key), value));
          continue;
        }
        if (tasks.length > 1) {
          writer ??= new Map();
          const other = writer.get(key);
          if (other !== undefined && other !== task.id) {
            const nodes = tasks
              .filter((t) => t.writes?.some(([k]) => k === key))
              .map((t) => t.node);
            throw new InvalidUpdateError(
              `Nodes ${[...new Set(nodes)].map((n) => `"${n}"`).join(" and ")} both wrote "${key}" in step ${step}, and "${key}" has no reducer. Add one with addReducer("${key}", (existing, update) => …) or let only one node write it per step.`,
            );
          }
          writer.set(key, task.id);
        }
        setOwn(next, key, value);
      }
    }
    return next ?? values;
  }
}

/** A key's value in the state, never one every object inherits (`__proto__`, `constructor`…). */
const own = (values: Record<string, unknown>, key: string): unknown =>
  Object.hasOwn(values, key) ? values[key] : undefined;
