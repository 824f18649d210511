import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { createApp, type ServerOptions } from "./app.js";
import { ServerConfigError } from "./errors.js";
import type { ServerContext } from "./server-context.js";

/** Host names that only this machine can reach. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "::1"]);

/**
 * A stateweaver server: the Hono `app` (mount it in your own server, or call
 * `app.request()`), and `listen`/`close` to run it on Node's HTTP server. However it runs,
 * without a token the API answers only connections it sees come from this machine
 * (`app.request()` has no connection, so it needs the token).
 *
 * @example
 * const server = createServer({ graphs: { ops: agent }, checkpointer });
 * const { url } = await server.listen({ port: 2024 });
 * // …
 * await server.close();
 */
export interface StateweaverServer {
  app: ReturnType<typeof createApp>["app"];
  context: ServerContext;
  /**
   * Listen on `host` (127.0.0.1 by default) and `port` (2024 by default; 0 picks a free
   * one). Any other host than loopback needs `token` (or `auth`), or this throws `ServerConfigError`.
   */
  listen(options?: { port?: number; host?: string }): Promise<{ url: string; port: number }>;
  /** Stop listening, cancel the runs still working, and wait for them. The store stays open. */
  close(): Promise<void>;
}

/**
 * Create a stateweaver server (see `ServerOptions`). Nothing listens until `listen()`.
 *
 * @example
 * import { createServer } from "stateweaver/server";
 * const server = createServer({ graphs: { ops: agent }, checkpointer: new PGliteCheckpointer("./.stateweaver") });
 * await server.listen();
 */
export function createServer(options: ServerOptions): StateweaverServer {
  const { app, context, websockets } = createApp(options);
  let http: ServerType | undefined;
  return {
    app,
    context,
    async listen({ port = 2024, host = "127.0.0.1" } = {}) {
      if (!LOOPBACK_HOSTS.has(host) && !options.token && !options.auth) {
        throw new ServerConfigError(
          `Refusing to listen on ${host} without STATEWEAVER_TOKEN: anyone who can reach it could approve tool calls. Set STATEWEAVER_TOKEN, or bind 127.0.0.1.`,
        );
      }
      const started = await new Promise<ServerType>((resolve, reject) => {
        const s = serve({ fetch: app.fetch, port, hostname: host }, () => resolve(s));
        s.once("error", reject);
      });
      websockets.inject(started as Server);
      http = started;
      const bound = (started.address() as AddressInfo).port;
      const shown = host.includes(":") ? `[${host}]` : host;
      return { url: `http://${shown}:${bound}`, port: bound };
    },
    async close() {
      // Node's HTTP/1 server (serve() makes no other here).
      const s = http as Server | undefined;
      http = undefined;
      // No new requests first; then the runs stop (which ends their streams); then the
      // connections still open (SSE streams would hold close() for ever). Upgraded sockets
      // are no longer the HTTP server's: they are closed on their own.
      const stopped = s && new Promise<void>((resolve) => s.close(() => resolve()));
      s?.closeIdleConnections();
      const socketsClosed = websockets.close();
      await context.crons.stop();
      await context.storeSweep?.stop();
      await context.runs.close();
      await context.events.close();
      s?.closeAllConnections();
      await socketsClosed;
      await stopped;
    },
  };
}
