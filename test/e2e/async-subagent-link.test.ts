/**
 * An async subagent's task that pauses for review is a thread of its own in the inbox; its
 * page links to the thread whose agent started it (the metadata asyncSubagent writes).
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage } from "./browser.js";
import { ticket } from "./fixtures/review-graphs.js";
import {
  post,
  type RunningInbox,
  startInbox,
  startThread,
  tempDataDir,
  waitForPending,
} from "./inbox-server.js";
import { openThread } from "./page-helpers.js";

let browser: Browser;
let inbox: RunningInbox;
let data: { dir: string; remove: () => Promise<void> };

beforeAll(async () => {
  data = await tempDataDir();
  browser = await launchBrowser();
  inbox = await startInbox(data.dir);
});

afterAll(async () => {
  await browser?.close();
  await inbox?.stop();
  await data?.remove();
});

describe("a task thread's page", () => {
  it("names its subagent and links to the parent thread", async () => {
    const input = (path: string) => ({
      messages: [
        {
          type: "human",
          content: ticket({ toolCalls: [{ name: "remove_file", args: { path } }] }),
        },
      ],
    });
    const parent = await startThread(inbox.url, "ops", input("parent.txt"));
    const res = await post(inbox.url, "/inbox/threads", {
      graphId: "ops",
      input: input("task.txt"),
      metadata: { parent_thread_id: parent.threadId, async_subagent: "researcher" },
    });
    const { threadId } = (await res.json()) as { threadId: string };
    await waitForPending(inbox.url, threadId);

    const { page, problems } = await openPage(browser);
    await openThread(page, inbox.url, threadId);
    const link = page.locator('[data-testid="parent-link"]');
    expect(await link.textContent()).toBe(
      `Task of researcher, started from thread ${parent.threadId}`,
    );
    await link.locator("a").click();
    await page.waitForURL(`**/threads/${parent.threadId}`);
    await page.locator("section.pending").first().waitFor();
    // The parent was started by nothing: it has no link of its own.
    expect(await page.locator('[data-testid="parent-link"]').count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
