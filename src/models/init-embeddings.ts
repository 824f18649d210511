import { ModelConfigError } from "../errors/index.js";
import { OpenAIEmbeddings, type OpenAIEmbeddingsOptions } from "./openai-embeddings.js";

/**
 * Creates an embeddings model from a `"<provider>:<model>"` id, as LangGraph's
 * `store.index.embed` names one; OpenAI is the provider there is (any server speaking its
 * `/v1/embeddings` too, through `baseURL` or OPENAI_BASE_URL).
 *
 * @example
 * const store = new MemoryStore({ index: { dims: 1536, embed: initEmbeddings("openai:text-embedding-3-small") } });
 */
export function initEmbeddings(
  id: string,
  options: Omit<OpenAIEmbeddingsOptions, "model"> = {},
): OpenAIEmbeddings {
  const colon = id.indexOf(":");
  const provider = colon === -1 ? "" : id.slice(0, colon);
  const model = id.slice(colon + 1);
  if (provider !== "openai" || !model) {
    throw new ModelConfigError(
      `Embeddings id ${JSON.stringify(id)}: write "openai:<model>", e.g. "openai:text-embedding-3-small" (OpenAI is the embeddings provider built in; for another, pass your own embed function or { embedDocuments, embedQuery } object).`,
    );
  }
  return new OpenAIEmbeddings({ ...options, model });
}
