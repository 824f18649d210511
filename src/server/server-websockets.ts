// The app's WebSockets on Node's HTTP server (@hono/node-ws): the upgrade, and closing them.
import type { Server } from "node:http";
import { createNodeWebSocket } from "@hono/node-ws";
import type { Hono } from "hono";
import type { UpgradeWebSocket } from "hono/ws";

/** How long `close()` lets a socket answer its close frame before it is cut. */
const CLOSE_GRACE_MS = 1000;

/**
 * The WebSockets of a stateweaver app (the SDK's `threads.stream` with
 * `streamProtocol: "v2-websocket"`). `createServer().listen()` wires them; a server of your
 * own that serves the app with `@hono/node-server` calls `inject` with it, and `close` when
 * it stops (Node's `server.close()` does not end upgraded connections).
 *
 * @example
 * const { app, websockets } = createApp(options);
 * const server = serve({ fetch: app.fetch, port: 2024 });
 * websockets.inject(server);
 * // … on shutdown:
 * await websockets.close();
 */
export interface ServerWebSockets {
  /** Hands the HTTP server's upgrade requests to the app (its auth runs on them as on any request). */
  inject(server: Server): void;
  /** Whether a server was injected: without one, a WebSocket request is refused with 426. */
  readonly injected: boolean;
  /** Closes every open socket with 1001 (going away), cutting those that do not answer in a second. */
  close(): Promise<void>;
}

/** The app's WebSockets, and the middleware its routes upgrade with (not public). */
export interface AppWebSockets extends ServerWebSockets {
  upgradeWebSocket: UpgradeWebSocket<unknown, { onError: (err: unknown) => void }>;
}

/**
 * WebSockets for `app`: a frame over `maxPayload` bytes closes its socket (1009), as a body
 * over the limit is refused on HTTP (ws would take 100 MiB by default).
 */
export function appWebSockets(app: Hono, options: { maxPayload: number }): AppWebSockets {
  const node = createNodeWebSocket({ app });
  // ws reads the limit from its options at each upgrade; @hono/node-ws passes none.
  node.wss.options.maxPayload = options.maxPayload;
  let injected = false;
  return {
    upgradeWebSocket: node.upgradeWebSocket as AppWebSockets["upgradeWebSocket"],
    inject(server) {
      node.injectWebSocket(server);
      injected = true;
    },
    get injected() {
      return injected;
    },
    async close() {
      const open = [...node.wss.clients];
      await Promise.all(
        open.map(
          (socket) =>
            new Promise<void>((resolve) => {
              if (socket.readyState === socket.CLOSED) return resolve();
              const cut = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS);
              socket.once("close", () => {
                clearTimeout(cut);
                resolve();
              });
              socket.close(1001, "The server is shutting down.");
            }),
        ),
      );
    },
  };
}
