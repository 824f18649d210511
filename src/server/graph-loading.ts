import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { clauses, sentences } from "../errors/sentences.js";
import type { CompiledGraph } from "../index.js";
import { checkWebhookConfig, type WebhookConfig } from "../runs/index.js";
import { type AuthHandlers, authHandlersOf } from "./auth/custom-auth.js";
import { ServerConfigError } from "./errors.js";

/**
 * `stateweaver.json`: the graphs to serve, each `"<module path>:<export>"` relative to the
 * file, an optional seed, a function `(graphs) => Promise<void>` run once when the
 * store has no threads yet, and an optional `auth: { path }` naming an `Auth` (LangGraph's
 * shape) that identifies callers in place of the shared token.
 *
 * @example
 * const file: ServerConfigFile = { graphs: { ops: "./examples/ops-agent.ts:agent" } };
 */
export type ServerConfigFile = z.infer<typeof configFile>;

const entry = z
  .string()
  .regex(/^.+:[A-Za-z_$][\w$]*$/, 'an entry is "<module path>:<export name>"');
const configFile = z.object({
  graphs: z.record(
    z.string().regex(/^[A-Za-z_][\w-]*$/, "a graph id is letters, digits, _ and -"),
    entry,
  ),
  seed: entry.optional(),
  auth: z.object({ path: entry }).optional(),
  /** Who is told what happened (docs/webhooks.md); secrets are read by `webhookOptionsOf`. */
  webhooks: z.unknown().optional(),
});

/** The loaded config: the compiled graphs by id, the seed function and the auth, if named. */
export interface ServerConfig {
  graphs: Record<string, CompiledGraph<any, any>>;
  seed: ((graphs: Record<string, CompiledGraph<any, any>>) => Promise<void>) | undefined;
  auth: AuthHandlers | undefined;
  /** `"webhooks"` as the file has it (checked; secrets named by env var not read yet). */
  webhooks: WebhookConfig | undefined;
}

const split = (spec: string) => {
  const at = spec.lastIndexOf(":");
  return { path: spec.slice(0, at), name: spec.slice(at + 1) };
};

/**
 * Read `stateweaver.json` at `file` and import what it names. `importModule` loads a
 * module by file URL (the CLI's adds a TypeScript loader for `.ts` files when needed).
 * Every problem is a `ServerConfigError` naming the entry and the fix.
 *
 * @example
 * const { graphs, seed } = await loadServerConfig("./stateweaver.json");
 */
export async function loadServerConfig(
  file: string,
  importModule: (url: string) => Promise<Record<string, unknown>> = (url) => import(url),
): Promise<ServerConfig> {
  const text = await readFile(file, "utf8").catch(() => {
    throw new ServerConfigError(
      `No ${file}: create it with { "graphs": { "<id>": "./path/to/module.ts:<export>" } }, or run from the folder that has it.`,
    );
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ServerConfigError(
      sentences(`${file} is not valid JSON: ${(error as Error).message}`),
    );
  }
  const parsed = configFile.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(file)"}: ${i.message}`);
    throw new ServerConfigError(`${file} is not a valid config: ${clauses(issues)}`);
  }
  let webhooks: WebhookConfig | undefined;
  if (parsed.data.webhooks !== undefined) {
    try {
      webhooks = checkWebhookConfig(parsed.data.webhooks);
    } catch (error) {
      throw new ServerConfigError(`${file}: ${(error as Error).message}`, { cause: error });
    }
  }
  const base = dirname(resolve(file));
  const load = async (where: string, spec: string) => {
    const { path, name } = split(spec);
    const url = pathToFileURL(resolve(base, path)).href;
    let module: Record<string, unknown>;
    try {
      module = await importModule(url);
    } catch (error) {
      throw new ServerConfigError(
        `${where}: cannot import ${path} (${(error as Error).message}). Check the path, relative to ${file}.`,
      );
    }
    if (!(name in module)) {
      throw new ServerConfigError(
        `${where}: ${path} has no export "${name}" (it exports: ${Object.keys(module).join(", ") || "nothing"}).`,
      );
    }
    return module[name];
  };
  const graphs: Record<string, CompiledGraph<any, any>> = {};
  for (const [id, spec] of Object.entries(parsed.data.graphs)) {
    const graph = (await load(`graphs.${id}`, spec)) as CompiledGraph<any, any>;
    if (typeof graph?.withCheckpointer !== "function") {
      throw new ServerConfigError(
        `graphs.${id}: "${spec}" is not a compiled graph; export the result of graph.compile() or createAgent().`,
      );
    }
    graphs[id] = graph;
  }
  let seed: ServerConfig["seed"];
  if (parsed.data.seed) {
    const fn = await load("seed", parsed.data.seed);
    if (typeof fn !== "function")
      throw new ServerConfigError(`seed: "${parsed.data.seed}" is not a function.`);
    seed = fn as ServerConfig["seed"];
  }
  let auth: AuthHandlers | undefined;
  if (parsed.data.auth) {
    const value = await load("auth.path", parsed.data.auth.path);
    try {
      authHandlersOf(value);
    } catch (error) {
      throw new ServerConfigError(
        `auth.path: "${parsed.data.auth.path}": ${(error as Error).message}`,
      );
    }
    auth = value as AuthHandlers;
  }
  return { graphs, seed, auth, webhooks };
}
