import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { checkCsrf, fromBrowser } from "../csrf.js";
import { RequestError, ServerConfigError } from "../errors.js";
import type { AuthUser } from "./identity.js";
import { USER_SESSION_COOKIE, type UserSessions } from "./user-session.js";

/**
 * What the server reads from an auth file's export: the shape of LangGraph's `Auth`
 * (`new Auth().authenticate(…).on(…)` from `@langchain/langgraph-sdk/auth`), whose
 * handlers live under `~handlerCache`. Pass the `Auth` instance itself.
 *
 * @example
 * import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
 * export const auth = new Auth().authenticate(async (request) => {
 *   const user = users.get(request.headers.get("authorization") ?? "");
 *   if (!user) throw new HTTPException(401, { message: "Unknown token" });
 *   return { identity: user.id, permissions: user.roles, display_name: user.name };
 * });
 */
export interface AuthHandlers {
  "~handlerCache": {
    authenticate?: (request: Request) => unknown;
    callbacks?: Record<string, unknown>;
  };
}

const REFUSALS = new Set([400, 401, 403, 404, 409, 422]);

/** The user a handler returned, in `AuthUser` shape; a string is an identity. */
function userOf(returned: unknown): AuthUser {
  if (typeof returned === "string" && returned.length > 0) {
    return { identity: returned, display_name: returned, permissions: [], is_authenticated: true };
  }
  if (typeof returned === "object" && returned !== null) {
    const user = returned as Record<string, unknown>;
    if (typeof user.identity === "string" && user.identity.length > 0) {
      const permissions = Array.isArray(user.permissions)
        ? user.permissions.filter((p): p is string => typeof p === "string")
        : [];
      return {
        ...user,
        identity: user.identity,
        display_name: typeof user.display_name === "string" ? user.display_name : user.identity,
        permissions,
        is_authenticated: user.is_authenticated !== false,
      };
    }
  }
  throw new ServerConfigError(
    `The auth handler returned ${JSON.stringify(returned) ?? String(returned)}; authenticate must return the user ({ identity, permissions?, display_name? }) or an identity string, or throw HTTPException(401) to refuse.`,
  );
}

/** Reads the handlers of an `Auth`-shaped object, refusing anything else at start-up. */
export function authHandlersOf(auth: unknown): AuthHandlers["~handlerCache"] {
  const cache = (auth as Partial<AuthHandlers> | null)?.["~handlerCache"];
  if (typeof cache !== "object" || cache === null || typeof cache.authenticate !== "function") {
    throw new ServerConfigError(
      "The auth export is not an Auth with an authenticate handler: export `new Auth().authenticate(request => user)` (from @langchain/langgraph-sdk/auth).",
    );
  }
  return cache;
}

/** Runs `authenticate` on `request`: the user, or the handler's refusal as a `RequestError`. */
export async function userFrom(auth: AuthHandlers, request: Request): Promise<AuthUser> {
  const { authenticate } = authHandlersOf(auth);
  let returned: unknown;
  try {
    returned = await authenticate!(request);
  } catch (error) {
    const status = (error as { status?: unknown } | null)?.status;
    if (typeof status === "number" && REFUSALS.has(status)) {
      throw new RequestError(
        status as RequestError["status"],
        status === 403 ? "FORBIDDEN" : "UNAUTHENTICATED",
        (error as Error).message || "The auth handler refused this request.",
      );
    }
    throw error;
  }
  return userOf(returned);
}

/**
 * The user behind a credential typed into the inbox's sign-in: the auth file's
 * `authenticate` runs on a request to `url` carrying only `Authorization: Bearer <credential>`,
 * as an API client would send it (none of the browser's cookies or headers go with it).
 *
 * @example
 * const user = await signInUser(auth, "eyJhbGciOi…", "https://reviews.example.com/auth/login");
 */
export function signInUser(auth: AuthHandlers, credential: string, url: string): Promise<AuthUser> {
  return userFrom(auth, new Request(url, { headers: { authorization: `Bearer ${credential}` } }));
}

/**
 * Who a request comes from: the user of its inbox session cookie while that session is
 * good, else whoever `authenticate` makes of the request (an API client's credential, an
 * SSO cookie). A request with an `Authorization` header is always `authenticate`'s. A
 * revoked session that `authenticate` does not vouch for otherwise is a 401
 * `SESSION_REVOKED`, saying to sign in again.
 *
 * @example
 * const user = await requestUser(auth, sessions, c);
 */
export async function requestUser(
  auth: AuthHandlers,
  sessions: UserSessions | undefined,
  c: Context,
): Promise<AuthUser> {
  const checked =
    sessions && !c.req.header("authorization")
      ? await sessions.check(getCookie(c, USER_SESSION_COOKIE))
      : { status: "none" as const };
  if (checked.status === "valid") return checked.session.user;
  try {
    return await userFrom(auth, c.req.raw);
  } catch (error) {
    if (checked.status !== "revoked" || !(error instanceof RequestError) || error.status !== 401)
      throw error;
    throw new RequestError(
      401,
      "SESSION_REVOKED",
      "This browser's inbox session was signed out or revoked; sign in again (POST /auth/login).",
    );
  }
}

/**
 * Runs the auth file's `authenticate` on every request it is mounted before, in place of
 * the shared token, and keeps the user as the request's `identity`. A handler that throws
 * `HTTPException(401 | 403 | …)` refuses the request with that status and its message.
 * A browser signed in to the inbox (`POST /auth/login`) sends no credential: its session
 * cookie, signed by `sessions`, holds the user `authenticate` returned at sign-in, until
 * the session is signed out or revoked (see `requestUser`). Browsers still send the CSRF
 * header on requests that change state.
 */
export function authenticateRequests(
  auth: AuthHandlers,
  sessions?: UserSessions,
): MiddlewareHandler {
  authHandlersOf(auth);
  return async function authenticateRequests(c, next) {
    const user = await requestUser(auth, sessions, c);
    c.set("identity", { user, method: "auth_handler" });
    if (fromBrowser(c)) checkCsrf(c);
    return next();
  };
}
