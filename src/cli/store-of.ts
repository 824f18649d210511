// The store `serve` uses, opened from the same environment by commands that run without a server.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  type Checkpointer,
  PGliteCheckpointer,
  PostgresCheckpointer,
} from "../checkpoint/index.js";
import { ServerConfigError } from "../server/index.js";

/**
 * The store `serve` would open, from the same environment; a PGlite directory with no
 * database in it is refused rather than created (nothing was ever recorded there).
 */
export function storeOf(env: NodeJS.ProcessEnv): Checkpointer {
  if (env.DATABASE_URL) {
    const tablePrefix = env.STATEWEAVER_TABLE_PREFIX || undefined;
    return new PostgresCheckpointer({
      connectionString: env.DATABASE_URL,
      ...(tablePrefix && { tablePrefix }),
    });
  }
  const dataDir = env.STATEWEAVER_DATA_DIR || "./.stateweaver";
  if (!existsSync(join(resolve(dataDir), "PG_VERSION"))) {
    throw new ServerConfigError(
      `There is no stateweaver database in ${dataDir}: set STATEWEAVER_DATA_DIR to the directory serve uses, or DATABASE_URL for PostgreSQL.`,
    );
  }
  return new PGliteCheckpointer({ dataDir });
}
