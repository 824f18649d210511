// The inbox's signed-in user: a cookie the server signs, holding the user the auth file returned.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { AuthUser } from "./identity.js";

/** The HttpOnly cookie of a browser that signed in through the auth file. */
export const USER_SESSION_COOKIE = "sw_user";

/** How long a sign-in lasts: a working day. The user's permissions are those of sign-in time. */
export const USER_SESSION_SECONDS = 12 * 60 * 60;

/**
 * Signs and reads session cookies with one key: the server's `sessionSecret`, or a random
 * key per process (every browser signs in again after a restart, and servers behind one
 * address need a shared secret).
 *
 * @example
 * const sessions = new UserSessions(process.env.STATEWEAVER_SESSION_SECRET);
 * const cookie = sessions.sign(user); // then sessions.read(cookie) is the user until it expires
 */
export class UserSessions {
  readonly #key: Buffer;

  constructor(secret?: string) {
    this.#key = secret ? Buffer.from(secret) : randomBytes(32);
  }

  #mac(payload: string): string {
    return createHmac("sha256", this.#key).update(payload).digest("base64url");
  }

  /** The cookie value for `user`, valid for `USER_SESSION_SECONDS` from `now`. */
  sign(user: AuthUser, now = Date.now()): string {
    const payload = Buffer.from(
      JSON.stringify({ user, exp: now + USER_SESSION_SECONDS * 1000 }),
    ).toString("base64url");
    return `${payload}.${this.#mac(payload)}`;
  }

  /** The user a cookie this server signed holds; `undefined` when forged, altered or expired. */
  read(cookie: string | undefined, now = Date.now()): AuthUser | undefined {
    const [payload, mac] = cookie?.split(".") ?? [];
    if (!payload || !mac) return undefined;
    const expected = Buffer.from(this.#mac(payload));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    try {
      const { user, exp } = JSON.parse(Buffer.from(payload, "base64url").toString()) as {
        user: AuthUser;
        exp: number;
      };
      return typeof exp === "number" && exp > now && typeof user?.identity === "string"
        ? user
        : undefined;
    } catch {
      return undefined;
    }
  }
}
