// The SDK's `threads.stream` over a WebSocket: commands in; answers and events out, in order, on one socket.
import { Hono } from "hono";
import type { WSContext } from "hono/ws";
import type { WebSocket } from "ws";
import { checkSameSite } from "../csrf.js";
import { RequestError } from "../errors.js";
import { findThread, type ServerContext } from "../server-context.js";
import { isSocketUpgrade } from "../server-websockets.js";
import { type SocketRouteOptions, ThreadSocketSession } from "./thread-socket-session.js";

export type { SocketAccess, SocketRouteOptions } from "./thread-socket-session.js";

/** A ping this often keeps proxies from closing the socket; a client that missed one is cut. */
const HEARTBEAT_MS = 15_000;

/**
 * `GET /:threadId/stream/events` as a WebSocket: the SDK's `threads.stream` with
 * `streamProtocol: "v2-websocket"` (or `transport: "websocket"`). The client sends
 * commands (`{ id, method, params }`): those `POST /:threadId/commands` answers
 * (`run.start`, `input.respond`, `state.get`, `state.fork`), plus `subscription.subscribe`
 * (channels, namespaces, depth, since: answered with its `subscription_id`, then the
 * thread's matching events so far, then new ones as they come) and
 * `subscription.unsubscribe`. Answers and events share the socket, in order. The upgrade
 * goes through the API's auth like any request (a bearer token or `x-api-key` header from a
 * Node client's WebSocket factory, a browser's session cookie), and a browser's upgrade
 * from another origin is refused (403), so another site cannot use a signed-in inbox's
 * cookie. See docs/streaming.md.
 *
 * @example
 * import WebSocket from "ws";
 * const thread = client.threads.stream({
 *   assistantId: "question",
 *   transport: "websocket",
 *   webSocketFactory: (url) => new WebSocket(url, { headers: { authorization: `Bearer ${token}` } }),
 * });
 */
export function threadProtocolSocketRoutes(ctx: ServerContext, options: SocketRouteOptions): Hono {
  const { websockets } = options;
  return new Hono().get(
    "/:threadId/stream/events",
    async (c, next) => {
      const upgrading = c.req.header("upgrade")?.toLowerCase() === "websocket";
      if (!upgrading) {
        throw new RequestError(
          426,
          "WEBSOCKET_REQUIRED",
          "GET /threads/:id/stream/events is the thread's protocol WebSocket: connect with a WebSocket (the SDK's threads.stream with streamProtocol: \"v2-websocket\"), or POST a filter here for an SSE stream.",
        );
      }
      if (!isSocketUpgrade(c)) {
        throw new RequestError(
          426,
          "WEBSOCKET_NOT_WIRED",
          "This app's WebSockets are not wired to its HTTP server: call createApp(…).websockets.inject(server) after serve(), or use createServer().listen().",
        );
      }
      // A browser sends its cookies with any page's WebSocket: only this server's pages may.
      checkSameSite(c);
      await next();
    },
    websockets.upgradeWebSocket(async (c) => {
      const threadId = c.req.param("threadId")!;
      const threadExisted = await findThread(ctx, threadId).then(
        () => true,
        () => false,
      );
      let session: ThreadSocketSession | undefined;
      let heartbeat: ReturnType<typeof setInterval> | undefined;
      return {
        onOpen(_event, ws) {
          const socket = ws as WSContext<WebSocket>;
          session = new ThreadSocketSession(c, ctx, threadId, socket, options, threadExisted);
          void session.pump();
          let answered = true;
          socket.raw?.on("pong", () => {
            answered = true;
          });
          heartbeat = setInterval(() => {
            if (!answered) return socket.raw?.terminate();
            answered = false;
            socket.raw?.ping();
          }, HEARTBEAT_MS);
          heartbeat.unref?.();
        },
        onMessage(event) {
          session?.receive(event.data);
        },
        onClose() {
          clearInterval(heartbeat);
          session?.end();
        },
      };
    }),
  );
}
