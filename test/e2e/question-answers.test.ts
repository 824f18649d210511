/**
 * A plain interrupt is answered in the form its value asks for: a choice where it lists
 * `options`, JSON where it gives a schema for structure (a question alone gets text: see
 * review-decisions.test.ts). Sent with Ctrl+Enter from the page body.
 */
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage, type WatchedPage } from "./browser.js";
import { choiceGraph, limitsGraph } from "./fixtures/review-graphs.js";
import {
  type RunningInbox,
  startInbox,
  startThread,
  tempDataDir,
  threadView,
} from "./inbox-server.js";
import { expectClean, openThread, SCREENSHOTS, waitUntilDone } from "./page-helpers.js";

let browser: Browser;
let inbox: RunningInbox;
let removeDir: () => Promise<void>;
let w: WatchedPage;

beforeAll(async () => {
  const data = await tempDataDir();
  removeDir = data.remove;
  inbox = await startInbox(data.dir, { graphs: { regions: choiceGraph(), limits: limitsGraph() } });
  browser = await launchBrowser();
  w = await openPage(browser);
});

afterAll(async () => {
  await browser?.close();
  await inbox?.stop();
  await removeDir?.();
});

describe("answering a question in the form it asks for", () => {
  it("offers a question's options as a choice and sends the option as it is", async () => {
    const paused = await startThread(inbox.url, "regions", {});
    const { page } = w;
    await openThread(page, inbox.url, paused.threadId);
    expect(await page.locator("#interrupt-answer").count()).toBe(0);
    await page.keyboard.press("Control+Enter");
    expect(await page.locator(".field-error").textContent()).toBe("Choose one of the options.");
    await page.getByLabel("us-east").check();
    await page.locator("body").focus();
    await page.keyboard.press("Control+Enter");
    await waitUntilDone(page);
    const view = await threadView(inbox.url, paused.threadId);
    expect(view.values).toMatchObject({ region: "us-east" });
    expectClean(w);
  });

  it("asks for JSON where the question gives a schema for an object", async () => {
    const paused = await startThread(inbox.url, "limits", {});
    const { page } = w;
    await openThread(page, inbox.url, paused.threadId);
    expect(await page.locator('label[for="interrupt-answer"]').textContent()).toContain("JSON");
    // The switch to a text answer is a button among buttons, outlined like the others.
    const border = await page.evaluate(
      `getComputedStyle(document.querySelector("[data-answer-mode=text]")).borderTopColor`,
    );
    expect(border).not.toBe("rgba(0, 0, 0, 0)");
    await page.screenshot({ path: join(SCREENSHOTS, "question-json.png") });
    await page.locator("#interrupt-answer").fill('{"perMinute": 60}');
    await page.keyboard.press("Control+Enter");
    await waitUntilDone(page);
    const view = await threadView(inbox.url, paused.threadId);
    expect(view.values).toMatchObject({ limits: { perMinute: 60 } });
    expectClean(w);
  });
});
