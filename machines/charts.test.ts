/**
 * The standalone charts are plain `setup(...).createMachine(...)` statecharts,
 * meant to be opened in the Stately editor: their config is JSON apart from the
 * context factory and each lifecycle's actor input (the run loop has two: the
 * lone node's and `__fanout__`'s), and every guard, action and actor is
 * referenced by name.
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

/** Every name the config refers to, by kind. */
function namedReferences(
  value: unknown,
  out = { guards: new Set<string>(), actions: new Set<string>(), actors: new Set<string>() },
) {
  if (Array.isArray(value)) for (const v of value) namedReferences(v, out);
  else if (typeof value === "object" && value !== null) {
    for (const [key, v] of Object.entries(value)) {
      if (key === "guard") out.guards.add(v as string);
      else if (key === "actions") for (const a of [v].flat()) out.actions.add(a as string);
      else if (key === "src") out.actors.add(v as string);
      else namedReferences(v, out);
    }
  }
  return out;
}

const charts: Array<[string, AnyStateMachine, string[]]> = [
  ["task lifecycle", taskMachine, ["context", "states.running.invoke.input"]],
  [
    "run loop",
    runMachine,
    [
      "context",
      "states.stepping.states.task.states.running.invoke.input",
      "states.stepping.states.__fanout__.states.running.invoke.input",
    ],
  ],
];

describe.each(charts)("the %s chart", (_name, machine, functions) => {
  it("is JSON apart from its context factory and the task actor's input (per lifecycle)", () => {
    expect(functionPaths(machine.config)).toEqual(functions);
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
    expect(refs.actors).toEqual(new Set(["runTask"]));
  });
});
