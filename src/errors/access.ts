// The errors of access: a deployment's auth handler refusing a request.
import { brandError } from "./brand-error.js";
import { StateweaverError } from "./stateweaver-error.js";

/**
 * A deployment's auth handler refused a request: `authenticate` threw (401), or an `on`
 * handler for the resource and action threw `HTTPException(403 | 404 | …)` or returned
 * `false` (403). `status` is the HTTP status the server answers with; nothing was changed.
 *
 * @example
 * throw new AccessRefusedError(404, 'Thread "t1" not found.');
 */
export class AccessRefusedError extends StateweaverError {
  static {
    brandError(AccessRefusedError);
  }

  readonly status: 400 | 401 | 403 | 404 | 409 | 422;
  constructor(status: AccessRefusedError["status"], message: string) {
    super("ACCESS_REFUSED", message);
    this.status = status;
  }
}
