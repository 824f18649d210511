/**
 * pgvector for PGlite: PGlite 0.5 bundles no pgvector; its build is the optional package
 * `@electric-sql/pglite-pgvector`. Where that package is installed, every PGlite the
 * checkpointer opens offers the extension, so the store's `vectors: "auto"` finds it.
 */
import type { Extension } from "@electric-sql/pglite";

/** A name in a variable: a bundler of the user's app then leaves the optional import to run time. */
const PACKAGE = "@electric-sql/pglite-pgvector";

let loading: Promise<Extension | undefined> | undefined;

/**
 * PGlite's `vector` extension from `@electric-sql/pglite-pgvector` when it is installed,
 * else undefined; looked up once a process.
 *
 * @example
 * const vector = await pgvectorForPGlite();
 * new PGlite(dataDir, vector ? { extensions: { vector } } : {});
 */
export function pgvectorForPGlite(): Promise<Extension | undefined> {
  loading ??= (import(PACKAGE) as Promise<{ vector: Extension }>).then(
    (module) => module.vector,
    (error: unknown) => {
      // Not installed is the ordinary case; anything else (a broken install) is not hidden.
      const missing =
        (error as { code?: unknown } | null)?.code === "ERR_MODULE_NOT_FOUND" &&
        String((error as Error).message).includes(PACKAGE);
      if (missing) return undefined;
      loading = undefined;
      throw error;
    },
  );
  return loading;
}
