import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidStoreRequestError, StoreEmbeddingError } from "../errors/index.js";
import type { Embeddings, Store, StoreIndexConfig } from "../store/index.js";
import { wordEmbeddings } from "./word-embeddings.js";

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Makes a store with semantic search; called once per case group, so it must be cheap. */
export type MakeIndexedStore = (index: StoreIndexConfig) => Store | Promise<Store>;

const DIMS = 64;

/**
 * The semantic-search half of the store conformance suite (`describeStoreConformance`
 * with `makeIndexedStore`): ranking by a query, which fields are embedded, re-embedding,
 * TTL, filters and pages, and the embedder's failures. `plain` is the suite's store
 * without an index, where a query is ignored.
 */
export function describeSemanticSearch(makeIndexedStore: MakeIndexedStore, plain: () => Store) {
  describe("semantic search", () => {
    // The embedder fails on texts that ask it to: a test of what the store does then.
    const words = wordEmbeddings(DIMS);
    const embed: Embeddings = {
      embedDocuments: async (texts) => {
        if (texts.some((t) => t.includes("embedder-fails"))) throw new Error("provider is down");
        const vectors = await words.embedDocuments(texts);
        if (texts.some((t) => t.includes("wrong-dims"))) return vectors.map((v) => v.slice(1));
        if (texts.some((t) => t.includes("too-few"))) return vectors.slice(1);
        return vectors;
      },
      embedQuery: (text) => words.embedQuery(text),
    };
    let store: Store;
    beforeAll(async () => {
      store = await makeIndexedStore({ dims: DIMS, embed, fields: ["text", "items[*].text"] });
      await store.search([], { limit: 1 });
    }, 120_000);
    afterAll(async () => {
      await store.close?.();
    });
    const root = () => `s${randomUUID().slice(0, 8)}`;
    const ranked = async (ns: string[], query: string, extra: object = {}) =>
      (await store.search(ns, { query, ...extra })).map((i) => i.key);

    it("a query ranks items by similarity, best first, each with its cosine score", async () => {
      const r = root();
      await store.put([r], "cats", { text: "cats sleep on warm windows" });
      await store.put([r], "theme", { text: "the user prefers a dark theme" });
      await store.put([r], "tea", { text: "green tea in the morning" });
      const hits = await store.search([r], { query: "prefers a dark theme" });
      expect(hits.map((i) => i.key)[0]).toBe("theme");
      const scores = hits.map((i) => i.score!);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      for (const score of scores) expect(score).toBeGreaterThanOrEqual(-1);
      const same = await store.search([r], { query: "green tea in the morning", limit: 1 });
      expect(same[0]).toMatchObject({ key: "tea", value: { text: "green tea in the morning" } });
      expect(same[0]!.score).toBeCloseTo(1, 5);
    });

    it("embeds the index's fields; a put's index names others, and index: false embeds nothing", async () => {
      const r = root();
      await store.put([r], "field", { text: "apples", note: "pears" });
      await store.put([r], "override", { text: "apples", note: "pears" }, { index: ["note"] });
      await store.put([r], "whole", { text: "plums" }, { index: ["$"] });
      await store.put([r], "none", { text: "pears" }, { index: false });
      const hits = await store.search([r], { query: "pears" });
      expect(hits[0]!.key).toBe("override");
      expect(hits[0]!.score).toBeCloseTo(1, 5);
      // Unembedded items come after the scored ones, without a score.
      expect(hits.at(-1)).toMatchObject({ key: "none" });
      expect(hits.at(-1)!.score).toBeUndefined();
      expect(hits.find((i) => i.key === "field")!.score!).toBeLessThan(0.5);
      expect((await store.search([r], { query: "plums" }))[0]!.key).toBe("whole");
    });

    it("embeds each element of an array path; the item scores as its best", async () => {
      const r = root();
      await store.put([r], "list", {
        items: [{ text: "rain in spain" }, { text: "snow in oslo" }],
      });
      await store.put([r], "other", { text: "sun in rome" });
      const [first] = await store.search([r], { query: "snow in oslo" });
      expect(first).toMatchObject({ key: "list" });
      expect(first!.score).toBeCloseTo(1, 5);
    });

    it("a put over an item re-embeds it, and delete takes its embeddings along", async () => {
      const r = root();
      await store.put([r], "k", { text: "old words here" });
      await store.put([r], "k", { text: "brand new text" });
      const [hit] = await store.search([r], { query: "brand new text" });
      expect(hit!.score).toBeCloseTo(1, 5);
      expect((await store.search([r], { query: "old words here" }))[0]!.score!).toBeLessThan(0.5);
      await store.delete([r], "k");
      expect(await store.search([r], { query: "brand new text" })).toEqual([]);
    });

    it("a putIf that writes re-embeds the item; one that does not leaves its embeddings", async (ctx) => {
      if (!store.putIf) return ctx.skip();
      const r = root();
      await store.put([r], "k", { text: "old words here" });
      expect(await store.putIf([r], "k", { text: "other" }, { text: "brand new text" })).toBe(
        false,
      );
      expect((await store.search([r], { query: "old words here" }))[0]!.score).toBeCloseTo(1, 5);
      expect(
        await store.putIf([r], "k", { text: "old words here" }, { text: "brand new text" }),
      ).toBe(true);
      expect((await store.search([r], { query: "brand new text" }))[0]!.score).toBeCloseTo(1, 5);
    });

    it("namespace prefix, filter, limit and offset apply to a semantic search", async () => {
      const r = root();
      for (const [k, text, kind] of [
        ["a", "red fox", "animal"],
        ["b", "red fox jumps", "animal"],
        ["c", "red car", "thing"],
        ["d", "blue fox", "animal"],
      ] as const)
        await store.put([r, kind], k, { text, kind });
      await store.put([`${r}x`], "e", { text: "red fox" });
      expect(await ranked([r], "red fox", { filter: { kind: "animal" } })).toEqual(["a", "b", "d"]);
      expect(await ranked([r, "animal"], "red fox", { limit: 2 })).toEqual(["a", "b"]);
      expect(await ranked([r, "animal"], "red fox", { limit: 2, offset: 1 })).toEqual(["b", "d"]);
    });

    it("an item past its TTL is not found by a query", async () => {
      const r = root();
      await store.put([r], "short", { text: "fleeting words" }, { ttl: 0.002 }); // 120 ms
      await store.put([r], "kept", { text: "lasting words" });
      await sleep(400);
      expect(await ranked([r], "fleeting words")).toEqual(["kept"]);
    });

    it("an embedder that throws or answers wrongly is a StoreEmbeddingError, and the item stays as it was", async () => {
      const r = root();
      await store.put([r], "k", { text: "kept words" });
      for (const text of ["embedder-fails", "wrong-dims", "too-few"]) {
        await expect(store.put([r], "k", { text, items: [{ text: "x" }] })).rejects.toBeInstanceOf(
          StoreEmbeddingError,
        );
        await expect(store.put([r], "new", { text })).rejects.toBeInstanceOf(StoreEmbeddingError);
      }
      expect((await store.get([r], "k"))!.value).toEqual({ text: "kept words" });
      expect(await store.get([r], "new")).toBeNull();
      const [hit] = await store.search([r], { query: "kept words" });
      expect(hit!.score).toBeCloseTo(1, 5);
    });

    it("refuses an index without dims, embedder or valid fields, and a bad put index", async () => {
      const refused = (index: unknown) =>
        expect(
          (async () => await makeIndexedStore(index as StoreIndexConfig))(),
        ).rejects.toBeInstanceOf(InvalidStoreRequestError);
      await refused({ dims: 0, embed });
      await refused({ dims: DIMS });
      await refused({ dims: DIMS, embed, fields: ["items[*"] });
      await refused({ dims: DIMS, embed, fields: ["{a,b}"] });
      await expect(
        store.put([root()], "k", { text: "x" }, { index: "text" as never }),
      ).rejects.toBeInstanceOf(InvalidStoreRequestError);
    });

    it("a store without an index ignores a query: newest first, no score (as LangGraph)", async () => {
      const r = root();
      await plain().put([r], "a", { text: "first" });
      // Newest by update time: two puts in one millisecond would tie.
      await new Promise((done) => setTimeout(done, 5));
      await plain().put([r], "b", { text: "second" });
      const hits = await plain().search([r], { query: "first" });
      expect(hits.map((i) => i.key)).toEqual(["b", "a"]);
      expect(hits.every((i) => i.score === undefined)).toBe(true);
    });
  });
}
