import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Hono } from "hono";
import { z } from "zod";
import { clauses, sentences } from "../errors/sentences.js";
import type { CompiledGraph } from "../index.js";
import { checkWebhookConfig, type WebhookConfig } from "../runs/index.js";
import type { StoreIndexConfig } from "../store/index.js";
import type { GraphDefaults } from "./assistants.js";
import { type AuthHandlers, authHandlersOf } from "./auth/custom-auth.js";
import type { ConfigurableHeaders } from "./configurable-headers.js";
import { ServerConfigError } from "./errors.js";
import { type FactoryGraph, factoryGraph, type GraphFactory } from "./graph-factory.js";
import { storeIndexOf } from "./store-index-config.js";
import type { StoreTtlOptions } from "./store-ttl.js";
import { checkUiName } from "./ui-bundles.js";

/**
 * `stateweaver.json` (or an existing `langgraph.json`, which has the same shape): the graphs
 * to serve, each `"<module path>:<export>"` relative to the file or `{ path, config?,
 * context?, description? }`; an optional seed, a function `(graphs) => Promise<void>` run
 * once when the store has no threads yet; `auth: { path }` naming an `Auth` (LangGraph's
 * shape) that identifies callers in place of the shared token; `http: { app }` naming your
 * own Hono app, mounted beside the API; `store: { index: { embed, dims, fields? } }` for
 * semantic search in the long-term store; `ui` (with `ui_config.shared`), generative-UI
 * components modules by name; and `env`, a `.env` file or variables to set before the
 * modules load.
 *
 * @example
 * const file: ServerConfigFile = { graphs: { ops: "./examples/ops-agent.ts:agent" } };
 */
export type ServerConfigFile = z.infer<typeof configFile>;

const entry = z
  .string()
  .regex(/^.+:[A-Za-z_$][\w$]*$/, 'an entry is "<module path>:<export name>"');
const record = z.record(z.string(), z.unknown());
const graphEntry = z.union([
  entry,
  z.object({
    path: entry,
    description: z.string().optional(),
    config: record.optional(),
    context: record.optional(),
  }),
]);
// What langgraph.json may hold that this server does not apply: a deployment's image and build,
// and platform features stateweaver has not built.
// Accepted, so an existing langgraph.json loads, and reported as not used.
const DEPLOYMENT_KEYS = [
  "checkpointer",
  "api_version",
  "node_version",
  "python_version",
  "dependencies",
  "dockerfile_lines",
  "image_distro",
  "pip_config_file",
  "base_image",
  "keep_pkg_tools",
  "$schema",
] as const;
const configFile = z
  .object({
    graphs: z.record(
      z.string().regex(/^[A-Za-z_][\w-]*$/, "a graph id is letters, digits, _ and -"),
      graphEntry,
    ),
    seed: entry.optional(),
    auth: z.object({ path: entry }).optional(),
    http: z
      .looseObject({
        app: entry.optional(),
        configurable_headers: z
          .object({
            includes: z.array(z.string().min(1)).optional(),
            excludes: z.array(z.string().min(1)).optional(),
          })
          .strict()
          .optional(),
      })
      .optional(),
    env: z.union([z.string(), z.record(z.string(), z.string())]).optional(),
    /** Who is told what happened (docs/webhooks.md); secrets are read by `webhookOptionsOf`. */
    webhooks: z.unknown().optional(),
    /** The long-term store: `index` turns on semantic search, `ttl` expires items (other keys are not used). */
    store: z
      .looseObject({
        index: z
          .object({
            embed: z.string().min(1),
            dims: z.number().int().positive(),
            fields: z.array(z.string()).optional(),
          })
          .optional(),
        ttl: z
          .object({
            default_ttl: minutes("default_ttl").nullish(),
            refresh_on_read: z
              .boolean({ error: "refresh_on_read is true or false (default true)" })
              .optional(),
            sweep_interval_minutes: minutes("sweep_interval_minutes").nullish(),
          })
          .strict()
          .optional(),
      })
      .optional(),
    /** Generative UI: components modules by name (a graph id), bundled by `serve` at start. */
    ui: z.record(z.string(), z.string().min(1)).optional(),
    ui_config: z.looseObject({ shared: z.array(z.string().min(1)).optional() }).optional(),
    ...deploymentKeys(),
  })
  .strict();

/** A number of minutes above zero, or a message that says so. */
function minutes(name: string) {
  return z
    .number({ error: `${name} is a number of minutes, e.g. 10080 for a week` })
    .positive({ error: `${name} is a number of minutes above 0` });
}

function deploymentKeys() {
  const shape = {} as Record<(typeof DEPLOYMENT_KEYS)[number], z.ZodOptional<z.ZodUnknown>>;
  for (const key of DEPLOYMENT_KEYS) shape[key] = z.unknown().optional();
  return shape;
}

/**
 * LangGraph's `LANGGRAPH_CONFIG`: per graph id, the system assistant's config, with its
 * `context` as a key of it.
 */
const langgraphConfig = z.record(z.string(), record);

/** The loaded config: what `createServer` takes from it, the seed, and what was not used. */
export interface ServerConfig {
  /** A graph factory (an exported function) comes as a `FactoryGraph`. */
  graphs: Record<string, CompiledGraph<any, any> | FactoryGraph>;
  seed: ((graphs: Record<string, CompiledGraph<any, any>>) => Promise<void>) | undefined;
  auth: AuthHandlers | undefined;
  /** Per graph: its system assistant's config and context (the file's, then `LANGGRAPH_CONFIG`). */
  graphDefaults: Record<string, GraphDefaults>;
  /** The Hono app `http.app` names, if any. */
  routes: Hono | undefined;
  /** `http.configurable_headers`: which request headers reach a run's nodes. */
  configurableHeaders: ConfigurableHeaders | undefined;
  /** Keys of the file this server does not apply (`node_version`, `store`, `http.cors`…). */
  unused: string[];
  /** `"webhooks"` as the file has it (checked; secrets named by env var not read yet). */
  webhooks: WebhookConfig | undefined;
  /** `store.index`: semantic search for the long-term store, its embedder loaded. */
  storeIndex: StoreIndexConfig | undefined;
  /**
   * `ui` and `ui_config.shared`, for `buildUi(ui.entries, ui)`: paths as the file has them,
   * `cwd` the file's folder. `serve` bundles them; a worker has no use for them.
   */
  ui: { entries: Record<string, string>; cwd: string; shared: string[] } | undefined;
  /** `store.ttl`: how the long-term store's items expire, and how often they are swept. */
  storeTtl: StoreTtlOptions | undefined;
}

/**
 * The config file `serve` and `worker` read: `--config` when given, else `stateweaver.json`,
 * else `langgraph.json`, in `dir`. A missing file is a `ServerConfigError` saying what to create.
 *
 * @example
 * const file = findConfigFile(process.cwd()); // ".../stateweaver.json"
 */
export function findConfigFile(dir: string, flag?: string): string {
  if (flag !== undefined) return resolve(dir, flag);
  for (const name of ["stateweaver.json", "langgraph.json"]) {
    if (existsSync(join(dir, name))) return join(dir, name);
  }
  throw new ServerConfigError(
    `No stateweaver.json or langgraph.json in ${dir}: create one with { "graphs": { "<id>": "./path/to/module.ts:<export>" } }, run from the folder that has it, or pass --config <file>.`,
  );
}

const split = (spec: string) => {
  const at = spec.lastIndexOf(":");
  return { path: spec.slice(0, at), name: spec.slice(at + 1) };
};

/**
 * Read the config file at `file` and import what it names. `importModule` loads a module by
 * file URL (the CLI's adds a TypeScript loader for `.ts` files when needed). The file's `env`
 * is set in `env` first (variables already set win), so modules see it as they load.
 * Every problem is a `ServerConfigError` naming the entry and the fix.
 *
 * @example
 * const { graphs, seed } = await loadServerConfig("./stateweaver.json");
 */
export async function loadServerConfig(
  file: string,
  importModule: (url: string) => Promise<Record<string, unknown>> = (url) => import(url),
  env: NodeJS.ProcessEnv = process.env,
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
  await applyEnv(parsed.data.env, base, env);
  const load = async (where: string, spec: string) => {
    const { path, name } = split(spec);
    const url = pathToFileURL(resolve(base, path)).href;
    let module: Record<string, unknown>;
    try {
      module = await importModule(url);
    } catch (error) {
      // The loader's own refusals already say what to do; the path is not what is wrong.
      if (error instanceof ServerConfigError) {
        throw new ServerConfigError(`${where}: ${error.message}`, { cause: error.cause });
      }
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
  const graphs: Record<string, CompiledGraph<any, any> | FactoryGraph> = {};
  const graphDefaults: Record<string, GraphDefaults> = {};
  for (const [id, given] of Object.entries(parsed.data.graphs)) {
    const spec = typeof given === "string" ? given : given.path;
    const graph = await load(`graphs.${id}`, spec);
    // A function is a graph factory, as in LangGraph deployments: built per run from its config.
    if (typeof graph === "function") {
      graphs[id] = await factoryGraph(graph as GraphFactory, id);
    } else if (typeof (graph as CompiledGraph<any, any>)?.withCheckpointer === "function") {
      graphs[id] = graph as CompiledGraph<any, any>;
    } else {
      throw new ServerConfigError(
        `graphs.${id}: "${spec}" is not a compiled graph; export the result of graph.compile() or createAgent(), or a function that builds one from a run's config.`,
      );
    }
    if (typeof given !== "string" && (given.config || given.context)) {
      graphDefaults[id] = {
        ...(given.config && { config: given.config }),
        ...(given.context && { context: given.context }),
      };
    }
  }
  for (const [id, config] of Object.entries(fromLanggraphConfig(env.LANGGRAPH_CONFIG))) {
    if (!(id in graphs)) {
      throw new ServerConfigError(
        `LANGGRAPH_CONFIG names graph "${id}", which ${file} does not serve (it serves: ${Object.keys(graphs).join(", ")}).`,
      );
    }
    const { context, ...rest } = config;
    graphDefaults[id] = { config: rest, ...(isRecord(context) && { context }) };
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
  let routes: Hono | undefined;
  if (parsed.data.http?.app) {
    const value = await load("http.app", parsed.data.http.app);
    if (!isHonoApp(value)) {
      throw new ServerConfigError(
        `http.app: "${parsed.data.http.app}" is not a Hono app; export \`new Hono()\` with your routes.`,
      );
    }
    routes = value;
  }
  const storeIndex = parsed.data.store?.index
    ? await storeIndexOf(parsed.data.store.index, load, env)
    : undefined;
  const ttl = parsed.data.store?.ttl;
  const storeTtl: StoreTtlOptions | undefined = ttl && {
    ...(ttl.default_ttl != null && { defaultTtl: ttl.default_ttl }),
    ...(ttl.refresh_on_read !== undefined && { refreshOnRead: ttl.refresh_on_read }),
    ...(ttl.sweep_interval_minutes != null && {
      sweepIntervalMinutes: ttl.sweep_interval_minutes,
    }),
  };
  const unused = [
    ...DEPLOYMENT_KEYS.filter((key) => parsed.data[key] !== undefined),
    ...Object.keys(parsed.data.store ?? {})
      .filter((key) => key !== "index" && key !== "ttl")
      .map((key) => `store.${key}`),
    ...Object.keys(parsed.data.http ?? {})
      .filter((key) => key !== "app" && key !== "configurable_headers")
      .map((key) => `http.${key}`),
    ...Object.keys(parsed.data.ui_config ?? {})
      .filter((key) => key !== "shared")
      .map((key) => `ui_config.${key}`),
  ];
  for (const name of Object.keys(parsed.data.ui ?? {})) checkUiName(name);
  const ui = parsed.data.ui && {
    entries: parsed.data.ui,
    cwd: base,
    shared: parsed.data.ui_config?.shared ?? [],
  };
  const configurableHeaders = parsed.data.http?.configurable_headers;
  return {
    graphs,
    seed,
    auth,
    graphDefaults,
    routes,
    unused,
    webhooks,
    configurableHeaders,
    storeIndex,
    ui,
    storeTtl,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// By shape, not instanceof: the user's module may bring its own copy of Hono.
function isHonoApp(value: unknown): value is Hono {
  const app = value as { fetch?: unknown; routes?: unknown } | undefined;
  return typeof app?.fetch === "function" && Array.isArray(app.routes);
}

function fromLanggraphConfig(text: string | undefined): Record<string, Record<string, unknown>> {
  if (!text) return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ServerConfigError(
      sentences(`LANGGRAPH_CONFIG is not valid JSON: ${(error as Error).message}`),
    );
  }
  const parsed = langgraphConfig.safeParse(json);
  if (!parsed.success) {
    throw new ServerConfigError(
      'LANGGRAPH_CONFIG must be an object of graph ids to configs, e.g. {"agent": {"configurable": {"model_name": "openai"}}}.',
    );
  }
  return parsed.data;
}

/** Sets the file's `env` (a .env file relative to it, or variables) where `env` has no value yet. */
async function applyEnv(
  given: string | Record<string, string> | undefined,
  base: string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  if (given === undefined) return;
  let variables: Record<string, string>;
  if (typeof given === "string") {
    const path = resolve(base, given);
    const text = await readFile(path, "utf8").catch(() => {
      throw new ServerConfigError(
        `env: cannot read ${path}; create it, or remove "env" from the config.`,
      );
    });
    variables = parseEnv(text);
  } else {
    variables = given;
  }
  for (const [name, value] of Object.entries(variables)) {
    if (env[name] === undefined) env[name] = value;
  }
}

/** A `.env` file's `NAME=value` lines (optionally `export`ed, quoted, with `#` comments). */
export function parseEnv(text: string): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][\w.]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match) continue;
    let value = match[2]!;
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, "\n");
    } else {
      value = value.replace(/\s+#.*$/, "");
    }
    variables[match[1]!] = value;
  }
  return variables;
}
