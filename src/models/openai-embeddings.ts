import type OpenAI from "openai";
import type { Embeddings } from "../store/index.js";
import { openAIClient } from "./openai.js";
import { type ProviderIdentity, toModelError } from "./provider-error.js";
import type { ProviderOptions } from "./provider-options.js";

/**
 * Options for `OpenAIEmbeddings`: the connection options every provider takes, the model,
 * and `dimensions` for models that can shorten their vectors (text-embedding-3-*).
 *
 * @example
 * const options: OpenAIEmbeddingsOptions = { model: "text-embedding-3-small", dimensions: 512 };
 */
export interface OpenAIEmbeddingsOptions
  extends Pick<ProviderOptions, "apiKey" | "baseURL" | "timeout" | "maxRetries"> {
  model: string;
  dimensions?: number;
  /** A client you configured yourself; connection options are then ignored. */
  client?: OpenAI;
}

/**
 * Embeddings from OpenAI's `/v1/embeddings` (or any server speaking it) through the official
 * `openai` SDK: what a store's `index.embed` takes. Usually made with `initEmbeddings`.
 *
 * @example
 * const embed = new OpenAIEmbeddings({ model: "text-embedding-3-small" });
 * const store = new MemoryStore({ index: { dims: 1536, embed } });
 */
export class OpenAIEmbeddings implements Embeddings {
  readonly model: string;
  readonly client: OpenAI;
  readonly #dimensions: number | undefined;
  readonly #identity: ProviderIdentity;

  constructor(options: OpenAIEmbeddingsOptions) {
    this.model = options.model;
    this.#dimensions = options.dimensions;
    this.#identity = { provider: "openai", model: options.model, apiKeyEnv: "OPENAI_API_KEY" };
    this.client = openAIClient(options);
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    try {
      const response = await this.client.embeddings.create({
        model: this.model,
        input: texts,
        encoding_format: "float",
        ...(this.#dimensions !== undefined && { dimensions: this.#dimensions }),
      });
      // The API answers with an index per input; order by it rather than trust the list order.
      return [...response.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
    } catch (error) {
      throw toModelError(this.#identity, error);
    }
  }

  async embedQuery(text: string): Promise<number[]> {
    return (await this.embedDocuments([text]))[0]!;
  }
}
