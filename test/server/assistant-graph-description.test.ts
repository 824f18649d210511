// How the server describes a hosted graph through the SDK client: getSchemas, getSubgraphs and getGraph with xray.
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { END, Graph, START } from "../../src/index.js";
import { suiteNested, suiteWeather } from "./fixtures/langgraph-suite-graphs.js";
import { type RunningServer, startServer } from "./fixtures/server.js";

let running: RunningServer;
let client: Client;

beforeAll(async () => {
  const plain = new Graph({ name: "plain" })
    .addNode("step", () => ({}))
    .addEdge(START, "step")
    .addEdge("step", END)
    .compile();
  running = await startServer({
    graphs: { weather: suiteWeather(), nested: suiteNested(), plain },
  });
  client = new Client({ apiUrl: running.url });
});
afterAll(() => running.stop());

const ids = (picture: { nodes: Array<{ id: string | number }> }) => picture.nodes.map((n) => n.id);
const pairs = (picture: { edges: Array<{ source: string | number; target: string | number }> }) =>
  picture.edges.map((e) => `${e.source}>${e.target}`).sort();

describe("getSchemas", () => {
  it("describes the state, input and output from the graph's zod state schema", async () => {
    const schemas = await client.assistants.getSchemas("nested");
    expect(schemas.graph_id).toBe("nested");
    expect(schemas.state_schema).toMatchObject({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { grandparent: { enum: ["gp_one", "gp_two"] }, messages: { type: "array" } },
      required: ["messages"],
    });
    expect(schemas.output_schema).toEqual(schemas.state_schema);
    // An input updates some keys: none is required.
    expect(schemas.input_schema).toMatchObject({ properties: { messages: { type: "array" } } });
    expect(schemas.input_schema).not.toHaveProperty("required");
  });

  it("answers null for each schema a graph was not given", async () => {
    expect(await client.assistants.getSchemas("plain")).toEqual({
      graph_id: "plain",
      input_schema: null,
      output_schema: null,
      state_schema: null,
      config_schema: null,
      context_schema: null,
    });
  });
});

describe("getSubgraphs", () => {
  it("finds the subgraph at a namespace", async () => {
    expect(
      Object.keys(await client.assistants.getSubgraphs("nested", { namespace: "gp_two" })),
    ).toEqual(["gp_two"]);
  });

  it("reaches a nested namespace only with recurse, as LangGraph does", async () => {
    const namespace = "gp_two|p_two";
    expect(await client.assistants.getSubgraphs("nested", { namespace })).toEqual({});
    const found = await client.assistants.getSubgraphs("nested", { namespace, recurse: true });
    expect(Object.keys(found)).toEqual([namespace]);
    expect(found[namespace]).toMatchObject({
      state: { properties: { child: { type: "string" } } },
    });
  });

  it("is empty for a graph without subgraphs", async () => {
    expect(await client.assistants.getSubgraphs("plain", { recurse: true })).toEqual({});
  });
});

describe("getGraph", () => {
  it("draws a subgraph as one node without xray", async () => {
    const picture = await client.assistants.getGraph("weather");
    expect(ids(picture)).toEqual([
      "__start__",
      "router_node",
      "normal_llm_node",
      "weather_graph",
      "__end__",
    ]);
    expect(picture.nodes[3]).toMatchObject({ type: "runnable", data: { name: "weather_graph" } });
  });

  it("draws a subgraph's nodes inside its node with xray", async () => {
    const picture = await client.assistants.getGraph("weather", { xray: true });
    expect(ids(picture)).toEqual([
      "__start__",
      "router_node",
      "normal_llm_node",
      "weather_graph:model_node",
      "weather_graph:weather_node",
      "__end__",
    ]);
    expect(pairs(picture)).toEqual(
      [
        "__start__>router_node",
        "router_node>weather_graph:model_node",
        "router_node>normal_llm_node",
        "weather_graph:model_node>weather_graph:weather_node",
        "weather_graph:weather_node>__end__",
        "normal_llm_node>__end__",
      ].sort(),
    );
    expect(picture.edges).toContainEqual(
      expect.objectContaining({
        source: "router_node",
        target: "weather_graph:model_node",
        conditional: true,
      }),
    );
  });

  it("draws as many levels as an xray depth says", async () => {
    expect(ids(await client.assistants.getGraph("nested", { xray: 1 }))).toEqual([
      "__start__",
      "gp_one",
      "gp_two:p_one",
      "gp_two:p_two",
      "__end__",
    ]);
    expect(ids(await client.assistants.getGraph("nested", { xray: true }))).toEqual([
      "__start__",
      "gp_one",
      "gp_two:p_one",
      "gp_two:p_two:c_one",
      "gp_two:p_two:c_two",
      "__end__",
    ]);
  });

  it("refuses an xray that is neither a flag nor a depth", async () => {
    const response = await fetch(`${running.url}/assistants/weather/graph?xray=deep`, {
      headers: { accept: "application/json" },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: "INVALID_QUERY" } });
  });
});
