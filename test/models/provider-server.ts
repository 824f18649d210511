import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local HTTP server that stands in for a model provider, so tests can run the real
 * `openai` and `@anthropic-ai/sdk` clients (with `baseURL` pointed here) without network.
 * Replies are scripted in order; every request is recorded with its parsed JSON body.
 *
 * @example
 * const server = await startProviderServer();
 * server.reply({ json: { id: "resp_1", output: [] } });
 * const model = new OpenAIChatModel({ model: "gpt-test", apiKey: "k", baseURL: `${server.url}/v1` });
 * await model.invoke([message.user("hi")]);
 * server.requests[0]?.body; // what the SDK sent
 */
export interface ProviderServer {
  /** Base URL, e.g. http://127.0.0.1:54321 (no trailing slash). */
  url: string;
  requests: RecordedRequest[];
  /** Queues replies, used one per request in order. */
  reply(...replies: ScriptedReply[]): void;
  close(): Promise<void>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

/** One server-sent event. A string `data` is written as is (for OpenAI's `[DONE]`). */
export interface SseEvent {
  event?: string;
  data: unknown;
}

/** A reply: fixed JSON, SSE events, or JSON made from the request's body (an embeddings answer). */
export type ScriptedReply =
  | { status?: number; json: unknown; headers?: Record<string, string> }
  | { sse: SseEvent[] }
  | { answer: (body: any) => unknown };

export async function startProviderServer(): Promise<ProviderServer> {
  const requests: RecordedRequest[] = [];
  const queue: ScriptedReply[] = [];

  const server = createServer(async (req, res) => {
    let text = "";
    for await (const piece of req) text += piece;
    requests.push({
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body: text ? JSON.parse(text) : undefined,
    });
    const scripted = queue.shift();
    if (!scripted) {
      // A loud failure: the test made more requests than it scripted.
      writeJson(res, 599, {
        error: { message: `provider-server: no reply scripted for ${req.method} ${req.url}` },
      });
      return;
    }
    if ("sse" in scripted) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      // One write per event so the SDK's parser sees the stream arrive in pieces.
      for (const event of scripted.sse) {
        const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
        res.write(`${event.event ? `event: ${event.event}\n` : ""}data: ${data}\n\n`);
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
      return;
    }
    if ("answer" in scripted) {
      writeJson(res, 200, await scripted.answer(requests.at(-1)?.body));
      return;
    }
    writeJson(res, scripted.status ?? 200, scripted.json, scripted.headers);
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply: (...replies) => {
      queue.push(...replies);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
