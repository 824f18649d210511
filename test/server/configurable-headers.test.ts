/**
 * Request headers a run's nodes see in `config.configurable`: LangGraph's `x-…` and
 * `user-agent` by default, `http.configurable_headers` patterns when set, credentials never.
 */
import { Client } from "@langchain/langgraph-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { END, Graph, START } from "../../src/index.js";
import { headersForRun } from "../../src/server/index.js";
import { type RunningServer, startServer } from "./fixtures/server.js";

describe("the headers a run's nodes get", () => {
  it("are every x- header and user-agent by default, never a credential", () => {
    const headers = new Headers({
      "x-tenant": "acme",
      "X-Request-Id": "r1",
      "user-agent": "sdk",
      accept: "application/json",
      authorization: "Bearer s",
      cookie: "sw_user=1",
      "x-api-key": "k",
      "x-csrf-token": "c",
      "x-service-key": "s",
      "x-tenant-id": "t",
    });
    expect(headersForRun(headers)).toEqual({
      "x-tenant": "acme",
      "x-request-id": "r1",
      "user-agent": "sdk",
    });
  });

  it("are those the includes name, less the excludes, with * as a wildcard", () => {
    const headers = new Headers({
      "x-user-id": "u",
      "x-user-secret": "s",
      "x-team": "t",
      "x-other": "o",
    });
    expect(
      headersForRun(headers, { includes: ["x-user-*", "x-team"], excludes: ["x-team"] }),
    ).toEqual({
      "x-user-id": "u",
    });
    expect(headersForRun(new Headers({ accept: "*/*" }))).toBeUndefined();
  });
});

const echo = () =>
  new Graph<{ seen?: Record<string, unknown> }>({ name: "echo" })
    .addNode("echo", (_s, runtime) => ({
      seen: Object.fromEntries(
        Object.entries(runtime.config.configurable ?? {}).filter(
          ([k]) => k.startsWith("x-") || k === "user-agent" || k === "authorization",
        ),
      ),
    }))
    .addEdge(START, "echo")
    .addEdge("echo", END)
    .compile();

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

it("reach the nodes of a run started through the SDK client, stateless too, as the server's rule says", async () => {
  running = await startServer({
    graphs: { echo: echo() },
    configurableHeaders: { includes: ["x-tenant"] },
  });
  const client = new Client({
    apiUrl: running.url,
    defaultHeaders: { "x-tenant": "acme", "x-other": "no" },
  });
  const thread = await client.threads.create();
  expect(await client.runs.wait(thread.thread_id, "echo", { input: {} })).toEqual({
    seen: { "x-tenant": "acme" },
  });
  expect(await client.runs.wait(null, "echo", { input: {} })).toEqual({
    seen: { "x-tenant": "acme" },
  });
});
