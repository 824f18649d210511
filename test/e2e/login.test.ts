/**
 * Behind STATEWEAVER_TOKEN the inbox asks for the token once: the API answers 401, the page
 * shows a sign-in form, a wrong token is refused there, the right one opens the list.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage } from "./browser.js";
import { ticket } from "./fixtures/review-graphs.js";
import { type RunningInbox, startInbox, tempDataDir } from "./inbox-server.js";
import { choose, expectClean, submit, waitUntilDone } from "./page-helpers.js";

const TOKEN = "e2e-token-5f1c";
let browser: Browser;
let inbox: RunningInbox;
let removeDir: () => Promise<void>;

beforeAll(async () => {
  const data = await tempDataDir();
  removeDir = data.remove;
  inbox = await startInbox(data.dir, { token: TOKEN });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await inbox?.stop();
  await removeDir?.();
});

describe("an inbox behind a token", () => {
  it("signs in once with the token, then lists and reviews as usual", async () => {
    // An API client with the bearer token starts a thread; the browser has no session yet.
    const started = await fetch(`${inbox.url}/inbox/threads`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({
        graphId: "ops",
        input: {
          messages: [
            {
              type: "human",
              content: ticket({ toolCalls: [{ name: "remove_file", args: { path: "k.tmp" } }] }),
            },
          ],
        },
      }),
    });
    expect(started.status).toBe(201);
    const { threadId } = (await started.json()) as { threadId: string };

    const w = await openPage(browser);
    const { page } = w;
    await page.goto(inbox.url);
    await page.locator("#token").waitFor();
    await page.locator("#token").fill("not-the-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    expect(await page.locator(".field-error").textContent()).toContain("not accepted");

    await page.locator("#token").fill(TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.locator(`li.row[data-thread="${threadId}"]`).waitFor({ timeout: 20_000 });
    expect(await page.evaluate("document.cookie")).toContain("sw_csrf=");
    expect(await page.evaluate("document.cookie")).not.toContain("sw_session");

    await page.locator(`li.row[data-thread="${threadId}"] a`).click();
    await choose(page, 0, "approve");
    await submit(page);
    await waitUntilDone(page);
    expect(await page.locator("main").textContent()).toContain("removed k.tmp");
    expectClean(w, [401]);
  });
});
