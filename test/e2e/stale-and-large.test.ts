/**
 * The inbox's guards: a decision on a pause that moved on is refused with what is pending
 * now; a double submit runs once; approve waits until long args were opened (or an
 * override, which is recorded); the first load stays under 150 KB.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage, type WatchedPage } from "./browser.js";
import { ticket } from "./fixtures/review-graphs.js";
import {
  post,
  type RunningInbox,
  startInbox,
  startThread,
  tempDataDir,
  threadView,
  waitForPending,
} from "./inbox-server.js";
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

const ops = (script: Parameters<typeof ticket>[0]) => ({
  messages: [{ type: "human", content: ticket(script) }],
});

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

describe("the web inbox's guards", () => {
  it("loads in at most 150 KB of assets", async () => {
    const sizes: Array<{ url: string; bytes: number }> = [];
    const page = await (await browser.newContext()).newPage();
    page.on("response", async (res) => {
      const type = res.request().resourceType();
      if (!["document", "script", "stylesheet", "image", "font"].includes(type)) return;
      sizes.push({ url: new URL(res.url()).pathname, bytes: (await res.body()).length });
    });
    await page.goto(inbox.url, { waitUntil: "networkidle" });
    await page.locator("h1").first().waitFor();
    const total = sizes.reduce((n, s) => n + s.bytes, 0);
    console.log(
      `inbox first load: ${(total / 1024).toFixed(1)} KB uncompressed in ${sizes.length} files\n${sizes
        .map((s) => `  ${s.url} ${(s.bytes / 1024).toFixed(1)} KB`)
        .join("\n")}`,
    );
    expect(sizes.some((s) => s.url.endsWith(".js"))).toBe(true);
    expect(total).toBeLessThanOrEqual(150 * 1024);
    await page.context().close();
  });

  it("refuses a decision on a pause that was answered elsewhere, and shows what is pending now", async () => {
    const { page } = w;
    const paused = await startThread(
      inbox.url,
      "ops",
      ops({
        toolCalls: [{ name: "remove_file", args: { path: "tmp/build" } }],
        then: [{ name: "remove_file", args: { path: "tmp/build/cache" } }],
      }),
    );
    await openThread(page, inbox.url, paused.threadId);
    // Someone else answers first, through the API.
    const other = await post(inbox.url, `/inbox/threads/${paused.threadId}/decisions`, {
      checkpointId: paused.checkpointId,
      interruptId: paused.interruptId,
      answer: { decisions: [{ type: "reject", message: "Not now." }] },
      reviewer: "someone-else",
      idempotencyKey: "other-reviewer-1",
    });
    expect(other.status).toBe(202);
    // The model answers the rejection with a narrower call: a new pause.
    const next = await waitForPending(inbox.url, paused.threadId, paused.interruptId);
    await choose(page, 0, "approve");
    await submit(page);
    const stale = page.locator('[data-testid="stale"]');
    await stale.waitFor();
    const notice = (await stale.textContent()) ?? "";
    expect(notice).toContain("Nothing was applied");
    expect(notice).toContain(next.checkpointId);
    // The page's own words only: not the API's message, written for API clients.
    expect(notice).not.toContain("has moved on");
    expect(notice).not.toContain('"pending"');
    expect(await stale.locator(".diff-old").textContent()).toBe("- tmp/build");
    expect(await stale.locator(".diff-new").textContent()).toBe("+ tmp/build/cache");
    const view = await threadView(inbox.url, paused.threadId);
    expect(view.decisions).toHaveLength(1);
    expect(view.decisions[0].reviewer).toBe("someone-else");
    await mkdir(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, "stale-decision.png") });

    await page.getByRole("button", { name: "Review what is pending now" }).click();
    await page.locator(`section.pending[data-interrupt="${next.interruptId}"]`).waitFor();
    await choose(page, 0, "approve");
    await submit(page);
    await waitUntilDone(page);
    expect((await threadView(inbox.url, paused.threadId)).decisions).toHaveLength(2);
    expectClean(w, [409]);
  });

  it("answers a double submit once", async () => {
    const { page } = w;
    const paused = await startThread(
      inbox.url,
      "ops",
      ops({ toolCalls: [{ name: "remove_file", args: { path: "once.txt" } }] }),
    );
    await openThread(page, inbox.url, paused.threadId);
    await choose(page, 0, "approve");
    const sent: string[] = [];
    page.on("request", (r) => {
      if (r.method() === "POST" && r.url().endsWith("/decisions")) sent.push(r.postData() ?? "");
    });
    // Two clicks in the same task, before the page can disable the button.
    await page.locator("form.review button[type=submit]").evaluate((b: { click(): void }) => {
      b.click();
      b.click();
    });
    await waitUntilDone(page);
    const keys = sent.map((b) => JSON.parse(b).idempotencyKey);
    // Both left the page, with one key: the server applied the first and answered the second.
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(1);
    const view = await threadView(inbox.url, paused.threadId);
    expect(view.decisions).toHaveLength(1);
    const results = view.messages.filter((m: { type: string }) => m.type === "tool");
    expect(results.map((m: { content: string }) => m.content)).toEqual(["removed once.txt"]);
    expectClean(w);
  });

  it("holds approve until long args are opened, and records an approve without viewing", async () => {
    const { page } = w;
    const body = `Quarterly incident report.\n${"All systems nominal. ".repeat(200)}`;
    const call = { name: "write_report", args: { title: "Q3 incidents", body } };
    const first = await startThread(inbox.url, "ops", ops({ toolCalls: [call] }));
    await openThread(page, inbox.url, first.threadId);
    expect(await page.getByRole("button", { name: /Show all \(4\.\d KB\)/ }).count()).toBe(1);
    await choose(page, 0, "approve");
    await submit(page);
    expect(await page.locator(".field-error").textContent()).toContain("Open the collapsed args");
    expect((await threadView(inbox.url, first.threadId)).decisions).toHaveLength(0);
    await page.locator('[data-expand="body"]').click();
    await submit(page);
    await waitUntilDone(page);
    const opened = (await threadView(inbox.url, first.threadId)).decisions[0];
    expect(opened.unexpandedApproveOverride).toBeFalsy();

    const second = await startThread(inbox.url, "ops", ops({ toolCalls: [call] }));
    await openThread(page, inbox.url, second.threadId);
    await choose(page, 0, "approve");
    await page.getByLabel(/Approve without viewing/).check();
    await submit(page);
    await waitUntilDone(page);
    const overridden = (await threadView(inbox.url, second.threadId)).decisions[0];
    expect(overridden.unexpandedApproveOverride).toBe(true);
    // Beside "name not verified": a name typed under the shared token is marked as well.
    expect(await page.locator(".timeline .badge.warn").allTextContents()).toEqual([
      "name not verified",
      "approved without viewing",
    ]);
    expectClean(w);
  });
});
