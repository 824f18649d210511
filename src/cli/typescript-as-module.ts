// A module hook (node:module register) for the CLI: a TypeScript module in a CommonJS package
// loads as an ES module, so its `import … from "stateweaver"` gets the server's own copy.
import type { ResolveHook } from "node:module";

/** `.ts` and `.tsx`; `.cts` says CommonJS on purpose and `.mts` is a module already. */
const TYPESCRIPT = /\.tsx?$/;

/**
 * Resolve as the hooks after this one do (tsx's), then turn a TypeScript file that they call
 * CommonJS (its package.json has no `"type": "module"`) into an ES module. Why: tsx loads such
 * a file as CommonJS, and its `require("stateweaver")` then goes through tsx's CommonJS hooks,
 * which compile stateweaver's ES modules into a second copy; as an ES module it imports the
 * server's. Node does the same for a `.js` file with `import`/`export` in a CommonJS package
 * (syntax detection), so code written as a module runs as one.
 *
 * @example
 * register(new URL("./typescript-as-module.js", import.meta.url)); // after tsx's register()
 */
export const resolve: ResolveHook = async (specifier, context, nextResolve) => {
  const resolved = await nextResolve(specifier, context);
  if (resolved.format === "module" || !resolved.url.startsWith("file:")) return resolved;
  return TYPESCRIPT.test(new URL(resolved.url).pathname)
    ? { ...resolved, format: "module" }
    : resolved;
};
