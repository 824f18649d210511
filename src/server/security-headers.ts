import type { MiddlewareHandler } from "hono";

/**
 * The Content-Security-Policy of every response: only this origin's own files, no inline
 * scripts or styles, no plugins, no framing.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/**
 * Sets the strict CSP and the usual hardening headers on every response (HTML, JSON and
 * SSE alike, so a JSON body opened as a page cannot run anything either).
 *
 * @example
 * app.use(securityHeaders());
 */
export function securityHeaders(): MiddlewareHandler {
  return async function securityHeaders(c, next) {
    await next();
    const h = c.res.headers;
    h.set("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    h.set("X-Content-Type-Options", "nosniff");
    h.set("X-Frame-Options", "DENY");
    h.set("Referrer-Policy", "no-referrer");
    h.set("Cross-Origin-Opener-Policy", "same-origin");
    // A route may open its answer to other origins (the generative-UI bundles do).
    if (!h.has("Cross-Origin-Resource-Policy"))
      h.set("Cross-Origin-Resource-Policy", "same-origin");
    h.set("Permissions-Policy", "camera=(), microphone=(), geolocation=()");
  };
}
