/**
 * A pause outlives its server: the page stays open while the server stops and starts again
 * on the same data directory, and the decision made afterwards resumes the thread.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage } from "./browser.js";
import { ticket } from "./fixtures/review-graphs.js";
import {
  type RunningInbox,
  startInbox,
  startThread,
  tempDataDir,
  threadView,
} from "./inbox-server.js";
import { choose, openThread, submit, waitUntilDone } from "./page-helpers.js";

let browser: Browser;
let inbox: RunningInbox | undefined;
let data: { dir: string; remove: () => Promise<void> };

beforeAll(async () => {
  data = await tempDataDir();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await inbox?.stop();
  await data?.remove();
});

describe("a server restart between the pause and the decision", () => {
  it("keeps the pause, and the open page's decision resumes the thread", async () => {
    inbox = await startInbox(data.dir);
    const { port } = inbox;
    const paused = await startThread(inbox.url, "ops", {
      messages: [
        {
          type: "human",
          content: ticket({
            toolCalls: [{ name: "remove_file", args: { path: "old/cache.bin" } }],
          }),
        },
      ],
    });
    const w = await openPage(browser);
    const { page } = w;
    await openThread(page, inbox.url, paused.threadId);

    await inbox.stop();
    inbox = await startInbox(data.dir, { port });

    // The list, read from storage by the new process, still has the pause.
    // The first request may meet a kept-alive socket of the stopped server: ask again then.
    const { url } = inbox;
    const items = () => fetch(`${url}/inbox/items`);
    const res = await items().catch(() => items());
    const list = (await res.json()) as { items: Array<{ interruptId: string }> };
    expect(list.items.map((i) => i.interruptId)).toContain(paused.interruptId);

    await choose(page, 0, "approve");
    await submit(page);
    await waitUntilDone(page);
    const view = await threadView(inbox.url, paused.threadId);
    expect(view.decisions).toHaveLength(1);
    expect(view.messages.at(-2)).toMatchObject({ type: "tool", content: "removed old/cache.bin" });
    expect(w.dialogs).toEqual([]);
    expect(w.problems.filter((p) => p.startsWith("pageerror"))).toEqual([]);
  });
});
