// The audit log's errors.
import { brandError } from "./brand-error.js";
import { StateweaverError } from "./stateweaver-error.js";

/**
 * An audit log call was given something it cannot take: a `since` that is not a date, a
 * bad page size or table prefix. Nothing was read or written.
 */
export class InvalidAuditRequestError extends StateweaverError {
  static {
    brandError(InvalidAuditRequestError);
  }

  constructor(message: string) {
    super("INVALID_AUDIT_REQUEST", message);
  }
}
