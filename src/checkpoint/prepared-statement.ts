// Hot statements sent to PostgreSQL through `pg` as named prepared statements.
import { createHash } from "node:crypto";

const names = new Map<string, string>();

/**
 * A `pg` query that PostgreSQL parses once per connection and then only binds and runs
 * (after five runs it may also keep a generic plan instead of planning each call). The
 * name is derived from the text, so two texts never share one name on a connection.
 * Statements sent this way name their columns (no `select *`): a prepared statement
 * whose result shape changes under it (a later migration) would fail on that connection.
 *
 * @example
 * await pool.query(prepared("select latest_id from t where thread_id = $1", [threadId]));
 */
export function prepared(
  text: string,
  values: unknown[] = [],
): { name: string; text: string; values: unknown[] } {
  let name = names.get(text);
  if (name === undefined) {
    name = `sw_${createHash("sha1").update(text).digest("hex").slice(0, 24)}`;
    names.set(text, name);
  }
  return { name, text, values };
}
