/**
 * The standalone charts are plain `setup(...).createMachine(...)` statecharts,
 * meant to be opened in the Stately editor: their config is JSON apart from the
 * context factory, and every guard, action and actor is referenced by name. The
 * one actor is the run's task runner (`taskRunner`, invoked as `tasks` at the
 * root); what a lifecycle asks it to run is the `runTasks` action's, in setup().
 */
import { describe, expect, it } from "vitest";
import { type AnyStateMachine, createMachine } from "xstate";
import { runMachine } from "./run.machine.js";
import { taskMachine } from "./task.machine.js";

/** Dotted paths of every function inside a config object. */
function functionPaths(value: unknown, path: string[] = []): string[] {
  if (typeof value === "function") return [path.join(".")];
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, v]) => functionPaths(v, [...path, key]));
}

/** Every name the config refers to, by kind (entry and exit actions included). */
function namedReferences(
  value: unknown,
  out = { guards: new Set<string>(), actions: new Set<string>(), actors: new Set<string>() },
) {
  if (Array.isArray(value)) for (const v of value) namedReferences(v, out);
  else if (typeof value === "object" && value !== null) {
    for (const [key, v] of Object.entries(value)) {
      if (key === "guard") out.guards.add(v as string);
      else if (key === "actions" || key === "entry" || key === "exit") {
        for (const a of [v].flat()) out.actions.add(a as string);
      } else if (key === "src") out.actors.add(v as string);
      else namedReferences(v, out);
    }
  }
  return out;
}

const charts: Array<[string, AnyStateMachine]> = [
  ["task lifecycle", taskMachine],
  ["run loop", runMachine],
];

describe.each(charts)("the %s chart", (_name, machine) => {
  it("is JSON apart from its context factory", () => {
    expect(functionPaths(machine.config)).toEqual(["context"]);
  });

  it("is rebuilt from its JSON config with the same definition", () => {
    const rebuilt = createMachine(JSON.parse(JSON.stringify(machine.config)));
    expect(JSON.stringify(rebuilt.definition)).toBe(JSON.stringify(machine.definition));
  });

  it("refers to guards, actions and actors by name, each implemented in setup()", () => {
    const refs = namedReferences(machine.config);
    const { guards, actions, actors } = machine.implementations;
    for (const name of [...refs.guards, ...refs.actions, ...refs.actors]) {
      expect(typeof name).toBe("string");
    }
    expect([...refs.guards].filter((g) => !(g in guards))).toEqual([]);
    expect([...refs.actions].filter((a) => !(a in actions))).toEqual([]);
    expect([...refs.actors].filter((a) => !(a in actors))).toEqual([]);
    expect(refs.actors).toEqual(new Set(["taskRunner"]));
  });

  it("invokes its one actor, the task runner, once at the root and asks it for work by name", () => {
    expect(machine.config.invoke).toEqual({ id: "tasks", src: "taskRunner" });
    const refs = namedReferences(machine.config.states);
    expect(refs.actors).toEqual(new Set());
    expect(refs.actions).toContain("runTasks");
  });
});
