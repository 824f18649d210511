/**
 * What the reviewer approves is what runs: agent-supplied text holding a right-to-left
 * override or zero-width characters is shown with each of them as a visible marker naming
 * its code point, the action is flagged before approval, and the tool then runs with
 * exactly the text that was shown (markers read back as the characters they name).
 */
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage, type WatchedPage } from "./browser.js";
import { ticket } from "./fixtures/review-graphs.js";
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
  inbox = await startInbox(data.dir);
  browser = await launchBrowser();
  w = await openPage(browser);
});

afterAll(async () => {
  await browser?.close();
  await inbox?.stop();
  await removeDir?.();
});

/** Shown text back to the text it shows: each `⟨U+XXXX⟩` marker is the character it names. */
const unmark = (shown: string) =>
  shown.replace(/⟨U\+([0-9A-F]{4,6})⟩/g, (_, hex: string) =>
    String.fromCodePoint(Number.parseInt(hex, 16)),
  );

describe("hidden characters in what the agent proposes", () => {
  it("shows `invoice_\\u202Etxt.exe` with a marker and a warning, and runs exactly what was shown", async () => {
    const path = "invoices/invoice_\u202Etxt.exe";
    const paused = await startThread(inbox.url, "ops", {
      messages: [
        {
          type: "human",
          content: ticket({
            ask: "Tidy the invoices folder.",
            say: "Removing the stray\u200b download.",
            toolCalls: [{ name: "remove_file", args: { path } }],
          }),
        },
      ],
    });
    const { page } = w;
    await openThread(page, inbox.url, paused.threadId);
    const card = page.locator('[data-action-index="0"]');

    // The warning comes before the decision buttons, and names the code point.
    const warning = card.locator('[data-testid="hidden-characters"]');
    expect(await warning.isVisible()).toBe(true);
    expect(await warning.textContent()).toContain("U+202E");
    const [warningBox, buttonsBox] = await Promise.all([
      warning.boundingBox(),
      card.locator(".choices").boundingBox(),
    ]);
    expect(warningBox!.y).toBeLessThan(buttonsBox!.y);

    // The argument reads in its real order, the override as a marker where it sits.
    const arg = card.locator(".args dd pre").first();
    const shown = (await arg.textContent()) ?? "";
    expect(shown).toBe("invoices/invoice_⟨U+202E⟩txt.exe");
    expect(await arg.locator(".hidden-char").getAttribute("title")).toBe(
      "U+202E right-to-left override",
    );
    // The description the agent wrote carries it too (it repeats the path).
    expect(await card.locator(".model-text pre").textContent()).toContain("⟨U+202E⟩");
    // No hidden character reaches the page at all, so none can reorder what is around it.
    const raw = String(await page.evaluate("document.body.textContent"));
    expect(raw).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b-\u200f\ufeff]/);
    await page.screenshot({ path: join(SCREENSHOTS, "hidden-characters.png") });

    // Approved from the keyboard; the tool receives exactly the shown text.
    await page.keyboard.press("a");
    await page.keyboard.press("Control+Enter");
    await waitUntilDone(page);
    const view = await threadView(inbox.url, paused.threadId);
    const call = view.messages.find((m: { tool_calls?: unknown[] }) => m.tool_calls?.length);
    expect(call.tool_calls[0].args.path).toBe(unmark(shown));
    expect(view.messages.find((m: { type: string }) => m.type === "tool").content).toBe(
      `removed ${unmark(shown)}`,
    );
    // The conversation marks them as well: the tool's result and the model's zero-width space.
    const conversation = (await page.locator("ol.conversation").last().textContent()) ?? "";
    expect(conversation).toContain("removed invoices/invoice_⟨U+202E⟩txt.exe");
    expect(conversation).toContain("stray⟨U+200B⟩ download");
    expectClean(w);
  });

  it("shows the marked text under an edit field whose value holds one", async () => {
    const paused = await startThread(inbox.url, "ops", {
      messages: [
        {
          type: "human",
          content: ticket({
            toolCalls: [
              {
                name: "notify_email",
                args: { to: "ap@example.com", subject: "Pay \u2066now\u2069 please" },
              },
            ],
          }),
        },
      ],
    });
    const { page } = w;
    await openThread(page, inbox.url, paused.threadId);
    await page.keyboard.press("e");
    const note = page.locator('[data-testid="field-hidden-characters"]');
    await note.waitFor();
    expect(await note.textContent()).toContain("Pay ⟨U+2066⟩now⟨U+2069⟩ please");
    await page.locator("#a0-subject").fill("Pay now please");
    expect(await note.count()).toBe(0);
    await page.keyboard.press("Control+Enter");
    await waitUntilDone(page);
    const view = await threadView(inbox.url, paused.threadId);
    expect(view.messages.find((m: { type: string }) => m.type === "tool").content).toBe(
      'sent "Pay now please" to ap@example.com',
    );
    expectClean(w);
  });
});
