import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidStoreRequestError, NonSerializableError } from "../errors/index.js";
import type { Store, StoreTtlConfig } from "../store/index.js";
import { describeSemanticSearch, type MakeIndexedStore } from "./semantic-search-cases.js";

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * The behaviour every long-term store shares, as one vitest suite. Each store joins it in
 * one line; every case works under a namespace of its own, so a shared database is fine.
 * With `makeIndexedStore` (a store of the same kind built with a `StoreIndexConfig`), the
 * semantic-search cases run too; with `makeTtlStore` (built with a `StoreTtlConfig`), the
 * store-wide TTL cases.
 *
 * @example
 * describeStoreConformance("MemoryStore", () => new MemoryStore(), {
 *   makeIndexedStore: (index) => new MemoryStore({ index }),
 *   makeTtlStore: (ttl) => new MemoryStore({ ttl }),
 * });
 */
export function describeStoreConformance(
  name: string,
  makeStore: () => Store | Promise<Store>,
  options: {
    cleanup?: (store: Store) => Promise<void> | void;
    makeIndexedStore?: MakeIndexedStore;
    makeTtlStore?: (ttl: StoreTtlConfig) => Store;
  } = {},
): void {
  describe(`${name} (store conformance)`, () => {
    let store: Store;
    beforeAll(async () => {
      store = await makeStore();
      // The first call opens a database (seconds for PGlite on a busy machine): not a case's time.
      await store.search([], { limit: 1 });
    }, 120_000);
    afterAll(async () => {
      await options.cleanup?.(store);
      await store.close?.();
    });
    const root = () => `t${randomUUID().slice(0, 8)}`;

    it("puts an item and gets it back with its namespace, key, value and times", async () => {
      const ns = [root(), "prefs"];
      const before = Date.now();
      await store.put(ns, "theme", { color: "dark", size: 2 });
      const item = await store.get(ns, "theme");
      expect(item).toMatchObject({
        namespace: ns,
        key: "theme",
        value: { color: "dark", size: 2 },
      });
      expect(item!.createdAt).toBeInstanceOf(Date);
      expect(item!.updatedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(await store.get(ns, "missing")).toBeNull();
    });

    it("a put over an item replaces its value, keeps createdAt and moves updatedAt", async () => {
      const ns = [root()];
      await store.put(ns, "k", { v: 1 });
      const first = await store.get(ns, "k");
      await sleep(5);
      await store.put(ns, "k", { v: 2 });
      const second = await store.get(ns, "k");
      expect(second!.value).toEqual({ v: 2 });
      expect(second!.createdAt.getTime()).toBe(first!.createdAt.getTime());
      expect(second!.updatedAt.getTime()).toBeGreaterThan(first!.updatedAt.getTime());
    });

    it("delete removes the item; deleting what is not there is fine", async () => {
      const ns = [root()];
      await store.put(ns, "k", { v: 1 });
      await store.delete(ns, "k");
      await store.delete(ns, "k");
      expect(await store.get(ns, "k")).toBeNull();
    });

    it("putIf writes only over the value it expects (null: no item), in any key order", async (ctx) => {
      if (!store.putIf) return ctx.skip();
      const ns = [root()];
      await store.put(ns, "k", { v: 1, w: [1, { x: 2 }] });
      const first = await store.get(ns, "k");
      await sleep(5);
      expect(await store.putIf(ns, "k", { v: 2, w: [1, { x: 2 }] }, { v: 3 })).toBe(false);
      expect(await store.putIf(ns, "k", null, { v: 3 })).toBe(false);
      expect((await store.get(ns, "k"))!.value).toEqual({ v: 1, w: [1, { x: 2 }] });
      expect(await store.putIf(ns, "k", { w: [1, { x: 2 }], v: 1 }, { v: 3 })).toBe(true);
      const second = await store.get(ns, "k");
      expect(second!.value).toEqual({ v: 3 });
      expect(second!.createdAt.getTime()).toBe(first!.createdAt.getTime());
      expect(second!.updatedAt.getTime()).toBeGreaterThan(first!.updatedAt.getTime());
      expect(await store.putIf(ns, "new", { v: 3 }, { v: 1 })).toBe(false);
      expect(await store.get(ns, "new")).toBeNull();
      expect(await store.putIf(ns, "new", null, { v: 1 }, { ttl: 60 })).toBe(true);
      expect((await store.get(ns, "new"))!.value).toEqual({ v: 1 });
    });

    it("putIf with a null value removes the item only when it holds the expected value", async (ctx) => {
      if (!store.putIf) return ctx.skip();
      const ns = [root()];
      await store.put(ns, "k", { v: 1 });
      expect(await store.putIf(ns, "k", null, null)).toBe(false);
      expect(await store.putIf(ns, "k", { v: 2 }, null)).toBe(false);
      expect(await store.get(ns, "k")).not.toBeNull();
      expect(await store.putIf(ns, "k", { v: 1 }, null)).toBe(true);
      expect(await store.get(ns, "k")).toBeNull();
      expect(await store.putIf(ns, "k", { v: 1 }, null)).toBe(false);
      expect(await store.putIf(ns, "k", null, null)).toBe(true);
    });

    it("of concurrent putIfs from one value, exactly one writes", async (ctx) => {
      if (!store.putIf) return ctx.skip();
      const putIf = store.putIf.bind(store);
      const ns = [root()];
      const writers = [...Array(8).keys()];
      const created = await Promise.all(writers.map((n) => putIf(ns, "k", null, { n })));
      expect(created.filter(Boolean)).toHaveLength(1);
      const made = (await store.get(ns, "k"))!.value;
      expect(made).toEqual({ n: created.indexOf(true) });
      const changed = await Promise.all(writers.map((n) => putIf(ns, "k", made, { n, again: 1 })));
      expect(changed.filter(Boolean)).toHaveLength(1);
      expect((await store.get(ns, "k"))!.value).toEqual({ n: changed.indexOf(true), again: 1 });
      const removed = await Promise.all(
        writers.map(async () => putIf(ns, "k", { n: changed.indexOf(true), again: 1 }, null)),
      );
      expect(removed.filter(Boolean)).toHaveLength(1);
    });

    it("putIf counts an expired item as absent", async (ctx) => {
      if (!store.putIf) return ctx.skip();
      const ns = [root()];
      await store.put(ns, "k", { v: 1 }, { ttl: 0.002 }); // 120 ms
      await sleep(400);
      expect(await store.putIf(ns, "k", { v: 1 }, { v: 2 })).toBe(false);
      expect(await store.putIf(ns, "k", null, { v: 2 })).toBe(true);
      expect((await store.get(ns, "k"))!.value).toEqual({ v: 2 });
    });

    it("hands out copies: changing what get returned changes nothing stored", async () => {
      const ns = [root()];
      const value = { list: [1, 2], nested: { a: 1 } };
      await store.put(ns, "k", value);
      value.list.push(3);
      const got = await store.get(ns, "k");
      (got!.value.nested as { a: number }).a = 99;
      expect((await store.get(ns, "k"))!.value).toEqual({ list: [1, 2], nested: { a: 1 } });
    });

    it("search by prefix finds nested namespaces, not siblings that share the text", async () => {
      const r = root();
      await store.put([r, "users"], "a", { n: 1 });
      await store.put([r, "users", "u1"], "b", { n: 2 });
      await store.put([r, "users2"], "c", { n: 3 });
      await store.put([r, "us%rs"], "d", { n: 4 });
      const keys = (await store.search([r, "users"])).map((i) => i.key).sort();
      expect(keys).toEqual(["a", "b"]);
      expect((await store.search([r, "us%rs"])).map((i) => i.key)).toEqual(["d"]);
      expect((await store.search([r])).length).toBe(4);
    });

    it("search returns the newest-updated first and pages with limit and offset", async () => {
      const r = root();
      for (const k of ["a", "b", "c", "d"]) {
        await store.put([r], k, { k });
        await sleep(3);
      }
      await store.put([r], "b", { k: "b", again: true });
      expect((await store.search([r])).map((i) => i.key)).toEqual(["b", "d", "c", "a"]);
      expect((await store.search([r], { limit: 2 })).map((i) => i.key)).toEqual(["b", "d"]);
      expect((await store.search([r], { limit: 2, offset: 2 })).map((i) => i.key)).toEqual([
        "c",
        "a",
      ]);
      expect(await store.search([r], { limit: 0 })).toEqual([]);
    });

    it("filters on fields: equality (objects too), $ne, number comparisons, $in and $nin", async () => {
      const r = root();
      await store.put([r], "a", { status: "open", p: 1, tags: { x: 1 } });
      await store.put([r], "b", { status: "done", p: 2 });
      await store.put([r], "c", { status: "open", p: 3, owner: "ana" });
      const keys = async (filter: Record<string, unknown>) =>
        (await store.search([r], { filter })).map((i) => i.key).sort();
      expect(await keys({ status: "open" })).toEqual(["a", "c"]);
      expect(await keys({ tags: { x: 1 } })).toEqual(["a"]);
      expect(await keys({ status: { $ne: "open" } })).toEqual(["b"]);
      expect(await keys({ p: { $gte: 2 } })).toEqual(["b", "c"]);
      expect(await keys({ p: { $gt: 1, $lt: 3 } })).toEqual(["b"]);
      expect(await keys({ p: { $lte: 1 } })).toEqual(["a"]);
      expect(await keys({ owner: { $in: ["ana", "bo"] } })).toEqual(["c"]);
      expect(await keys({ owner: { $nin: ["ana"] } })).toEqual(["a", "b"]);
      expect(await keys({ status: "open", p: { $gt: 2 } })).toEqual(["c"]);
      expect(await keys({ missing: "x" })).toEqual([]);
      await expect(store.search([r], { filter: { p: { $near: 1 } } })).rejects.toThrow(
        InvalidStoreRequestError,
      );
    });

    it("lists namespaces by prefix and suffix (* is any label), cut to maxDepth, sorted and paged", async () => {
      const r = root();
      await store.put([r, "a", "x"], "k", { v: 1 });
      await store.put([r, "a", "y"], "k", { v: 1 });
      await store.put([r, "b", "x"], "k", { v: 1 });
      expect(await store.listNamespaces({ prefix: [r] })).toEqual([
        [r, "a", "x"],
        [r, "a", "y"],
        [r, "b", "x"],
      ]);
      expect(await store.listNamespaces({ prefix: [r, "*", "x"] })).toEqual([
        [r, "a", "x"],
        [r, "b", "x"],
      ]);
      expect(await store.listNamespaces({ prefix: [r], suffix: ["y"] })).toEqual([[r, "a", "y"]]);
      expect(await store.listNamespaces({ prefix: [r], maxDepth: 2 })).toEqual([
        [r, "a"],
        [r, "b"],
      ]);
      expect(await store.listNamespaces({ prefix: [r], limit: 1, offset: 1 })).toEqual([
        [r, "a", "y"],
      ]);
    });

    it("an item past its TTL is gone from get, search and the namespaces", async () => {
      const r = root();
      await store.put([r], "short", { v: 1 }, { ttl: 0.002 }); // 120 ms
      await store.put([r], "kept", { v: 2 });
      await sleep(400);
      expect(await store.get([r], "short")).toBeNull();
      expect((await store.search([r])).map((i) => i.key)).toEqual(["kept"]);
      await store.put([r, "gone"], "k", { v: 1 }, { ttl: 0.002 });
      await sleep(400);
      expect(await store.listNamespaces({ prefix: [r] })).toEqual([[r]]);
    });

    it("reading refreshes a TTL unless refreshTtl is false", async () => {
      const r = root();
      await store.put([r], "refreshed", { v: 1 }, { ttl: 0.05 }); // 3 s
      await store.put([r], "not", { v: 1 }, { ttl: 0.05 });
      await sleep(1800);
      expect(await store.get([r], "refreshed")).not.toBeNull();
      expect(await store.get([r], "not", { refreshTtl: false })).not.toBeNull();
      await sleep(1800);
      expect(await store.get([r], "refreshed", { refreshTtl: false })).not.toBeNull();
      expect(await store.get([r], "not")).toBeNull();
    });

    const makeTtlStore = options.makeTtlStore;
    it.skipIf(!makeTtlStore)(
      "a put without ttl lives the store's defaultTtl; ttl null lives for ever",
      async () => {
        const ttlStore = makeTtlStore!({ defaultTtl: 0.002 }); // 120 ms
        const r = root();
        await ttlStore.put([r], "default", { v: 1 });
        await ttlStore.put([r], "forever", { v: 2 }, { ttl: null });
        await sleep(400);
        expect(await ttlStore.get([r], "default")).toBeNull();
        expect((await ttlStore.search([r])).map((i) => i.key)).toEqual(["forever"]);
      },
    );

    it.skipIf(!makeTtlStore)(
      "with refreshOnRead false, a read restarts the TTL only when it asks",
      async () => {
        const ttlStore = makeTtlStore!({ defaultTtl: 0.05, refreshOnRead: false }); // 3 s
        const r = root();
        await ttlStore.put([r], "read", { v: 1 });
        await ttlStore.put([r], "asked", { v: 2 });
        await sleep(1800);
        expect(await ttlStore.get([r], "read")).not.toBeNull();
        expect(await ttlStore.get([r], "asked", { refreshTtl: true })).not.toBeNull();
        await sleep(1800);
        expect(await ttlStore.get([r], "read")).toBeNull();
        expect(await ttlStore.get([r], "asked")).not.toBeNull();
      },
    );

    it.skipIf(!makeTtlStore)(
      "sweepExpired deletes what expired, and a bad TTL setting is a typed error",
      async () => {
        const ttlStore = makeTtlStore!({});
        const r = root();
        await ttlStore.put([r], "short", { v: 1 }, { ttl: 0.002 });
        await sleep(400);
        // At least this one (other cases' items may have expired in a shared table too).
        expect(await ttlStore.sweepExpired!()).toBeGreaterThanOrEqual(1);
        expect(() => makeTtlStore!({ defaultTtl: -5 })).toThrow(InvalidStoreRequestError);
        expect(() => makeTtlStore!({ refreshOnRead: "no" as never })).toThrow(/refreshOnRead/);
      },
    );

    it("refuses bad namespaces, keys, values, TTLs and pages with typed errors, storing nothing", async () => {
      const r = root();
      const refused = async (
        call: Promise<unknown>,
        type: new (...a: never[]) => Error = InvalidStoreRequestError,
      ) => await expect(call).rejects.toBeInstanceOf(type);
      await refused(store.put([], "k", { v: 1 }));
      await refused(store.put([r, "a.b"], "k", { v: 1 }));
      await refused(store.put([r, ""], "k", { v: 1 }));
      await refused(store.put([r], "", { v: 1 }));
      await refused(store.put([r], "k", [1, 2] as never));
      await refused(store.put([r], "k", null as never));
      await refused(store.put([r], "k", { f: () => 1 }), NonSerializableError);
      await refused(store.put([r], "k", { v: 1 }, { ttl: -1 }));
      await refused(store.search([r], { limit: -1 }));
      await refused(store.search([r], { offset: 1.5 }));
      await refused(store.listNamespaces({ maxDepth: 0 }));
      if (store.putIf) {
        await refused(store.putIf([r], "k", [1] as never, { v: 1 }));
        await refused(store.putIf([r], "k", null, "v" as never));
        await refused(store.putIf([r, "a.b"], "k", null, null));
        await refused(store.putIf([r], "k", null, { f: () => 1 }), NonSerializableError);
      }
      expect(await store.search([r])).toEqual([]);
    });

    if (options.makeIndexedStore) describeSemanticSearch(options.makeIndexedStore, () => store);
  });
}
