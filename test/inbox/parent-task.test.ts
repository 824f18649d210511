/** The inbox's link from an async subagent's task thread to the thread that started it. */
import { describe, expect, it } from "vitest";
import { parentTaskOf } from "../../src/inbox/web/thread/parent-task.js";

describe("a task thread's parent", () => {
  it("is read from the parent_thread_id and async_subagent metadata that asyncSubagent writes", () => {
    expect(
      parentTaskOf({ parent_thread_id: "lead-1", async_subagent: "researcher", ticket: 7 }),
    ).toEqual({ parentThreadId: "lead-1", subagent: "researcher" });
    expect(parentTaskOf({ parent_thread_id: "lead-1" })).toEqual({
      parentThreadId: "lead-1",
      subagent: undefined,
    });
  });

  it("is absent for threads nothing started", () => {
    expect(parentTaskOf({ ticket: 7 })).toBeUndefined();
    expect(parentTaskOf({ parent_thread_id: 42 })).toBeUndefined();
    expect(parentTaskOf(undefined)).toBeUndefined();
  });
});
