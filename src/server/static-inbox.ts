import { readFile } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import type { MiddlewareHandler } from "hono";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".json": "application/json",
  ".woff2": "font/woff2",
  ".ico": "image/x-icon",
};

// Page routes of the inbox app; `/threads/:id` is also an API path, so only a browser
// asking for HTML gets the page there.
const PAGE = /^\/(?:|threads\/[^/]+|reviews\/[^/]+)$/;

/**
 * Serves the built inbox (`dist/inbox`): `index.html` for its page routes, files under
 * `/assets/`. Paths are resolved inside the folder only. A missing build answers the
 * page routes with a short note on how to build it.
 *
 * @example
 * app.use(staticInbox("/srv/stateweaver/dist/inbox"));
 */
export function staticInbox(folder: string): MiddlewareHandler {
  const root = resolve(folder);
  return async function staticInbox(c, next) {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return next();
    const path = c.req.path;
    if (path.startsWith("/assets/")) {
      const file = resolve(join(root, decodeURIComponent(path)));
      if (!file.startsWith(root + sep)) return c.notFound();
      const body = await readFile(file).catch(() => undefined);
      if (!body) return c.notFound();
      return c.body(body, 200, {
        "Content-Type": TYPES[extname(file)] ?? "application/octet-stream",
        "Cache-Control": "public, max-age=31536000, immutable",
      });
    }
    const wantsPage = path === "/" || (c.req.header("accept") ?? "").includes("text/html");
    if (!PAGE.test(path) || !wantsPage) return next();
    const index = await readFile(join(root, "index.html")).catch(() => undefined);
    if (!index) {
      return c.text(
        "The inbox is not built here. Run `npm run build:inbox`, or use the HTTP API.",
        503,
      );
    }
    return c.body(index, 200, {
      "Content-Type": TYPES[".html"]!,
      "Cache-Control": "no-cache",
    });
  };
}
