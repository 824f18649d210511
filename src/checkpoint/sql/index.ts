/**
 * The SQL shared by `PGliteCheckpointer` and `PostgresCheckpointer`: the driver contract
 * (`driver.ts`), the schema and its migrations, the statement text, and the store.
 */
export type { Query, SqlDriver } from "./driver.js";
export { besideCheckpointer, sideTable } from "./side-table.js";
export { DEFAULT_TABLE_PREFIX } from "./statements.js";
export { SqlCheckpointer } from "./store.js";
