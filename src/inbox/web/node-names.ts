/**
 * Graph nodes as a reviewer reads them: `humanInTheLoop/afterModel` is "tool review", an
 * agent's middleware hook `modelCallLimit/beforeModel` is "model call limit (before the
 * model)", the runtime's start and end are "start" and "end"; other names are the graph's own.
 */

const HOOKS: Record<string, string> = {
  beforeAgent: "before the agent",
  beforeModel: "before the model",
  afterModel: "after the model",
  afterAgent: "after the agent",
};

/** Middleware whose hook node has a name of its own. */
const KNOWN: Record<string, string> = {
  "humanInTheLoop/afterModel": "tool review",
  __start__: "start",
  __end__: "end",
};

/** `camelCase` and `snake_case` as words. */
const words = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .toLowerCase();

/**
 * The reviewer-facing name of node `id`.
 *
 * @example
 * nodeName("humanInTheLoop/afterModel"); // "tool review"
 * nodeName("tools"); // "tools"
 */
export function nodeName(id: string): string {
  const known = KNOWN[id];
  if (known) return known;
  const hook = /^(.+)\/(beforeAgent|beforeModel|afterModel|afterAgent)$/.exec(id);
  if (hook) return `${words(hook[1]!)} (${HOOKS[hook[2]!]})`;
  return id;
}
