import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import { type AuthHandlers, requestUser, signInUser } from "./auth/custom-auth.js";
import {
  USER_SESSION_COOKIE,
  USER_SESSION_SECONDS,
  type UserSessions,
} from "./auth/user-session.js";
import { CSRF_COOKIE, checkCsrf, checkSameSite, fromBrowser } from "./csrf.js";
import { RequestError, ServerConfigError } from "./errors.js";
import { parseBody } from "./request-body.js";

/** The HttpOnly cookie of a browser that logged in with the token. */
export const SESSION_COOKIE = "sw_session";

/** Who may call the server: with `token`, only holders of it; without, only this machine. */
export interface AccessOptions {
  token: string | undefined;
}

/** With an auth file, the inbox signs people in through it instead of the shared token. */
export interface SignInOptions extends AccessOptions {
  auth?: AuthHandlers | undefined;
  sessions?: UserSessions | undefined;
}

/**
 * The configured token, checked: `undefined` (no token: this machine only) or a string
 * with something in it. An empty or blank token would let an empty `x-api-key` header
 * through, so it is a `ServerConfigError`, as is anything but a string.
 *
 * @example
 * checkToken(process.env.STATEWEAVER_TOKEN || undefined); // the token, or undefined
 */
export function checkToken(token: unknown): string | undefined {
  if (token === undefined) return undefined;
  if (typeof token !== "string" || token.trim() === "") {
    throw new ServerConfigError(
      `The server's token is ${typeof token === "string" ? "empty" : `a ${typeof token}`}; an empty token would let an empty x-api-key header in. Pass a long random string as token (e.g. openssl rand -hex 32), or leave token out to answer only this machine.`,
    );
  }
  return token;
}

const sameBytes = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

// The session cookie is derived from the token, never the token itself, so a leaked
// cookie does not give the bearer token away, and a new token logs every browser out.
const sessionOf = (token: string) => createHmac("sha256", token).update("sw_session").digest("hex");

const loopbackHosts = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/;
const loopbackAddresses = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * The address of the client's end of the connection, when the request came through
 * Node's HTTP server (`listen()`, or `@hono/node-server`'s `serve` / `getRequestListener`
 * in the user's own server, which hand the socket over as `c.env.incoming`). Any other
 * way in (`app.request()`, another runtime) gives no address.
 */
function peerAddress(c: Context): string | undefined {
  const env = c.env as
    | { incoming?: { socket?: { remoteAddress?: string } }; server?: { incoming?: unknown } }
    | undefined;
  const incoming = (env?.server?.incoming ?? env?.incoming) as
    | { socket?: { remoteAddress?: string } }
    | undefined;
  return incoming?.socket?.remoteAddress;
}

/**
 * Without a token, only this machine may call: the connection must come from a loopback
 * address, and the `Host` must be a loopback name (a page on another site that DNS points
 * at 127.0.0.1 sends its own name: DNS rebinding). The `Host` alone proves nothing, since
 * any client can send any `Host`; a request whose connection we cannot see is refused.
 */
function checkThisMachine(c: Context): void {
  const peer = peerAddress(c);
  if (peer === undefined) {
    throw new RequestError(
      403,
      "TOKEN_REQUIRED",
      "This server has no token and cannot see where this request came from (it did not come through Node's HTTP server: listen(), or serve / getRequestListener from @hono/node-server). Create it with a token (createServer({ token })) and send Authorization: Bearer <token>.",
    );
  }
  if (!loopbackAddresses.test(peer)) {
    throw new RequestError(
      403,
      "TOKEN_REQUIRED",
      `This server has no token, so it only answers this machine, and this request came from ${peer}. Set a token (STATEWEAVER_TOKEN, or createServer({ token })) and send it as Authorization: Bearer <token>.`,
    );
  }
  if (!loopbackHosts.test(c.req.header("host") ?? "")) {
    throw new RequestError(
      403,
      "HOST_NOT_ALLOWED",
      "This server has no token, so it only answers requests addressed to 127.0.0.1 or localhost.",
    );
  }
}

/**
 * Checks every request it is mounted before (health, login and the inbox's static files
 * are mounted ahead of it, so they stay open). With a token: API clients send `Authorization: Bearer <token>`
 * (or `x-api-key`), browsers the session cookie from `POST /auth/login` plus the CSRF
 * header on state-changing requests. Without a token: only this machine (a loopback
 * connection and a loopback `Host`, see `checkThisMachine`), and browser requests that
 * change state need the CSRF header.
 */
export function requireAccess(options: AccessOptions): MiddlewareHandler {
  const token = checkToken(options.token);
  return async function requireAccess(c, next) {
    if (token === undefined) {
      checkThisMachine(c);
      if (fromBrowser(c)) checkCsrf(c);
      return next();
    }
    const bearer = c.req.header("authorization")?.match(/^Bearer\s+(.+)$/i)?.[1];
    const key = bearer ?? c.req.header("x-api-key");
    if (key !== undefined) {
      if (!sameBytes(key, token))
        throw new RequestError(401, "BAD_TOKEN", "The token is wrong; send STATEWEAVER_TOKEN.");
      return next();
    }
    const session = getCookie(c, SESSION_COOKIE);
    if (session === undefined || !sameBytes(session, sessionOf(token))) {
      throw new RequestError(
        401,
        "LOGIN_REQUIRED",
        "Log in first: POST /auth/login with { token } (browsers), or send Authorization: Bearer <STATEWEAVER_TOKEN>.",
      );
    }
    checkCsrf(c);
    return next();
  };
}

function setCsrfCookie(c: Context, secure: boolean): string {
  const value = randomBytes(24).toString("base64url");
  setCookie(c, CSRF_COOKIE, value, { path: "/", sameSite: "Strict", secure });
  return value;
}

/**
 * `POST /auth/login` `{ token }`, `POST /auth/logout` and `GET /auth/csrf` (sets the CSRF
 * cookie; says whether a login is needed, and who is signed in). With an auth file, the
 * login's `token` is the credential the auth file's `authenticate` accepts (sent to it as
 * `Authorization: Bearer <token>`); the user it returns is kept in a signed, HttpOnly,
 * SameSite=Strict session cookie, and is who decides reviews from that browser, until a
 * logout (which revokes that session on every server) or a revocation (`sessionRoutes`).
 */
export function authRoutes(options: SignInOptions): Hono {
  const routes = new Hono();
  const secureOf = (c: Context) => new URL(c.req.url).protocol === "https:";
  const { auth, sessions } = options;
  routes.post("/login", async (c) => {
    checkSameSite(c);
    const { token } = await parseBody(c, z.object({ token: z.string().min(1) }));
    if (auth && sessions) {
      const user = await signInUser(auth, token, c.req.url);
      setCookie(c, USER_SESSION_COOKIE, sessions.sign(user), {
        path: "/",
        httpOnly: true,
        sameSite: "Strict",
        secure: secureOf(c),
        maxAge: USER_SESSION_SECONDS,
      });
      return c.json({
        authenticated: true,
        csrfToken: setCsrfCookie(c, secureOf(c)),
        user: { identity: user.identity, displayName: user.display_name, verified: true },
      });
    }
    if (options.token === undefined) {
      return c.json({ authenticated: true, csrfToken: setCsrfCookie(c, secureOf(c)) });
    }
    if (!sameBytes(token, options.token))
      throw new RequestError(401, "BAD_TOKEN", "That token is wrong; use STATEWEAVER_TOKEN.");
    setCookie(c, SESSION_COOKIE, sessionOf(options.token), {
      path: "/",
      httpOnly: true,
      sameSite: "Strict",
      secure: secureOf(c),
    });
    return c.json({ authenticated: true, csrfToken: setCsrfCookie(c, secureOf(c)) });
  });
  routes.post("/logout", async (c) => {
    checkSameSite(c);
    // Ended on the server too: the same cookie, sent again by anyone, is refused.
    const session = sessions?.read(getCookie(c, USER_SESSION_COOKIE));
    if (session) await sessions!.signOut(session);
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    deleteCookie(c, USER_SESSION_COOKIE, { path: "/" });
    deleteCookie(c, CSRF_COOKIE, { path: "/" });
    return c.json({ authenticated: false });
  });
  routes.get("/csrf", async (c) => {
    const csrfToken = getCookie(c, CSRF_COOKIE) ?? setCsrfCookie(c, secureOf(c));
    if (auth) {
      // Signed in here, or known to the auth file by what the browser sends (an SSO cookie).
      const user = await requestUser(auth, sessions, c).catch(() => undefined);
      return c.json({
        csrfToken,
        authenticated: user !== undefined,
        tokenRequired: true,
        signIn: "auth_handler",
        ...(user && {
          user: { identity: user.identity, displayName: user.display_name, verified: true },
        }),
      });
    }
    const session = getCookie(c, SESSION_COOKIE);
    const authenticated =
      options.token === undefined ||
      (session !== undefined && sameBytes(session, sessionOf(options.token)));
    return c.json({
      csrfToken,
      authenticated,
      tokenRequired: options.token !== undefined,
      signIn: "shared_token",
    });
  });
  return routes;
}
