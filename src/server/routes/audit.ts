// The audit log over HTTP: export and verify, for those holding the audit permission.
import type { Context } from "hono";
import { Hono } from "hono";
import { stream } from "hono/streaming";
import { AUDIT_EXPORT_FORMATS, exportLines } from "../../audit/index.js";
import { RequestError } from "../errors.js";
import type { ServerContext } from "../server-context.js";

/**
 * Refuses (403) a caller the auth handler knows without the audit permission. Under the
 * shared token there is no one to tell apart: whoever holds the token (or, with no token,
 * whoever is on this machine) can already run, resume and rewrite any thread through the
 * API, so reading the record of it is theirs too.
 */
function checkAuditPermission(ctx: ServerContext, c: Context): void {
  const who = c.get("identity");
  if (who === undefined || who.user.permissions.includes(ctx.auditPermission)) return;
  throw new RequestError(
    403,
    "AUDIT_PERMISSION_REQUIRED",
    `Reading the audit log needs the "${ctx.auditPermission}" permission, which ${who.user.identity} does not have. Ask an administrator, or give it in the auth file's users.`,
  );
}

/**
 * `GET /audit/export?since=<iso>&format=jsonl` (the entries appended since then, one JSON
 * object a line, hashes included) and `GET /audit/verify` (the chain walked: `ok`, how
 * many entries, the head, and the first broken link; `?expect_head=<hash>` also fails it
 * when the head recorded earlier is no longer in the log). Both need the audit permission.
 */
export function auditRoutes(ctx: ServerContext): Hono {
  return new Hono()
    .use(async (c, next) => {
      checkAuditPermission(ctx, c);
      return next();
    })
    .get("/export", async (c) => {
      const format = c.req.query("format") ?? "jsonl";
      if (!(AUDIT_EXPORT_FORMATS as readonly string[]).includes(format)) {
        throw new RequestError(
          400,
          "INVALID_AUDIT_REQUEST",
          `format must be one of ${AUDIT_EXPORT_FORMATS.join(", ")}; got "${format}".`,
        );
      }
      const since = c.req.query("since");
      const query = since === undefined ? {} : { since };
      // Checked before the answer starts, so a bad `since` is a 400, not a cut-off stream.
      await ctx.audit.list({ ...query, limit: 1 });
      c.header("content-type", "application/x-ndjson; charset=utf-8");
      return stream(c, async (out) => {
        for await (const line of exportLines(ctx.audit, query)) await out.write(line);
      });
    })
    .get("/verify", async (c) => {
      const expectHead = c.req.query("expect_head");
      return c.json(await ctx.audit.verify(expectHead === undefined ? {} : { expectHead }));
    });
}
