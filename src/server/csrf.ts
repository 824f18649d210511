import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { RequestError } from "./errors.js";

/** The readable cookie holding the CSRF token, and the header that must repeat it. */
export const CSRF_COOKIE = "sw_csrf";
export const CSRF_HEADER = "x-csrf-token";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * A request a browser made: it carries cookies, an `Origin` or fetch metadata. A CSRF
 * attack needs a browser, and browsers send `Origin` and `Sec-Fetch-Site` on every
 * cross-site POST, so a request with none of these is a program (e.g. the SDK client).
 */
export function fromBrowser(c: Context): boolean {
  const h = c.req.raw.headers;
  return h.has("cookie") || h.has("origin") || h.has("sec-fetch-site");
}

/**
 * Refuse a state-changing browser request from another site, or one without the CSRF
 * token (the `sw_csrf` cookie's value repeated in the `x-csrf-token` header: another
 * site can make the browser send the cookie, but cannot read it to set the header).
 */
export function checkCsrf(c: Context): void {
  if (SAFE_METHODS.has(c.req.method)) return;
  checkSameSite(c);
  const cookie = getCookie(c, CSRF_COOKIE);
  const header = c.req.header(CSRF_HEADER);
  if (!cookie || !header || cookie !== header) {
    throw new RequestError(
      403,
      "CSRF_TOKEN_MISSING",
      `This browser request changes state, so it must carry the ${CSRF_HEADER} header equal to the ${CSRF_COOKIE} cookie (GET /auth/csrf sets it). API clients send a bearer token instead.`,
    );
  }
}

/** Refuse a request that a page on another site made. */
export function checkSameSite(c: Context): void {
  if (c.req.header("sec-fetch-site") === "cross-site") {
    throw new RequestError(403, "CROSS_SITE", "Requests from other sites are refused.");
  }
  const origin = c.req.header("origin");
  if (origin === undefined) return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (host !== c.req.header("host")) {
    throw new RequestError(
      403,
      "CROSS_SITE",
      `Origin ${origin} is not this server; requests from other sites are refused.`,
    );
  }
}
