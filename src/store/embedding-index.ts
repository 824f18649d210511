/**
 * Semantic search's index: which texts of an item are embedded, and the embedder's answers
 * checked (count, dims, numbers) and scaled to unit length, so that every store scores an
 * item by a plain dot product (its cosine similarity to the query).
 */
import { InvalidStoreRequestError, StoreEmbeddingError } from "../errors/index.js";
import { type TextPath, textPath, textsAt } from "./text-paths.js";

/**
 * Turns texts into vectors, one per text, in order: e.g. a call to an embeddings API.
 *
 * @example
 * const embed: EmbedFunction = async (texts) => (await openai.embeddings.create({ model, input: texts })).data.map((d) => d.embedding);
 */
export type EmbedFunction = (texts: string[]) => Promise<number[][]>;

/**
 * An embeddings model in LangChain's shape (`OpenAIEmbeddings` from `@langchain/openai`
 * fits, and so does `initEmbeddings` from `stateweaver/models`).
 *
 * @example
 * const embeddings: Embeddings = initEmbeddings("openai:text-embedding-3-small");
 */
export interface Embeddings {
  embedDocuments(texts: string[]): Promise<number[][]>;
  embedQuery(text: string): Promise<number[]>;
}

/**
 * Semantic search for a store, as LangGraph's `IndexConfig`: items are embedded when put
 * and `search(prefix, { query })` ranks them by cosine similarity to the query.
 *
 * @example
 * const store = new MemoryStore({
 *   index: { dims: 1536, embed: initEmbeddings("openai:text-embedding-3-small"), fields: ["text"] },
 * });
 */
export interface StoreIndexConfig {
  /** The length of every vector the embedder returns (1536 for text-embedding-3-small). */
  dims: number;
  /** An embed function, or an embeddings object with `embedDocuments` and `embedQuery`. */
  embed?: EmbedFunction | Embeddings;
  /** LangGraph.js's name for `embed` (an embeddings object), so its configs work unchanged. */
  embeddings?: Embeddings;
  /**
   * Which parts of a value to embed, each a vector of its own (an item scores as its best):
   * `"$"` the whole value (the default), `"text"`, `"meta.title"`, `"items[*].text"`,
   * `"tags[0]"`, `"tags[-1]"`. A put's `index` option overrides it for that item.
   */
  fields?: string[];
}

/** One vector of an item: which field (and element) it came from, at unit length. */
export interface FieldVector {
  field: string;
  vector: number[];
}

/**
 * A checked `StoreIndexConfig` at work: picks an item's texts, embeds them and the query.
 *
 * @example
 * const index = new EmbeddingIndex({ dims: 3, embed: async (texts) => texts.map(() => [1, 0, 0]) });
 * await index.vectorsOf({ text: "hi" }); // [{ field: "$", vector: [1, 0, 0] }]
 */
export class EmbeddingIndex {
  readonly dims: number;
  readonly #fields: TextPath[];
  readonly #documents: (texts: string[]) => Promise<number[][]>;
  readonly #query: (text: string) => Promise<number[]>;

  constructor(config: StoreIndexConfig) {
    if (config === null || typeof config !== "object") {
      throw new InvalidStoreRequestError(
        `A store's index is { dims, embed, fields? }; got ${JSON.stringify(config)}.`,
      );
    }
    if (!Number.isInteger(config.dims) || config.dims < 1) {
      throw new InvalidStoreRequestError(
        `index.dims must be the embedder's vector length, a whole number ≥ 1 (1536 for OpenAI's text-embedding-3-small); got ${JSON.stringify(config.dims)}.`,
      );
    }
    this.dims = config.dims;
    const embed = config.embed ?? config.embeddings;
    if (typeof embed === "function") {
      this.#documents = (texts) => embed(texts);
      this.#query = async (text) => (await embed([text]))[0]!;
    } else if (
      typeof embed?.embedDocuments === "function" &&
      typeof embed.embedQuery === "function"
    ) {
      this.#documents = (texts) => embed.embedDocuments(texts);
      this.#query = (text) => embed.embedQuery(text);
    } else {
      throw new InvalidStoreRequestError(
        'index.embed must be a function (texts) => Promise<number[][]> or an object with embedDocuments and embedQuery, e.g. initEmbeddings("openai:text-embedding-3-small").',
      );
    }
    if (config.fields !== undefined && !Array.isArray(config.fields)) {
      throw new InvalidStoreRequestError(
        `index.fields must be an array of paths, e.g. ["text", "items[*].text"]; got ${JSON.stringify(config.fields)}.`,
      );
    }
    this.#fields = (config.fields ?? ["$"]).map(textPath);
  }

  /**
   * The vectors for `value`: one per text at the index's fields, or at `fields` when a put
   * names its own; none for `false`. Throws `StoreEmbeddingError` when the embedder fails.
   */
  async vectorsOf(
    value: Record<string, unknown>,
    fields?: false | readonly string[] | null,
  ): Promise<FieldVector[]> {
    if (fields === false) return [];
    const paths = fields ? fields.map(textPath) : this.#fields;
    const found: Array<{ field: string; text: string }> = [];
    for (const path of paths) {
      const texts = textsAt(value, path);
      texts.forEach((text, i) => {
        found.push({ field: texts.length > 1 ? `${path.path}.${i}` : path.path, text });
      });
    }
    if (found.length === 0) return [];
    const texts = found.map((f) => f.text);
    const vectors = await this.#call("embed the item's texts", () => this.#documents(texts));
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      throw new StoreEmbeddingError(
        `The embedder returned ${Array.isArray(vectors) ? vectors.length : "no"} vectors for ${texts.length} texts; it must return one per text, in order. Nothing was stored.`,
      );
    }
    return found.map((f, i) => ({ field: f.field, vector: this.#unit(vectors[i]) }));
  }

  /** The query's vector, at unit length. */
  async queryVector(query: string): Promise<number[]> {
    return this.#unit(await this.#call("embed the query", () => this.#query(query)));
  }

  async #call<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new StoreEmbeddingError(
        `The store's embedder failed to ${what}: ${(error as Error)?.message ?? String(error)}. Nothing was stored; check the embeddings provider (its key, URL and model), then try again.`,
        { cause: error },
      );
    }
  }

  #unit(vector: unknown): number[] {
    if (!Array.isArray(vector) || vector.length !== this.dims) {
      throw new StoreEmbeddingError(
        `The embedder returned a vector of ${Array.isArray(vector) ? vector.length : "no"} dimensions; the index says dims: ${this.dims}. Set index.dims to the model's vector length (or ask the model for ${this.dims}).`,
      );
    }
    let squares = 0;
    for (const x of vector) {
      if (typeof x !== "number" || !Number.isFinite(x)) {
        throw new StoreEmbeddingError(
          `The embedder returned a vector holding ${JSON.stringify(x)}; every element must be a finite number.`,
        );
      }
      squares += x * x;
    }
    // A zero vector stays zero: it scores 0 against every query.
    const norm = Math.sqrt(squares) || 1;
    return vector.map((x: number) => x / norm);
  }
}

/** The dot product of two unit vectors: their cosine similarity. */
export function similarity(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}
