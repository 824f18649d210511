/**
 * The thread page as a reviewer reads it after a review: the history has one entry per
 * step, in order, the decision under the tool review it answered (after the model step
 * that proposed the call), the last step marked finished, and reviewer-facing names only;
 * a message of tens of KB is collapsed to its head until opened.
 */
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage, type WatchedPage } from "./browser.js";
import { ticket } from "./fixtures/review-graphs.js";
import { type RunningInbox, startInbox, startThread, tempDataDir } from "./inbox-server.js";
import {
  choose,
  expectClean,
  openThread,
  SCREENSHOTS,
  submit,
  waitUntilDone,
} from "./page-helpers.js";

let browser: Browser;
let inbox: RunningInbox;
let removeDir: () => Promise<void>;
let w: WatchedPage;

beforeAll(async () => {
  const data = await tempDataDir();
  removeDir = data.remove;
  inbox = await startInbox(data.dir);
  browser = await launchBrowser();
  w = await openPage(browser);
});

afterAll(async () => {
  await browser?.close();
  await inbox?.stop();
  await removeDir?.();
});

describe("a reviewed thread's page", () => {
  it("lists each step once, in order, the decision under its tool review, in the reviewer's words; long messages fold", async () => {
    const log = Array.from({ length: 600 }, (_, i) => `12:00:${i} worker-3 retry ${i} of 600`).join(
      "\n",
    );
    const ask = `Why does worker-3 keep retrying? The log:\n${log}\nEND OF LOG`;
    const paused = await startThread(inbox.url, "ops", {
      messages: [
        {
          type: "human",
          content: ticket({
            ask,
            toolCalls: [{ name: "remove_file", args: { path: "tmp/retry.lock" } }],
          }),
        },
      ],
    });
    const { page } = w;
    await openThread(page, inbox.url, paused.threadId);

    // The 20 KB message shows its head and its size; the rest of the thread stays in view.
    const long = page.locator('[data-testid="long-message"]');
    expect(await long.count()).toBe(1);
    const folded = (await long.locator("pre").textContent()) ?? "";
    expect(folded.length).toBeLessThan(1500);
    expect(folded).not.toContain("END OF LOG");
    const open = long.getByRole("button");
    expect(await open.textContent()).toMatch(/^Show all \(\d+\.\d KB\)$/);
    await open.click();
    expect(await long.locator("pre").textContent()).toContain("END OF LOG");
    await long.getByRole("button", { name: "Show less" }).click();
    expect(await long.locator("pre").textContent()).not.toContain("END OF LOG");

    // While it waits, the last entry is the tool review, waiting.
    expect(await page.locator(".timeline li.step").last().textContent()).toContain(
      "waiting for you",
    );

    await choose(page, 0, "approve");
    await submit(page);
    await waitUntilDone(page);

    const steps = page.locator(".timeline li.step");
    const names = await steps.locator(".step-nodes").allTextContents();
    expect(names).toEqual(["input", "model", "tool review", "tools", "model", "tool review"]);
    const numbers = (
      await steps.evaluateAll((els) => els.map((e) => e.getAttribute("data-step")))
    ).map(Number);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(numbers.length);
    // One decision, under the tool review that it answered, right after the model's step.
    expect(await page.locator(".timeline .decision-line").count()).toBe(1);
    expect(await steps.nth(2).locator(".decision-line").count()).toBe(1);
    // The run's end is said, not left as a bare entry.
    expect(await steps.last().locator(".badge").allTextContents()).toContain("finished");
    // No runtime names anywhere on the page.
    const main = (await page.locator("main").textContent()) ?? "";
    for (const runtime of ["humanInTheLoop", "afterModel", "__start__", "__end__"])
      expect(main).not.toContain(runtime);
    await page.evaluate("window.scrollTo(0, 0)");
    await page.screenshot({ path: join(SCREENSHOTS, "timeline-long-message.png"), fullPage: true });
    expectClean(w);
  });
});
