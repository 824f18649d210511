// LangGraph's generative UI from a node: typedUi(runtime) streams each UI message as a
// `custom` event and writes it to the `ui` key, whose reducer is LangGraph's.
import { describe, expect, it } from "vitest";
import { MemoryCheckpointer } from "../../src/checkpoint/index.js";
import {
  END,
  Graph,
  InvalidUpdateError,
  interrupt,
  START,
  type StreamPart,
  typedUi,
  type UIMessage,
  uiMessageReducer,
} from "../../src/index.js";

const components = {
  weather: (props: { city: string; temp?: number }) => `${props.city}: ${props.temp ?? "?"}`,
  note: (props: { text: string }) => props.text,
};

interface State {
  city: string;
  ui: UIMessage[];
}

async function collect(gen: AsyncGenerator<StreamPart, unknown>) {
  const parts: StreamPart[] = [];
  for await (const part of gen) parts.push(part);
  return parts;
}

describe("uiMessageReducer", () => {
  const shown = (id: string, props: Record<string, unknown>, merge?: boolean): UIMessage => ({
    type: "ui",
    id,
    name: "weather",
    props,
    ...(merge && { metadata: { merge } }),
  });

  it("appends, replaces by id, merges props with metadata.merge, and removes", () => {
    let ui = uiMessageReducer([], shown("a", { city: "Paris" }));
    ui = uiMessageReducer(ui, [shown("b", { city: "Oslo" }), shown("a", { temp: 20 }, true)]);
    expect(ui).toEqual([
      shown("a", { city: "Paris", temp: 20 }, true),
      shown("b", { city: "Oslo" }),
    ]);
    ui = uiMessageReducer(ui, shown("b", { city: "Rome" }));
    expect(ui[1]!.props).toEqual({ city: "Rome" });
    expect(uiMessageReducer(ui, { type: "remove-ui", id: "a" })).toEqual([
      shown("b", { city: "Rome" }),
    ]);
    expect(uiMessageReducer(undefined, [])).toEqual([]);
  });

  it("refuses what is not a UI message, saying what it takes", () => {
    expect(() => uiMessageReducer([], { hello: 1 } as never)).toThrow(InvalidUpdateError);
    expect(() => uiMessageReducer([], { hello: 1 } as never)).toThrow(
      /The ui key takes UI messages .* got \{"hello":1\}/,
    );
  });
});

describe("typedUi", () => {
  const weatherGraph = () =>
    new Graph<State>({ name: "weather" })
      .addReducer("ui", uiMessageReducer, { default: () => [] })
      .addNode("forecast", (state, runtime) => {
        const ui = typedUi<typeof components>(runtime);
        const card = ui.push({ id: "card", name: "weather", props: { city: state.city } });
        ui.push({ id: card.id, name: "weather", props: { temp: 21 } }, { merge: true });
        ui.push({ name: "note", props: { text: "bring a hat" } }, { message: { id: "m1" } });
        ui.delete(ui.items[2]!.id);
        return { city: state.city.toUpperCase() };
      })
      .addEdge(START, "forecast")
      .addEdge("forecast", END);

  it("streams each UI message as a custom event and writes them all to ui with the node's update", async () => {
    const graph = weatherGraph().compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "ui-1" } };
    const parts = await collect(
      graph.stream({ city: "Paris" }, { config, streamMode: ["custom", "updates"] }),
    );
    const custom = parts.filter((p) => p.mode === "custom").map((p) => p.data);
    expect(custom).toEqual([
      {
        type: "ui",
        id: "card",
        name: "weather",
        props: { city: "Paris" },
        metadata: { name: "forecast" },
      },
      {
        type: "ui",
        id: "card",
        name: "weather",
        props: { temp: 21 },
        metadata: { merge: true, name: "forecast" },
      },
      {
        type: "ui",
        id: expect.any(String),
        name: "note",
        props: { text: "bring a hat" },
        metadata: { name: "forecast", id: "m1" },
      },
      { type: "remove-ui", id: (custom[2] as UIMessage).id },
    ]);
    const { values } = await graph.getState(config);
    expect(values).toEqual({
      city: "PARIS",
      ui: [
        {
          type: "ui",
          id: "card",
          name: "weather",
          props: { city: "Paris", temp: 21 },
          metadata: { merge: true, name: "forecast" },
        },
      ],
    });
  });

  it("drops what an interrupted run of the node pushed: the resumed run pushes again, once", async () => {
    const graph = new Graph<State & { answer?: string }>({ name: "asks" })
      .addReducer("ui", uiMessageReducer, { default: () => [] })
      .addNode("ask", (state, runtime) => {
        typedUi<typeof components>(runtime).push({ name: "note", props: { text: state.city } });
        return { answer: interrupt<string>("Which city?") };
      })
      .addEdge(START, "ask")
      .addEdge("ask", END)
      .compile({ checkpointer: new MemoryCheckpointer() });
    const config = { configurable: { thread_id: "ui-2" } };
    await graph.invoke({ city: "Oslo" }, { config });
    expect((await graph.getState(config)).values.ui).toEqual([]);
    await graph.resume("Rome", { config });
    const { values } = await graph.getState(config);
    expect(values.ui.map((m) => m.props)).toEqual([{ text: "Oslo" }]);
  });

  it("refuses a push after the node returned: the message would reach no state", async () => {
    let late: (() => void) | undefined;
    const graph = new Graph<State>({ name: "late" })
      .addReducer("ui", uiMessageReducer, { default: () => [] })
      .addNode("n", (_s, runtime) => {
        const ui = typedUi<typeof components>(runtime);
        late = () => ui.push({ name: "note", props: { text: "late" } });
        return {};
      })
      .addEdge(START, "n")
      .addEdge("n", END)
      .compile();
    await graph.invoke({ city: "x" });
    expect(late).toThrow(/typedUi\(runtime\) of node "n" was used after the node finished/);
  });
});
