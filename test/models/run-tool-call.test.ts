import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ModelConfigError } from "../../src/errors/index.js";
import { runToolCall, type ToolRuntime, tool } from "../../src/models/index.js";

const createUser = tool({
  name: "create_user",
  description: "Create a user account.",
  schema: z.object({
    name: z.string().min(1),
    age: z.number().int().nonnegative(),
    tags: z.array(z.string()).default([]),
  }),
  run: (args) => ({ created: true, ...args }),
});

const call = (args: Record<string, unknown>) => ({ id: "call_1", name: "create_user", args });

describe("tool", () => {
  it("describes its arguments to providers as JSON Schema, without the dialect marker", () => {
    expect(createUser.parameters).toEqual({
      type: "object",
      properties: {
        name: { type: "string", minLength: 1 },
        age: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        tags: { type: "array", items: { type: "string" }, default: [] },
      },
      // Fields with a default are optional for the model.
      required: ["name", "age"],
    });
  });

  it("refuses names providers would reject", () => {
    expect(() =>
      tool({ name: "create user", description: "", schema: z.object({}), run: () => "" }),
    ).toThrow(ModelConfigError);
  });

  it("refuses a schema that is not a zod object", () => {
    expect(() =>
      tool({
        name: "bad",
        description: "",
        schema: z.string() as unknown as z.ZodObject,
        run: () => "",
      }),
    ).toThrow(/needs a zod object schema/);
  });

  it("refuses a schema that cannot be written as JSON Schema, naming the tool", () => {
    expect(() =>
      tool({ name: "when", description: "", schema: z.object({ at: z.date() }), run: () => "" }),
    ).toThrow(/Tool "when" has a schema that cannot be written as JSON Schema/);
  });
});

describe("runToolCall", () => {
  it("answers with the result as JSON, validated and defaulted by the schema", async () => {
    const reply = await runToolCall(createUser, call({ name: "Ada", age: 36 }));
    expect(reply).toEqual({
      role: "tool",
      toolCallId: "call_1",
      name: "create_user",
      status: "success",
      content: '{"created":true,"name":"Ada","age":36,"tags":[]}',
    });
  });

  it("passes string results through unchanged", async () => {
    const greet = tool({
      name: "greet",
      description: "Greets.",
      schema: z.object({ who: z.string() }),
      run: async ({ who }) => `Hello, ${who}`,
    });
    const reply = await runToolCall(greet, { id: "c", name: "greet", args: { who: "Bo" } });
    expect(reply.content).toBe("Hello, Bo");
  });

  it("lists every schema issue with its path when the model sends invalid arguments", async () => {
    let ran = false;
    const strict = tool({
      ...createUser,
      run: () => {
        ran = true;
      },
    });
    const reply = await runToolCall(strict, call({ name: "", age: -1, tags: ["ok", 7] }));
    expect(ran).toBe(false);
    expect(reply.status).toBe("error");
    expect(reply.content).toBe(
      [
        'Error: invalid arguments for tool "create_user":',
        "- name: Too small: expected string to have >=1 characters",
        "- age: Too small: expected number to be >=0",
        "- tags[1]: Invalid input: expected string, received number",
        "Call the tool again with arguments that match its schema.",
      ].join("\n"),
    );
  });

  it("turns a thrown error into an error tool message", async () => {
    const failing = tool({
      name: "fetch_page",
      description: "Fetches.",
      schema: z.object({ url: z.string() }),
      run: () => {
        throw new Error("connection refused");
      },
    });
    const reply = await runToolCall(failing, { id: "c2", name: "fetch_page", args: { url: "x" } });
    expect(reply).toEqual({
      role: "tool",
      toolCallId: "c2",
      name: "fetch_page",
      status: "error",
      content: 'Error: tool "fetch_page" failed: connection refused',
    });
  });

  it("gives the tool the signal, the call being answered and any extra runtime fields", async () => {
    let seen: ToolRuntime | undefined;
    const inspect = tool({
      name: "inspect",
      description: "Looks at its runtime.",
      schema: z.object({}),
      run: (_args, runtime) => {
        seen = runtime;
        return "ok";
      },
    });
    const controller = new AbortController();
    const toolCall = { id: "c3", name: "inspect", args: {} };
    await runToolCall(inspect, toolCall, { signal: controller.signal, state: { step: 2 } });
    expect(seen?.signal).toBe(controller.signal);
    expect(seen?.toolCall).toEqual(toolCall);
    expect(seen?.state).toEqual({ step: 2 });
  });

  it("rethrows instead of answering when the run was aborted", async () => {
    const controller = new AbortController();
    const slow = tool({
      name: "slow",
      description: "Waits for abort.",
      schema: z.object({}),
      run: (_args, { signal }) => {
        controller.abort(new Error("stop"));
        throw signal.reason;
      },
    });
    await expect(
      runToolCall(slow, { id: "c4", name: "slow", args: {} }, { signal: controller.signal }),
    ).rejects.toThrow("stop");
  });

  it("rethrows errors the caller marks as control flow", async () => {
    class Pause extends Error {}
    const pausing = tool({
      name: "ask_human",
      description: "Pauses the run.",
      schema: z.object({}),
      run: () => {
        throw new Pause("waiting for a human");
      },
    });
    await expect(
      runToolCall(
        pausing,
        { id: "c5", name: "ask_human", args: {} },
        {},
        {
          propagate: (error) => error instanceof Pause,
        },
      ),
    ).rejects.toBeInstanceOf(Pause);
  });

  it("reports a result that cannot be sent as JSON", async () => {
    const big = tool({
      name: "big",
      description: "Returns a BigInt.",
      schema: z.object({}),
      run: () => ({ n: 10n }),
    });
    const reply = await runToolCall(big, { id: "c6", name: "big", args: {} });
    expect(reply.status).toBe("error");
    expect(reply.content).toMatch(/returned a value that cannot be sent as JSON/);
  });
});
