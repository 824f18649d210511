// The PostgreSQL error codes (SQLSTATE) the SQL store tells apart, and how to read one off an error.
export const UNIQUE_VIOLATION = "23505";
export const FOREIGN_KEY_VIOLATION = "23503";
/** PostgreSQL ended one transaction of a lock cycle (none is left once every call keeps the lock order, store.ts). */
export const DEADLOCK_DETECTED = "40P01";
/** Under REPEATABLE READ or SERIALIZABLE (not the default), a row changed since the snapshot. */
export const SERIALIZATION_FAILURE = "40001";

/** The SQLSTATE code of a driver's error, if it has one. */
export function sqlState(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}
