import type { Embeddings } from "../store/index.js";

/**
 * A deterministic embedder for tests: each word counts in one of `dims` buckets (a hash of
 * the word), so texts that share words are close and the same text scores 1. No model,
 * no network; not a measure of meaning, only of shared words.
 *
 * @example
 * const store = new MemoryStore({ index: { dims: 64, embed: wordEmbeddings(64) } });
 */
export function wordEmbeddings(dims: number): Embeddings & { calls: string[][] } {
  const calls: string[][] = [];
  const vectorOf = (text: string) => {
    const vector = new Array<number>(dims).fill(0);
    for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
      let hash = 2166136261;
      for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 16777619);
      vector[(hash >>> 0) % dims]! += 1;
    }
    return vector;
  };
  return {
    calls,
    async embedDocuments(texts) {
      calls.push([...texts]);
      return texts.map(vectorOf);
    },
    async embedQuery(text) {
      calls.push([text]);
      return vectorOf(text);
    },
  };
}
