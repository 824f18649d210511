// The PostgreSQL error codes (SQLSTATE) the SQL store tells apart, and how to read one off an error.
export const UNIQUE_VIOLATION = "23505";
export const FOREIGN_KEY_VIOLATION = "23503";

/** The SQLSTATE code of a driver's error, if it has one. */
export function sqlState(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}
