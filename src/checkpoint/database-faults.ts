/**
 * SQLSTATE codes of faults that say nothing about the statement: the same statement, sent
 * again on a new connection a little later, can succeed. Class 08 is matched as a class.
 * - 57P01 admin_shutdown (`pg_terminate_backend`, a fast shutdown), 57P02 crash_shutdown,
 *   57P03 cannot_connect_now (starting up, shutting down, in recovery);
 * - 40001 serialization_failure, 40P01 deadlock_detected (the transaction was rolled back);
 * - 53300 too_many_connections, 25006 read_only_sql_transaction (a primary that became a
 *   standby during a failover).
 */
const TRANSIENT_SQLSTATES = new Set([
  "57P01",
  "57P02",
  "57P03",
  "40001",
  "40P01",
  "53300",
  "25006",
]);

/** Node's socket errors for a server that is away or unreachable for now. */
const TRANSIENT_SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);

/**
 * What `pg` says when a connection ended under it; these errors carry no code. Matched on
 * the start of the message, which `pg` has kept stable across versions.
 */
const TRANSIENT_MESSAGES = [
  "Connection terminated",
  "Client has encountered a connection error and is not queryable",
  "Client was closed and is not queryable",
  "timeout exceeded when trying to connect",
  "Connection ended unexpectedly",
];

/**
 * Whether `error` (or an error it was caused by) is a database fault that goes away by
 * itself: a dropped or refused connection, a server shutting down or restarting, a
 * failover, a serialization failure or deadlock. Such an error says nothing about the
 * work that met it, so that work is tried again later, from its last checkpoint, rather
 * than recorded as failed. Anything else (a constraint, a bad statement, our own typed
 * errors) is not transient.
 *
 * @example
 * try { await checkpointer.getLatest("t1"); }
 * catch (error) { if (isTransientDatabaseError(error)) retryLater(); else throw error; }
 */
export function isTransientDatabaseError(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; depth++) {
    if (typeof e !== "object") return false;
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === "string") {
      if (code.startsWith("08") && code.length === 5) return true;
      if (TRANSIENT_SQLSTATES.has(code) || TRANSIENT_SOCKET_CODES.has(code)) return true;
    }
    if (typeof message === "string" && TRANSIENT_MESSAGES.some((m) => message.startsWith(m)))
      return true;
    if (e instanceof AggregateError && e.errors.some(isTransientDatabaseError)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
