/**
 * A pause outlives its server: the page stays open while the server stops and starts again
 * on the same data directory, and the decision made afterwards resumes the thread. The
 * change that decision makes is the reviewer's own: the page never says the thread changed
 * under them, even when the server's change feed reports it before the decision's answer.
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
    // Remember if the page ever says the thread changed under the reviewer, however briefly.
    await page.evaluate(`new MutationObserver(() => {
      if (document.body.textContent.includes("changed since you opened it")) window.sawChanged = true;
    }).observe(document.body, { childList: true, subtree: true, characterData: true })`);

    // The change feed reconnects by itself once the server is back.
    const feedBack = page.waitForRequest((r) => r.url().endsWith("/inbox/events"), {
      timeout: 30_000,
    });
    await inbox.stop();
    inbox = await startInbox(data.dir, { port });
    await feedBack;

    // The list, read from storage by the new process, still has the pause.
    // The first request may meet a kept-alive socket of the stopped server: ask again then.
    const { url } = inbox;
    const items = () => fetch(`${url}/inbox/items`);
    const res = await items().catch(() => items());
    const list = (await res.json()) as { items: Array<{ interruptId: string }> };
    expect(list.items.map((i) => i.interruptId)).toContain(paused.interruptId);

    // The decision's answer reaches the page only after the run it started has finished,
    // so the change feed reports the thread's changes first (as a slow answer would).
    const server = inbox;
    await page.route("**/decisions", async (route) => {
      const response = await route.fetch();
      for (let i = 0; i < 100; i++) {
        if ((await threadView(server.url, paused.threadId)).thread.status === "idle") break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await new Promise((r) => setTimeout(r, 500));
      await route.fulfill({ response });
    });
    await choose(page, 0, "approve");
    await submit(page);
    await waitUntilDone(page);
    await page.waitForTimeout(300);
    expect(await page.evaluate("window.sawChanged === true")).toBe(false);
    expect(await page.locator(".notice.warn").count()).toBe(0);
    const view = await threadView(inbox.url, paused.threadId);
    expect(view.decisions).toHaveLength(1);
    expect(view.messages.at(-2)).toMatchObject({ type: "tool", content: "removed old/cache.bin" });
    expect(w.dialogs).toEqual([]);
    expect(w.problems.filter((p) => p.startsWith("pageerror"))).toEqual([]);
  });
});
