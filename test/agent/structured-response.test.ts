import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgent, type Middleware, type ModelRequest } from "../../src/agent/index.js";
import type { StreamPart } from "../../src/index.js";
import { FakeChatModel, message } from "../../src/models/index.js";

const City = z.object({ city: z.string() });

async function collect(gen: AsyncGenerator<StreamPart, unknown>) {
  const parts: StreamPart[] = [];
  let next = await gen.next();
  while (!next.done) {
    parts.push(next.value);
    next = await gen.next();
  }
  return { parts, result: next.value };
}

/** A middleware that records every model request it wraps. */
function recorder() {
  const seen: ModelRequest[] = [];
  const middleware: Middleware = {
    name: "record",
    wrapModelCall: (request, handler) => {
      seen.push(request);
      return handler(request);
    },
  };
  return { seen, middleware };
}

describe("the respond node of an agent with a responseFormat", () => {
  it("calls the model through wrapModelCall, with the response format set and no tools", async () => {
    const model = new FakeChatModel({ responses: ["It is Lyon.", '{"city":"Lyon"}'] });
    const { seen, middleware } = recorder();
    const agent = createAgent({ model, middleware: [middleware], responseFormat: City });
    const r = await agent.invoke({ messages: [message.user("Where?")] });
    expect(r.state.structuredResponse).toEqual({ city: "Lyon" });
    expect(seen).toHaveLength(2);
    expect(seen[0]!.responseFormat).toBeUndefined();
    expect(seen[1]!.responseFormat).toMatchObject({ name: "response", method: "native" });
    expect(seen[1]!.tools).toEqual([]);
    expect(seen[1]!.messages.map((m) => m.content)).toEqual(["Where?", "It is Lyon."]);
  });

  it("sends each correction through the middleware too", async () => {
    const model = new FakeChatModel({
      responses: ["It is Lyon.", "Lyon!", '{"city":"Lyon"}'],
    });
    const { seen, middleware } = recorder();
    const agent = createAgent({ model, middleware: [middleware], responseFormat: City });
    const r = await agent.invoke({ messages: [message.user("Where?")] });
    expect(r.state.structuredResponse).toEqual({ city: "Lyon" });
    const respondCalls = seen.filter((s) => s.responseFormat !== undefined);
    expect(respondCalls).toHaveLength(2);
    expect(respondCalls[1]!.messages.at(-1)).toMatchObject({
      role: "user",
      content: expect.stringContaining("does not match the required schema"),
    });
  });

  it("lets a wrapModelCall change the request, e.g. its system prompt", async () => {
    const model = new FakeChatModel({ responses: ["It is Lyon.", '{"city":"Lyon"}'] });
    const agent = createAgent({
      model,
      systemPrompt: "Be brief.",
      responseFormat: City,
      middleware: [
        {
          name: "jsonOnly",
          wrapModelCall: (request, handler) =>
            handler(
              request.responseFormat
                ? { ...request, systemPrompt: "Answer with JSON only." }
                : request,
            ),
        },
      ],
    });
    await agent.invoke({ messages: [message.user("Where?")] });
    expect(model.calls[0]!.messages[0]).toEqual(message.system("Be brief."));
    expect(model.calls[1]!.messages[0]).toEqual(message.system("Answer with JSON only."));
  });

  it("streams its answer's tokens in the messages mode, tagged with the respond node", async () => {
    const model = new FakeChatModel({ responses: ["It is Lyon.", '{"city": "Lyon"}'] });
    const agent = createAgent({ model, responseFormat: City });
    const { parts, result } = await collect(
      agent.stream({ messages: [message.user("Where?")] }, { streamMode: "messages" }),
    );
    const fromRespond = parts.flatMap((p) =>
      p.mode === "messages" && p.metadata.node === "respond" && p.data.type === "text"
        ? [p.data.text]
        : [],
    );
    expect(fromRespond.join("")).toBe('{"city": "Lyon"}');
    expect((result as { state: { structuredResponse: unknown } }).state.structuredResponse).toEqual(
      { city: "Lyon" },
    );
  });

  it("gives a correction's streamed tokens their own message id", async () => {
    const model = new FakeChatModel({ responses: ["It is Lyon.", "Lyon!", '{"city":"Lyon"}'] });
    const agent = createAgent({ model, responseFormat: City });
    const { parts } = await collect(
      agent.stream({ messages: [message.user("Where?")] }, { streamMode: "messages" }),
    );
    const byId = new Map<string, string>();
    for (const p of parts) {
      if (p.mode !== "messages" || p.metadata.node !== "respond" || p.data.type !== "text")
        continue;
      byId.set(p.data.messageId, (byId.get(p.data.messageId) ?? "") + p.data.text);
    }
    const [first, second] = [...byId.keys()];
    expect([...byId.values()]).toEqual(["Lyon!", '{"city":"Lyon"}']);
    expect(first).toMatch(/^respond:/);
    expect(second).toBe(`${first}:2`);
  });
});
