import { isTransientDatabaseError } from "../checkpoint/index.js";
import {
  AccessRefusedError,
  ConcurrentUpdateError,
  isStateweaverError,
  StateweaverError,
} from "../errors/index.js";
import type { ErrorAnswer } from "./error-answer.js";

/** One problem with a request field, for showing at that field. */
export interface FieldProblem {
  path: string;
  message: string;
}

/**
 * A request the server refuses, with its HTTP status. Handlers throw it; `errorResponse`
 * renders it as `{ error: { code, message, fields? } }` (`errorAnswer` turns that into
 * the text LangGraph's server sends, for a client that does not ask for JSON). `extra` adds top-level keys (a
 * stale decision's `pending` and `checkpointId`).
 *
 * @example
 * throw new RequestError(404, "THREAD_NOT_FOUND", `No thread "t1". Create it with POST /threads.`);
 */
export class RequestError extends StateweaverError {
  readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 422 | 426 | 501 | 502;
  readonly fields: FieldProblem[] | undefined;
  readonly extra: Record<string, unknown> | undefined;
  constructor(
    status: RequestError["status"],
    code: string,
    message: string,
    options: { fields?: FieldProblem[]; extra?: Record<string, unknown> } = {},
  ) {
    super(code, message);
    this.name = "RequestError";
    this.status = status;
    this.fields = options.fields;
    this.extra = options.extra;
  }
}

/**
 * The server cannot start as configured (e.g. a public address without a token, a
 * missing graph in stateweaver.json). The message says what to change.
 */
export class ServerConfigError extends StateweaverError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("SERVER_CONFIG", message, options);
    this.name = "ServerConfigError";
  }
}

/** HTTP status for errors thrown by the layers below, by code. */
const STATUS_BY_CODE: Record<string, RequestError["status"]> = {
  INVALID_RESUME: 400,
  INVALID_UPDATE: 400,
  INVALID_CONFIG: 400,
  INVALID_SEARCH: 400,
  INVALID_ID: 400,
  NON_SERIALIZABLE: 400,
  VALUE_TOO_DEEP: 400,
  NOT_A_REVIEW: 400,
  CHECKPOINT_MISMATCH: 409,
  CONCURRENT_UPDATE: 409,
  THREAD_NOT_FOUND: 404,
  CHECKPOINT_NOT_FOUND: 404,
  THREAD_EXISTS: 409,
  REWIND_TARGET_NOT_FOUND: 409,
  // LangGraph's server answers a namespace it cannot take with 422.
  INVALID_STORE_REQUEST: 422,
  // The store's embeddings provider failed or answered wrongly: an upstream's fault, not the request's.
  STORE_EMBEDDING: 502,
  INVALID_AUDIT_REQUEST: 400,
};

/**
 * Seconds a client is asked to wait (`Retry-After`) when the database is away: about how
 * long a restart or a failover takes; the server itself keeps running meanwhile.
 */
export const DATABASE_RETRY_AFTER_S = 5;

/**
 * The JSON body and status for any thrown value; unknown errors are a 500 without details.
 * A busy thread or a concurrent update is a 409, even when a lock conflict in the database
 * was what ended it. A passing database fault (connection refused or dropped, the server
 * restarting, a failover) is a 503 `DATABASE_UNAVAILABLE` with `Retry-After`: nothing was changed, and
 * the same request can be sent again.
 */
export function errorResponse(error: unknown): ErrorAnswer {
  // A lock conflict PostgreSQL settled is told as the busy thread it was (its cause is the
  // driver's 40P01): a 409 to reload and retry, not a database that is away.
  if (error instanceof ConcurrentUpdateError) {
    return { status: 409, body: { error: { code: error.code, message: error.message } } };
  }
  if (isTransientDatabaseError(error)) {
    return {
      status: 503,
      headers: { "Retry-After": String(DATABASE_RETRY_AFTER_S) },
      body: {
        error: {
          code: "DATABASE_UNAVAILABLE",
          message: `The database is unavailable (restarting, failing over or unreachable); nothing was changed. Try again in ${DATABASE_RETRY_AFTER_S} s.`,
        },
      },
    };
  }
  if (error instanceof RequestError) {
    return {
      status: error.status,
      body: {
        error: {
          code: error.code,
          message: error.message,
          ...(error.fields && { fields: error.fields }),
        },
        ...error.extra,
      },
    };
  }
  if (error instanceof AccessRefusedError) {
    return { status: error.status, body: { error: { code: error.code, message: error.message } } };
  }
  if (isStateweaverError(error)) {
    const status = STATUS_BY_CODE[error.code];
    if (status) return { status, body: { error: { code: error.code, message: error.message } } };
  }
  return {
    status: 500,
    body: {
      error: {
        code: "INTERNAL",
        message: "The server failed to handle this request; its log has the details.",
      },
    },
  };
}
