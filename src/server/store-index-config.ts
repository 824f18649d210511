import { isStateweaverError } from "../errors/index.js";
import { initEmbeddings } from "../models/index.js";
import type { Embeddings, EmbedFunction, StoreIndexConfig } from "../store/index.js";
import { ServerConfigError } from "./errors.js";

/** `store.index` as langgraph.json writes it: `embed` is `"openai:<model>"` or `"./file.ts:export"`. */
export interface StoreIndexSpec {
  embed: string;
  dims: number;
  fields?: string[] | undefined;
}

/**
 * The store's index from the config file's `store.index`: `"openai:<model>"` is
 * `initEmbeddings` (key and base URL from OPENAI_API_KEY and OPENAI_BASE_URL in `env`);
 * anything else is a module export, an embed function or an embeddings object, loaded by
 * `load` as the graphs are.
 *
 * @example
 * await storeIndexOf({ embed: "openai:text-embedding-3-small", dims: 1536 }, load, process.env);
 */
export async function storeIndexOf(
  spec: StoreIndexSpec,
  load: (where: string, spec: string) => Promise<unknown>,
  env: NodeJS.ProcessEnv,
): Promise<StoreIndexConfig> {
  const fields = spec.fields ? { fields: spec.fields } : {};
  if (spec.embed.startsWith("openai:")) {
    try {
      const embed = initEmbeddings(spec.embed, {
        ...(env.OPENAI_API_KEY && { apiKey: env.OPENAI_API_KEY }),
        ...(env.OPENAI_BASE_URL && { baseURL: env.OPENAI_BASE_URL }),
      });
      return { dims: spec.dims, embed, ...fields };
    } catch (error) {
      if (!isStateweaverError(error)) throw error;
      throw new ServerConfigError(`store.index.embed: ${error.message}`, { cause: error });
    }
  }
  if (!/^.+:[A-Za-z_$][\w$]*$/.test(spec.embed)) {
    throw new ServerConfigError(
      `store.index.embed: ${JSON.stringify(spec.embed)} is neither "openai:<model>" nor "<module path>:<export>" naming an embed function.`,
    );
  }
  const embed = await load("store.index.embed", spec.embed);
  const embeddings = embed as Partial<Embeddings> | undefined;
  if (
    typeof embed !== "function" &&
    !(
      typeof embeddings?.embedDocuments === "function" &&
      typeof embeddings.embedQuery === "function"
    )
  ) {
    throw new ServerConfigError(
      `store.index.embed: "${spec.embed}" is not an embed function (texts) => Promise<number[][]> nor an object with embedDocuments and embedQuery.`,
    );
  }
  return { dims: spec.dims, embed: embed as EmbedFunction | Embeddings, ...fields };
}
