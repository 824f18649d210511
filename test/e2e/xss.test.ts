/**
 * Model-written text is attacker text. Payloads in tool args, descriptions and the
 * conversation must show up as text on every page and never run: the flag they would set
 * stays unset, no dialog opens, no element they describe exists.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage } from "./browser.js";
import { ticket } from "./fixtures/review-graphs.js";
import { type RunningInbox, startInbox, startThread, tempDataDir } from "./inbox-server.js";
import { choose, expectClean, openThread, submit, waitUntilDone } from "./page-helpers.js";

const SCRIPT = "<script>window.__pwned = 'script'</script>";
const IMG = "<img src=x onerror=\"window.__pwned = 'img'; alert('img')\">";
const ATTR = '" onmouseover="window.__pwned = \'attr\'" data-x="';
const SVG = "<svg onload=\"window.__pwned = 'svg'\"></svg>";

let browser: Browser;
let inbox: RunningInbox;
let removeDir: () => Promise<void>;

beforeAll(async () => {
  const data = await tempDataDir();
  removeDir = data.remove;
  inbox = await startInbox(data.dir);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await inbox?.stop();
  await removeDir?.();
});

describe("payloads written by the model", () => {
  it("are shown as text and never run, in the list, the thread page and the receipt", async () => {
    const w = await openPage(browser);
    const { page } = w;
    const paused = await startThread(inbox.url, "ops", {
      messages: [
        {
          type: "human",
          content: ticket({
            ask: `Please clean up ${SCRIPT}`,
            say: `Sure. ${SCRIPT} ${IMG}`,
            toolCalls: [
              // The description is written from `reason`, so the payloads reach it too.
              { name: "remove_file", args: { path: SCRIPT, reason: `${IMG} ${ATTR} ${SVG}` } },
              { name: "notify_email", args: { to: ATTR, subject: IMG, body: SVG } },
            ],
          }),
        },
      ],
    });
    const pwned = () => page.evaluate("window.__pwned");
    const injected = () =>
      page.evaluate(
        'document.querySelectorAll("img, script:not([src]), [onmouseover], [onerror], [onload]").length',
      );

    await page.goto(inbox.url);
    const row = page.locator(`li.row[data-thread="${paused.threadId}"]`);
    await row.waitFor();
    await row.hover();

    await openThread(page, inbox.url, paused.threadId);
    const text = (await page.locator("main").textContent()) ?? "";
    expect(text).toContain(SCRIPT);
    expect(text).toContain(IMG);
    expect(text).toContain(ATTR);
    for (const el of await page.locator(".model-text, .args dd, .msg-text").all()) await el.hover();

    // Edit with the payloads in the fields, then look at the diff before submitting.
    await choose(page, 1, "edit");
    await page.locator("#a1-to").fill("safe@example.com");
    expect(await page.locator(".diff").textContent()).toContain(ATTR);
    await choose(page, 0, "reject");
    await page.locator("#a0-message").fill(IMG);
    await submit(page);
    await waitUntilDone(page);
    for (const el of await page.locator(".msg-text, .timeline summary").all()) await el.hover();

    await page.goto(`${inbox.url}/reviews/${paused.interruptId}`);
    await page.locator('[data-testid="receipt-decision"]').waitFor();
    expect(await page.locator("main").textContent()).toContain(ATTR);
    await page.locator("details summary").click();
    for (const el of await page.locator("pre").all()) await el.hover();

    expect(await pwned()).toBeUndefined();
    expect(await injected()).toBe(0);
    expectClean(w);
  });

  it("are served under a CSP that forbids inline script and style", async () => {
    const res = await fetch(inbox.url, { headers: { accept: "text/html" } });
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\son\w+=/);
    expect(html).not.toMatch(/<style|style=/);
  });
});
