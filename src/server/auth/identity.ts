import type { Reviewer } from "../../agent/index.js";

/**
 * The user an auth handler returns, in LangGraph's `BaseUser` shape: `identity` (unique,
 * stable), `permissions`, `display_name`, `is_authenticated`, and any fields of the
 * handler's own (e.g. `groups`, which review rules match by name).
 *
 * @example
 * const user: AuthUser = { identity: "ana", display_name: "Ana", permissions: ["dba"], is_authenticated: true };
 */
export interface AuthUser {
  identity: string;
  display_name: string;
  permissions: string[];
  is_authenticated: boolean;
  [field: string]: unknown;
}

/**
 * Who made a request and how the server knows: `auth_handler` (the deployment's auth file
 * verified them), or `shared_token` (a holder of the shared token, or anyone on loopback
 * without one: the name is whatever they typed, so it is marked unverified everywhere).
 *
 * @example
 * const who: RequestIdentity = { user: { identity: "ana", display_name: "Ana", permissions: [], is_authenticated: true }, method: "auth_handler" };
 */
export interface RequestIdentity {
  user: AuthUser;
  method: "auth_handler" | "shared_token";
}

declare module "hono" {
  interface ContextVariableMap {
    /** Set by the auth handler's middleware; absent under the shared token. */
    identity: RequestIdentity;
  }
}

/** The identity of a shared-token caller who typed `name` (blank: "anonymous"). */
export function sharedTokenIdentity(name: string | undefined): RequestIdentity {
  const identity = name?.trim() || "anonymous";
  return {
    user: { identity, display_name: identity, permissions: [], is_authenticated: false },
    method: "shared_token",
  };
}

/** The reviewer review rules are checked against: verified only through the auth handler. */
export function reviewerOf(who: RequestIdentity): Reviewer {
  const groups = who.user.groups;
  return {
    identity: who.user.identity,
    permissions: who.user.permissions,
    ...(Array.isArray(groups) && { groups: groups.filter((g) => typeof g === "string") }),
    verified: who.method === "auth_handler",
  };
}
