// Revoking the inbox's signed-in sessions: a user's own everywhere, or anyone's for an admin.
import { type Context, Hono } from "hono";
import { z } from "zod";
import type { UserSessions } from "../auth/user-session.js";
import { RequestError } from "../errors.js";
import { parseBody } from "../request-body.js";

const RevokeBody = z.union([
  z.strictObject({ identity: z.string().min(1) }),
  z.strictObject({ everyone: z.literal(true) }),
]);

/** Who may revoke `subject`: anyone their own sessions, else a holder of `permission`. */
function checkMayRevoke(c: Context, subject: z.output<typeof RevokeBody>, permission: string) {
  const who = c.get("identity")!;
  if ("identity" in subject && subject.identity === who.user.identity) return;
  if (who.user.permissions.includes(permission)) return;
  const whose = "identity" in subject ? `${subject.identity}'s sessions` : "everyone's sessions";
  throw new RequestError(
    403,
    "ADMIN_PERMISSION_REQUIRED",
    `Revoking ${whose} needs the "${permission}" permission, which ${who.user.identity} does not have. Anyone may revoke their own: send { "identity": "${who.user.identity}" }.`,
  );
}

/**
 * `POST /auth/revoke` `{ identity }` or `{ everyone: true }`: every inbox session of that
 * user (or of everyone) signed in until now is refused from now on, on every server
 * sharing the database; signing in again works (if the auth file still lets them in). A
 * user may revoke their own sessions (sign out everywhere); others' need `permission`.
 * Without an auth file there are no user sessions: a 400 says what to do instead.
 *
 * @example
 * app.route("/auth", sessionRoutes(sessions, "admin")); // after authentication
 */
export function sessionRoutes(sessions: UserSessions | undefined, permission: string): Hono {
  return new Hono().post("/revoke", async (c) => {
    if (!sessions || !c.get("identity")) {
      throw new RequestError(
        400,
        "NO_USER_SESSIONS",
        "This server has no auth file, so there are no user sessions to revoke: browsers sign in with the shared token. Change the token (STATEWEAVER_TOKEN) to sign every browser out.",
      );
    }
    const subject = await parseBody(c, RevokeBody);
    checkMayRevoke(c, subject, permission);
    const at = Date.now();
    await sessions.revoke(subject, at);
    return c.json({ revoked: subject, at: new Date(at).toISOString() });
  });
}
