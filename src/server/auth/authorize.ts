// Runs the auth file's `on` handler for one resource and action, as LangGraph's server does.
import { AccessRefusedError } from "../../errors/index.js";
import { ServerConfigError } from "../errors.js";
import type { AuthFilters } from "./auth-filters.js";
import type { AuthHandlers } from "./custom-auth.js";
import type { RequestIdentity } from "./identity.js";

/**
 * The resource and action a request touches, named as LangGraph's `Auth.on` names them
 * (`threads:create_run` for starting a run, `store:put` … for the store).
 *
 * @example
 * const event: AuthEvent = "threads:read";
 */
export type AuthEvent =
  | `threads:${"create" | "read" | "update" | "delete" | "search" | "create_run"}`
  | `assistants:${"create" | "read" | "update" | "delete" | "search"}`
  | `crons:${"create" | "read" | "update" | "delete" | "search"}`
  | `store:${"put" | "get" | "search" | "list_namespaces" | "delete"}`;

/** What a handler decided: the filters to apply (none: everything), and the value it may have changed. */
export interface Authorization<V> {
  filters: AuthFilters | undefined;
  value: V;
}

const REFUSALS = new Set([400, 401, 403, 404, 409, 422]);

/**
 * The handler that answers `event`: the most specific one registered, in LangGraph's order
 * `resource:action`, `resource`, `*:action`, `*`.
 */
function handlerFor(auth: AuthHandlers, event: AuthEvent) {
  const callbacks = auth["~handlerCache"].callbacks ?? {};
  const [resource, action] = event.split(":") as [string, string];
  const key = [event, resource, `*:${action}`, "*"].find((k) => typeof callbacks[k] === "function");
  return key === undefined ? undefined : (callbacks[key] as (params: unknown) => unknown);
}

/**
 * Runs the handler for `event` with `value` (which the handler may change, e.g. to add
 * `metadata.owner`) and says what it decided. A handler that throws
 * `HTTPException(403 | 404 | …)` refuses with that status, one that returns `false` with
 * 403; `undefined`, `null` or `true` allow everything; an object is the filters.
 *
 * @example
 * const { filters } = await authorize(auth, who, "threads:search", { metadata: {} });
 * // e.g. { owner: "ana" }: only ana's threads are found
 */
export async function authorize<V>(
  auth: AuthHandlers,
  who: RequestIdentity,
  event: AuthEvent,
  value: V,
): Promise<Authorization<V>> {
  const handler = handlerFor(auth, event);
  if (!handler) return { filters: undefined, value };
  const [resource, action] = event.split(":") as [string, string];
  let result: unknown;
  try {
    result = await handler({
      event,
      resource,
      action,
      value,
      user: who.user,
      permissions: who.user.permissions,
    });
  } catch (error) {
    const status = (error as { status?: unknown } | null)?.status;
    if (typeof status === "number" && REFUSALS.has(status)) {
      throw new AccessRefusedError(
        status as AccessRefusedError["status"],
        (error as Error).message || `The auth handler refused ${event} for "${who.user.identity}".`,
      );
    }
    throw error;
  }
  if (result === undefined || result === null || result === true) {
    return { filters: undefined, value };
  }
  if (result === false) {
    throw new AccessRefusedError(
      403,
      `The auth handler refused ${event} for "${who.user.identity}".`,
    );
  }
  if (typeof result !== "object" || Array.isArray(result)) {
    throw new ServerConfigError(
      `The auth handler for ${event} returned ${JSON.stringify(result)}; an on() handler returns nothing or true (allow), false (refuse), or a filter object such as { owner: user.identity }.`,
    );
  }
  return { filters: result as AuthFilters, value };
}
