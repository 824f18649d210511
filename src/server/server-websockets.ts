// The app's WebSockets on Node's HTTP server (ws): the upgrade through the app, and closing them.
import { type IncomingMessage, type Server, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { Context, Hono } from "hono";
import { defineWebSocketHelper, type UpgradeWebSocket, WSContext, type WSEvents } from "hono/ws";
import { WebSocketServer } from "ws";

/** How long `close()` lets a socket answer its close frame before it is cut. */
const CLOSE_GRACE_MS = 1000;

/** Where the upgrade listener waits for the route's events, in the request's `env`. */
const UPGRADE = Symbol("stateweaver.upgrade");

interface UpgradeSlot {
  events?: WSEvents<unknown>;
}

type UpgradeEnv = { incoming: IncomingMessage; [UPGRADE]: UpgradeSlot };

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
  /** Closes every open socket with 1001 (going away), cutting those that do not answer in a second. */
  close(): Promise<void>;
}

/** The app's WebSockets, and the middleware its routes upgrade with (not public). */
export interface AppWebSockets extends ServerWebSockets {
  upgradeWebSocket: UpgradeWebSocket<unknown>;
}

/** Whether `c` came through an injected server's upgrade (else no socket can be opened for it). */
export const isSocketUpgrade = (c: Context): boolean =>
  (c.env as Partial<UpgradeEnv> | undefined)?.[UPGRADE] !== undefined &&
  c.req.header("upgrade")?.toLowerCase() === "websocket";

/**
 * WebSockets for `app`. An upgrade request goes through the app like any request (its
 * middleware: auth, then the route); only a route that calls `upgradeWebSocket` opens a
 * socket, and any other answer is sent as the HTTP response. A frame over `maxPayload`
 * bytes closes its socket (1009), as a body over the limit is refused on HTTP.
 */
export function appWebSockets(
  app: Hono,
  options: { maxPayload: number; report(error: unknown): void },
): AppWebSockets {
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload });
  const upgradeWebSocket = defineWebSocketHelper<unknown>(async (c, events) => {
    if (!isSocketUpgrade(c)) return;
    (c.env as UpgradeEnv)[UPGRADE].events = events;
    // Only a marker for the listener below, which answers the upgrade itself.
    return new Response(null);
  });

  async function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer) {
    // A client gone before the socket is ws's would otherwise be an unhandled error.
    const ignore = () => {};
    socket.on("error", ignore);
    const slot: UpgradeSlot = {};
    let response: Response;
    try {
      const url = new URL(request.url ?? "/", `http://${request.headers.host ?? "localhost"}`);
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
      }
      const env: UpgradeEnv = { incoming: request, [UPGRADE]: slot };
      response = await app.request(url, { headers }, env);
    } catch {
      response = new Response("A malformed upgrade request.", { status: 400 });
    }
    const events = slot.events;
    if (!events) {
      const body = Buffer.from(await response.text().catch(() => ""));
      const status = response.status;
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      socket.off("error", ignore);
      const context = new WSContext({
        send: (data) => ws.send(data),
        close: (code, reason) => ws.close(code, reason),
        raw: ws,
        get readyState() {
          return ws.readyState as 0 | 1 | 2 | 3;
        },
        url: new URL(request.url ?? "/", "http://localhost"),
        protocol: ws.protocol,
      });
      const run = (call: () => void) => {
        try {
          call();
        } catch (error) {
          options.report(error);
        }
      };
      ws.on("message", (data, isBinary) => {
        const text = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
        const message = new MessageEvent("message", {
          data: isBinary ? new Uint8Array(text).buffer : text.toString("utf8"),
        });
        run(() => events.onMessage?.(message, context));
      });
      ws.on("close", (code, reason) => {
        const event = Object.assign(new Event("close"), { code, reason: reason.toString() });
        // Node 20 has no CloseEvent: an Event with its fields stands in.
        type Close = Parameters<NonNullable<WSEvents<unknown>["onClose"]>>[0];
        run(() => events.onClose?.(event as unknown as Close, context));
      });
      ws.on("error", () => run(() => events.onError?.(new Event("error"), context)));
      run(() => events.onOpen?.(new Event("open"), context));
    });
  }

  return {
    upgradeWebSocket,
    inject(server) {
      server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
        upgrade(request, socket, head).catch((error) => {
          options.report(error);
          socket.destroy();
        });
      });
    },
    async close() {
      await Promise.all(
        [...wss.clients].map(
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
