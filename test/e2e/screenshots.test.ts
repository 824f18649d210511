/**
 * Screenshots of the inbox list and of a thread page with realistic pauses, written to
 * .tmp/screenshots (gitignored). docs/images/ holds the copies the README shows.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage } from "./browser.js";
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

const ops = (script: Parameters<typeof ticket>[0]) => ({
  messages: [{ type: "human", content: ticket(script) }],
});

beforeAll(async () => {
  const data = await tempDataDir();
  removeDir = data.remove;
  inbox = await startInbox(data.dir);
  browser = await launchBrowser();
  await mkdir(SCREENSHOTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await inbox?.stop();
  await removeDir?.();
});

describe("screenshots", () => {
  it("of the inbox list and of a thread page under review", async () => {
    await startThread(inbox.url, "intake", {});
    await startThread(
      inbox.url,
      "ops",
      ops({
        ask: "Clean up the old build artifacts on ci-3.",
        toolCalls: [
          {
            name: "remove_file",
            args: { path: "/srv/ci/builds/2024-*", reason: "42 GB of builds older than 90 days." },
          },
        ],
      }),
    );
    await startThread(
      inbox.url,
      "ops",
      ops({
        toolCalls: [
          {
            name: "write_report",
            args: { title: "Weekly uptime", body: `Uptime report.\n${"99.98% ".repeat(120)}` },
          },
        ],
      }),
    );
    await startThread(
      inbox.url,
      "ops",
      ops({
        toolCalls: [
          {
            name: "notify_email",
            args: { to: "all-staff@example.com", subject: "DB maintenance" },
          },
        ],
      }),
    );
    const main = await startThread(
      inbox.url,
      "ops",
      ops({
        ask: "web-2 is paging about disk space again. Can you free some room and let on-call know?",
        say: "Disk on web-2 is 94% full. I'll remove last month's rotated log and tell on-call.",
        toolCalls: [
          {
            name: "remove_file",
            args: {
              path: "/var/log/app/app-2024-11.log.gz",
              reason: "Rotated last month; 3.1 GB.",
            },
          },
          {
            name: "notify_email",
            args: { to: "oncall@example", subject: "web-2 disk cleaned up" },
          },
        ],
      }),
    );

    const w = await openPage(browser);
    const { page } = w;
    await page.goto(inbox.url);
    await page.locator(`li.row[data-thread="${main.threadId}"]`).waitFor();
    expect(await page.locator("li.row").count()).toBe(5);
    await page.setViewportSize({ width: 1280, height: 560 });
    await page.screenshot({ path: join(SCREENSHOTS, "inbox-list.png") });
    await page.setViewportSize({ width: 1360, height: 900 });

    await page.getByLabel("Your name, recorded with each decision").fill("Dana (SRE)");
    await openThread(page, inbox.url, main.threadId);
    await choose(page, 0, "approve");
    await choose(page, 1, "edit");
    await page.locator("#a1-to").fill("oncall@example.com");
    await page.locator("#a1-to").blur();
    await page.evaluate("window.scrollTo(0, 0)");
    await page.screenshot({ path: join(SCREENSHOTS, "thread-review.png"), fullPage: true });

    await submit(page);
    await waitUntilDone(page);
    await page.screenshot({ path: join(SCREENSHOTS, "thread-done.png"), fullPage: true });
    await page.locator(".decision-line a").first().click();
    await page.locator('[data-testid="receipt-decision"]').waitFor();
    expect(await page.locator('[data-testid="receipt-reviewer"]').textContent()).toBe("Dana (SRE)");
    expect(await page.locator('[data-testid="receipt-action"] .verdict').allTextContents()).toEqual(
      ["approve", "edit"],
    );
    // The edited action shows what was proposed and, labelled apart, what ran.
    const edited = page.locator('[data-testid="receipt-action"]').nth(1);
    expect(await edited.locator('[data-testid="receipt-proposed-args"]').textContent()).toContain(
      '"oncall@example"',
    );
    expect(await edited.locator('[data-testid="receipt-edited-args"]').textContent()).toContain(
      '"oncall@example.com"',
    );
    await page.screenshot({ path: join(SCREENSHOTS, "review-receipt.png"), fullPage: true });
    expectClean(w);
  });
});
