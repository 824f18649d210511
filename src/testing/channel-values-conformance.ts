import { expect } from "vitest";
import type { Checkpoint, Checkpointer } from "../checkpoint/checkpointer.js";
import { checkpointId } from "../checkpoint/id.js";

/**
 * The conformance cases for how a store keeps channel values: whatever it stores (whole
 * values, or what changed), every checkpoint reads back exactly — along a long thread,
 * after forks from its middle, in-place growth, edits inside a list, prunes and copies.
 */
export function channelValueCases(
  it: (title: string, fn: () => Promise<void>) => void,
  store: () => Checkpointer,
  newThreadId: () => string,
): void {
  it("every checkpoint of a long thread reads back exactly: unchanged channels, appended lists, replaced values", async () => {
    const threadId = newThreadId();
    const chain = await conversation(store(), threadId, 60);
    for (const c of [chain[0]!, chain[1]!, chain[29]!, chain.at(-1)!]) {
      expect((await store().get(threadId, "", c.id))?.checkpoint).toEqual(c);
    }
    expect((await store().getLatest(threadId))?.checkpoint).toEqual(chain.at(-1));
    expect(await store().list(threadId)).toEqual([...chain].reverse());
    expect(await store().list(threadId, { limit: 7, before: chain[40]!.id })).toEqual(
      chain.slice(33, 40).reverse(),
    );
  });

  it("a fork from the middle of a thread reads exactly, and so does the branch it left", async () => {
    const threadId = newThreadId();
    const chain = await conversation(store(), threadId, 30);
    const from = chain[12]!;
    await store().get(threadId, "", from.id); // as a fork does: read, then write after it
    const fork = next(from, { messages: [...list(from), message("a fork")], topic: "forked" });
    await store().put(fork, { expectedLatestId: chain.at(-1)!.id });
    const after = next(fork, { messages: [...list(fork), message("after the fork")] });
    await store().put(after, { expectedLatestId: fork.id });
    expect((await store().getLatest(threadId))?.checkpoint).toEqual(after);
    expect((await store().get(threadId, "", fork.id))?.checkpoint).toEqual(fork);
    for (const c of chain) expect((await store().get(threadId, "", c.id))?.checkpoint).toEqual(c);
    expect(await store().list(threadId, { limit: 3 })).toEqual([after, fork, chain.at(-1)]);
  });

  it("a list that grew in place after it was stored, or was edited inside, reads as it was at each checkpoint", async () => {
    const threadId = newThreadId();
    const first = base(threadId, { messages: [message("1"), message("2"), message("3")] });
    await store().put(first, { expectedLatestId: null });
    const stored = structuredClone(first);
    // Grown in place (the same array): the next checkpoint holds four, the first still three.
    const grown = first.values.messages as unknown[];
    const second = next(first, { messages: grown });
    grown.push(message("4"));
    await store().put(second, { expectedLatestId: first.id });
    // Edited inside: the second message replaced, the last removed.
    const edited = [grown[0], message("2, edited"), grown[2]];
    const third = next(second, { messages: edited });
    await store().put(third, { expectedLatestId: second.id });
    const emptied = next(third, { messages: [] });
    await store().put(emptied, { expectedLatestId: third.id });
    expect((await store().get(threadId, "", first.id))?.checkpoint).toEqual(stored);
    expect((await store().get(threadId, "", second.id))?.checkpoint.values.messages).toHaveLength(
      4,
    );
    expect((await store().get(threadId, "", third.id))?.checkpoint).toEqual(structuredClone(third));
    expect((await store().getLatest(threadId))?.checkpoint).toEqual(emptied);
  });

  it("prune keeps what the kept checkpoints are read from: they and a later checkpoint read exactly", async () => {
    const threadId = newThreadId();
    const chain = await conversation(store(), threadId, 25);
    expect(await store().prune(threadId, { keep: 3 })).toBe(22);
    for (const c of chain.slice(-3)) {
      expect((await store().get(threadId, "", c.id))?.checkpoint).toEqual(c);
    }
    const last = chain.at(-1)!;
    const more = next(last, { messages: [...list(last), message("after the prune")] });
    await store().put(more, { expectedLatestId: last.id });
    expect((await store().getLatest(threadId))?.checkpoint).toEqual(more);
    expect(await store().list(threadId)).toEqual([more, ...chain.slice(-3).reverse()]);
  });

  it("copyThread copies values a copy reads exactly, and both threads go on apart", async () => {
    const from = newThreadId();
    const to = newThreadId();
    const chain = await conversation(store(), from, 12);
    await store().copyThread(from, to);
    const copied = (await store().list(to)).reverse();
    expect(copied).toEqual(chain.map((c) => ({ ...c, threadId: to })));
    const last = copied.at(-1)!;
    const more = next(last, { messages: [...list(last), message("only in the copy")] });
    await store().put(more, { expectedLatestId: last.id });
    expect((await store().getLatest(to))?.checkpoint).toEqual(more);
    expect((await store().getLatest(from))?.checkpoint).toEqual(chain.at(-1));
  });
}

/** A thread whose every step appends a message, and every fifth changes the topic. */
async function conversation(
  store: Checkpointer,
  threadId: string,
  steps: number,
): Promise<Checkpoint[]> {
  const chain = [base(threadId, { messages: [], topic: "start", settings: { deep: [1, 2] } })];
  await store.put(chain[0]!, { expectedLatestId: null });
  for (let step = 1; step < steps; step++) {
    const parent = chain.at(-1)!;
    const values: Record<string, unknown> = {
      ...parent.values,
      messages: [...list(parent), message(`step ${step}`)],
    };
    if (step % 5 === 0) values.topic = `topic ${step}`;
    const c = next(parent, values);
    await store.put(c, { expectedLatestId: parent.id });
    chain.push(c);
  }
  return chain;
}

function base(threadId: string, values: Record<string, unknown>): Checkpoint {
  const id = checkpointId();
  return {
    id,
    threadId,
    ns: "",
    parentId: null,
    snapshot: { status: "active", value: "barrier", context: { step: 0 } },
    values,
    next: ["agent"],
    interrupts: [],
    metadata: { step: 0, source: "input" },
    createdAt: new Date().toISOString(),
  };
}

function next(parent: Checkpoint, values: Record<string, unknown>): Checkpoint {
  const step = (parent.metadata.step as number) + 1;
  return {
    ...base(parent.threadId, { ...parent.values, ...values }),
    parentId: parent.id,
    metadata: { step, source: "loop" },
  };
}

const list = (c: Checkpoint) => c.values.messages as unknown[];

const message = (text: string) => ({ role: "ai", content: text, id: `m-${text}` });
