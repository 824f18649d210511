/**
 * A reviewer in Chromium answers real pauses on a real server: approve, edit (an invalid
 * edit refused at its field first), reject, respond, several actions at once, a plain
 * interrupt and a breakpoint. Each decision resumes the run and the page shows the result.
 */
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
import {
  choose,
  conversationText,
  expectClean,
  openThread,
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

describe("the web inbox", () => {
  it("shows a new pause in the list without a reload, then approves it on the thread page", async () => {
    const { page } = w;
    await page.goto(inbox.url);
    await page.locator("h1").filter({ hasText: "Waiting for review" }).waitFor();

    const paused = await startThread(
      inbox.url,
      "ops",
      ops({
        say: "I'll clear the stale log.",
        toolCalls: [{ name: "remove_file", args: { path: "logs/app-2024.log" } }],
      }),
    );
    const row = page.locator(`li.row[data-thread="${paused.threadId}"]`);
    await row.waitFor({ timeout: 10_000 });
    expect(await row.textContent()).toContain("remove_file");

    await row.locator("a").click();
    await page.locator("section.pending").waitFor();
    expect(await page.locator(".graph .node.waiting").count()).toBeGreaterThan(0);
    expect(await page.locator(".model-text").first().textContent()).toContain(
      "Delete logs/app-2024.log?",
    );

    await choose(page, 0, "approve");
    const stream = page.waitForResponse((r) => /\/runs\/[^/]+\/stream$/.test(r.url()));
    await submit(page);
    // The page follows the resumed run: the model's tokens, then the stream closes (as
    // LangGraph's does, with no closing event).
    const frames = await (await stream).text();
    expect(frames).toContain("event: messages");
    expect(frames).not.toContain("event: end");
    await waitUntilDone(page);
    expect(await page.locator("main").textContent()).toContain("removed logs/app-2024.log");
    const view = await threadView(inbox.url, paused.threadId);
    expect(view.decisions).toHaveLength(1);
    expect(view.decisions[0].answer).toEqual({ decisions: [{ type: "approve" }] });
    expect(await page.locator(".timeline .decision-line").count()).toBe(1);
    // The timeline speaks the reviewer's language, not the runtime's node names.
    const timeline = (await page.locator(".timeline").textContent()) ?? "";
    expect(timeline).not.toContain("__start__");
    expect(await page.locator(".timeline .step-nodes").allTextContents()).toContain("input");
    expectClean(w);
  });

  it("refuses an invalid edit at its field, sends nothing, then applies a valid one with a diff", async () => {
    const paused = await startThread(
      inbox.url,
      "ops",
      ops({
        toolCalls: [
          { name: "notify_email", args: { to: "everyone@example.com", subject: "Logs cleaned" } },
        ],
      }),
    );
    const { page } = w;
    await openThread(page, inbox.url, paused.threadId);
    await choose(page, 0, "edit");
    await page.locator("#a0-to").fill("not an email");
    await submit(page);
    const field = page.locator(".field.invalid").filter({ has: page.locator("#a0-to") });
    await field.waitFor();
    expect(await field.locator(".field-error").textContent()).toMatch(/email/i);
    expect((await threadView(inbox.url, paused.threadId)).decisions).toHaveLength(0);

    await page.locator("#a0-to").fill("ops@example.com");
    expect(await page.locator(".diff").textContent()).toContain("+ ops@example.com");
    expect(await page.locator(".diff").textContent()).toContain("- everyone@example.com");
    await submit(page);
    await waitUntilDone(page);
    expect(await conversationText(page)).toContain('sent "Logs cleaned" to ops@example.com');

    await page.goto(`${inbox.url}/reviews/${paused.interruptId}`);
    await page.locator('[data-testid="receipt-decision"]').waitFor();
    expect(await page.locator('[data-testid="receipt-decision"]').textContent()).toBe("edit");
    const receipt = (await page.locator("main").textContent()) ?? "";
    expect(receipt).toContain("- everyone@example.com");
    expect(receipt).toContain("+ ops@example.com");
    expect(receipt).toContain('sent "Logs cleaned" to ops@example.com');
    expectClean(w);
  });

  it("rejects with a message the model reads, and responds in the tool's place", async () => {
    const { page } = w;
    const rejected = await startThread(
      inbox.url,
      "ops",
      ops({ toolCalls: [{ name: "remove_file", args: { path: "db/prod.sqlite" } }] }),
    );
    await openThread(page, inbox.url, rejected.threadId);
    await choose(page, 0, "reject");
    await page.locator("#a0-message").fill("Never the production database.");
    await submit(page);
    await waitUntilDone(page);
    expect(await conversationText(page)).toContain("Never the production database.");
    expect(await page.locator(".msg.tool.error").count()).toBe(1);

    const responded = await startThread(
      inbox.url,
      "ops",
      ops({ toolCalls: [{ name: "remove_file", args: { path: "cache/" } }] }),
    );
    await openThread(page, inbox.url, responded.threadId);
    await choose(page, 0, "respond");
    await submit(page);
    expect(await page.locator(".field-error").first().textContent()).toContain("Write the answer");
    await page.locator("#a0-message").fill("The cache was already empty.");
    await submit(page);
    await waitUntilDone(page);
    expect(await conversationText(page)).toContain("remove_file: The cache was already empty.");
    expect(await page.locator(".msg.tool.error").count()).toBe(0);
    expectClean(w);
  });

  it("answers several actions together, in order, from the keyboard", async () => {
    const { page } = w;
    const paused = await startThread(
      inbox.url,
      "ops",
      ops({
        toolCalls: [
          { name: "remove_file", args: { path: "a.log" } },
          { name: "remove_file", args: { path: "b.log" } },
          { name: "notify_email", args: { to: "team@example.com", subject: "Cleanup" } },
        ],
      }),
    );
    await openThread(page, inbox.url, paused.threadId);
    await page.keyboard.press("a");
    await page.keyboard.press("j");
    await page.keyboard.press("r");
    await page.locator("#a1-message:focus").waitFor();
    // The message field has focus now: typing "a" there must not approve anything.
    await page.keyboard.type("Keep b.log for the audit");
    await page.locator("#a1-message").blur();
    await page.keyboard.press("j");
    await page.keyboard.press("a");
    expect(await page.locator(".submit-bar .muted").textContent()).toBe("3 of 3 decided");
    await page.keyboard.press("?");
    await page.locator('[role="dialog"]').waitFor();
    await page.keyboard.press("?");
    // Submitted from the keys alone: focus is on the page body, not in the form.
    expect(await page.evaluate("document.activeElement === document.body")).toBe(true);
    await page.keyboard.press("Control+Enter");
    await waitUntilDone(page);

    const view = await threadView(inbox.url, paused.threadId);
    expect(view.decisions[0].answer).toEqual({
      decisions: [
        { type: "approve" },
        { type: "reject", message: "Keep b.log for the audit" },
        { type: "approve" },
      ],
    });
    const text = await conversationText(page);
    expect(text).toContain("removed a.log");
    expect(text).toContain("Keep b.log for the audit");
    expect(text).toContain('sent "Cleanup" to team@example.com');
    expectClean(w);
  });

  it("answers a question with a plain word, then continues past a breakpoint", async () => {
    const { page } = w;
    const paused = await startThread(inbox.url, "intake", {});
    expect(paused.kind).toBe("interrupt");
    await openThread(page, inbox.url, paused.threadId);
    expect(await page.locator('[data-testid="question"]').textContent()).toBe(
      "Which environment should the fix go to?",
    );
    // JSON stays available on request, and there a bare word is refused at the field.
    await page.locator('[data-answer-mode="json"]').click();
    await page.locator("#interrupt-answer").fill("staging");
    await page.keyboard.press("Control+Enter");
    expect(await page.locator(".field-error").textContent()).toContain("Not valid JSON");
    await page.locator('[data-answer-mode="text"]').click();
    await page.locator("#interrupt-answer").fill("staging");
    await page.keyboard.press("Control+Enter");
    // The graph stops before "deploy": a breakpoint, answered with Continue.
    const button = page.getByRole("button", { name: "Continue" });
    await button.waitFor({ timeout: 20_000 });
    expect(await page.locator('.graph .node.waiting[data-node="deploy"]').count()).toBe(1);
    await button.click();
    await waitUntilDone(page);
    const view = await threadView(inbox.url, paused.threadId);
    expect(view.values).toMatchObject({ environment: "staging", deployed: "to staging" });
    expect(view.decisions.map((d: { answer: unknown }) => d.answer)).toEqual(["staging", null]);
    expectClean(w);
  });
});
