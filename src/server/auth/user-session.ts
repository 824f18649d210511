// The inbox's signed-in user: a cookie the server signs, holding the user the auth file returned.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { AuthUser } from "./identity.js";
import type { SessionRevocations } from "./session-revocations.js";

/** The HttpOnly cookie of a browser that signed in through the auth file. */
export const USER_SESSION_COOKIE = "sw_user";

/** How long a sign-in lasts: a working day. The user's permissions are those of sign-in time. */
export const USER_SESSION_SECONDS = 12 * 60 * 60;

/**
 * One sign-in, as its cookie holds it: the user, the session's own id (what a sign-out
 * revokes) and when it was issued and ends (ms since the epoch).
 *
 * @example
 * const session: UserSession = { user, id: "q2x…", issuedAt: 1767225600000, expiresAt: 1767268800000 };
 */
export interface UserSession {
  user: AuthUser;
  id: string;
  issuedAt: number;
  expiresAt: number;
}

/**
 * What a cookie is worth: a session to take, one that was revoked (signed out, or its
 * user's or everyone's sessions revoked since it was issued), or nothing (no cookie, or
 * one forged, altered or expired).
 *
 * @example
 * const checked: SessionCheck = { status: "revoked" };
 */
export type SessionCheck =
  | { status: "valid"; session: UserSession }
  | { status: "revoked" }
  | { status: "none" };

/**
 * Signs and reads session cookies with one key: the server's `sessionSecret`, or a random
 * key per process (every browser signs in again after a restart, and servers behind one
 * address need a shared secret). `check` also asks `revocations` whether the session was
 * signed out, or issued before its user's or everyone's sessions were revoked.
 *
 * @example
 * const sessions = new UserSessions(process.env.STATEWEAVER_SESSION_SECRET, sessionRevocationsFor(checkpointer));
 * const cookie = sessions.sign(user); // then sessions.check(cookie) is the session until it ends
 */
export class UserSessions {
  readonly #key: Buffer;
  readonly #revocations: SessionRevocations;

  constructor(secret: string | undefined, revocations: SessionRevocations) {
    this.#key = secret ? Buffer.from(secret) : randomBytes(32);
    this.#revocations = revocations;
  }

  #mac(payload: string): string {
    return createHmac("sha256", this.#key).update(payload).digest("base64url");
  }

  /** The cookie value for a new session of `user`, valid for `USER_SESSION_SECONDS` from `now`. */
  sign(user: AuthUser, now = Date.now()): string {
    const session = {
      user,
      sid: randomBytes(16).toString("base64url"),
      iat: now,
      exp: now + USER_SESSION_SECONDS * 1000,
    };
    const payload = Buffer.from(JSON.stringify(session)).toString("base64url");
    return `${payload}.${this.#mac(payload)}`;
  }

  /**
   * The session a cookie this server signed holds; `undefined` when forged, altered,
   * expired, or signed before sessions had ids (those could not be revoked, so they are
   * not taken). Revocations are not looked at: `check` does.
   */
  read(cookie: string | undefined, now = Date.now()): UserSession | undefined {
    const [payload, mac] = cookie?.split(".") ?? [];
    if (!payload || !mac) return undefined;
    const expected = Buffer.from(this.#mac(payload));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    try {
      const { user, sid, iat, exp } = JSON.parse(Buffer.from(payload, "base64url").toString()) as {
        user: AuthUser;
        sid: unknown;
        iat: unknown;
        exp: unknown;
      };
      return typeof exp === "number" &&
        exp > now &&
        typeof iat === "number" &&
        typeof sid === "string" &&
        typeof user?.identity === "string"
        ? { user, id: sid, issuedAt: iat, expiresAt: exp }
        : undefined;
    } catch {
      return undefined;
    }
  }

  /** `read`, and then whether the session was revoked since it was issued. */
  async check(cookie: string | undefined, now = Date.now()): Promise<SessionCheck> {
    const session = this.read(cookie, now);
    if (!session) return { status: "none" };
    const at = await this.#revocations.latest([
      { session: session.id },
      { identity: session.user.identity },
      { everyone: true },
    ]);
    return at !== undefined && session.issuedAt <= at
      ? { status: "revoked" }
      : { status: "valid", session };
  }

  /**
   * Ends one session on every server (a sign-out). Recorded at the session's expiry, so it
   * covers the session whatever its issue time, and is forgotten once the session has ended.
   */
  signOut(session: UserSession): Promise<void> {
    return this.#revocations.revoke({ session: session.id }, session.expiresAt);
  }

  /** Refuses every session of a user (or of everyone) issued until `now`; later sign-ins work. */
  revoke(subject: { identity: string } | { everyone: true }, now = Date.now()): Promise<void> {
    return this.#revocations.revoke(subject, now);
  }
}
