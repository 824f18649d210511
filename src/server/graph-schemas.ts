// A hosted graph's zod schemas as the JSON Schemas LangGraph's getSchemas and getSubgraphs answer with.
import { z } from "zod";
import type { CompiledGraph } from "../index.js";

/** A JSON Schema document (draft-07), as sent to clients. */
export type JsonSchema = Record<string, unknown>;

/**
 * A graph described for clients, in the shape LangGraph's server gives each namespace of
 * `getSubgraphs` (and `getSchemas` renames to `input_schema`…): `null` where the graph
 * has no zod schema to describe it.
 *
 * @example
 * const described: GraphSchemas = { state: { type: "object" }, input: { type: "object" },
 *   output: { type: "object" }, config: null };
 */
export interface GraphSchemas {
  /** The state schema given to `new Graph({ state })`. */
  state: JsonSchema | null;
  /** The same, every key optional: a run's input updates some keys, never needs all. */
  input: JsonSchema | null;
  /** What a run ends with: the state (a graph has no separate output schema). */
  output: JsonSchema | null;
  /** `runtime.context`, from `new Graph({ context })`; LangGraph.js serves it as both config and context. */
  config: JsonSchema | null;
}

/** One zod schema as draft-07 JSON Schema; types JSON cannot say (a function, a Date's class) become `{}`. */
function jsonSchemaOf(schema: z.ZodType | undefined): JsonSchema | null {
  if (!schema) return null;
  return z.toJSONSchema(schema, { target: "draft-7", unrepresentable: "any" }) as JsonSchema;
}

/**
 * The JSON Schemas of a graph's state, input, output and context, from the zod schemas it
 * was built with.
 *
 * @example
 * graphSchemas(graph).state?.properties; // { messages: { type: "array", … } }
 */
export function graphSchemas(graph: CompiledGraph<any, any>): GraphSchemas {
  const { state, context } = graph.schemas;
  const stateJson = jsonSchemaOf(state);
  let input: JsonSchema | null = null;
  if (stateJson) {
    const { required: _required, ...optional } = stateJson;
    input = optional;
  }
  return { state: stateJson, input, output: stateJson, config: jsonSchemaOf(context) };
}

/**
 * A graph's subgraphs by namespace (node names joined with `|`), as LangGraph's
 * `getSubgraphs` walks them: without `namespace`, the direct subgraphs (and, with
 * `recurse`, theirs); with one, only the subgraph at that namespace (reached through its
 * parents when `recurse` is set).
 *
 * @example
 * subgraphsOf(nested, undefined, true).map(([ns]) => ns); // ["gp_two", "gp_two|p_two"]
 */
export function subgraphsOf(
  graph: CompiledGraph<any, any>,
  namespace: string | undefined,
  recurse: boolean,
): Array<[string, CompiledGraph<any, any>]> {
  const found: Array<[string, CompiledGraph<any, any>]> = [];
  for (const [name, subgraph] of graph.subgraphs) {
    if (namespace !== undefined && namespace !== name && !namespace.startsWith(`${name}|`))
      continue;
    if (name === namespace) return [[name, subgraph]];
    if (namespace === undefined) found.push([name, subgraph]);
    if (!recurse) continue;
    const rest = namespace?.slice(name.length + 1);
    const nested = subgraphsOf(subgraph, rest, recurse).map(
      ([ns, g]): [string, CompiledGraph<any, any>] => [`${name}|${ns}`, g],
    );
    // A namespace names one subgraph: the first match below is the answer.
    if (namespace !== undefined && nested.length > 0) return nested.slice(0, 1);
    found.push(...nested);
  }
  return found;
}
