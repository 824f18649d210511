/**
 * Review rights in Chromium: a person the review's rules leave out sees it read-only with
 * the reason; one who may reject but not approve sees approve disabled; two people approve
 * a two-person review, the second seeing who approved first. Identities come from the
 * server's auth handler (LangGraph's Auth class), here reading a cookie the test sets.
 */
import type { Browser, Page } from "playwright-core";
import { MemoryCheckpointer } from "stateweaver/checkpoint";
import { createServer, type StateweaverServer } from "stateweaver/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auth, dbAgent, ran } from "../server/fixtures/review-rights.js";
import { launchBrowser, openPage, type WatchedPage } from "./browser.js";
import { E2E_INBOX } from "./build-inbox.js";
import { choose, expectClean, openThread, submit, waitUntilDone } from "./page-helpers.js";

let browser: Browser;
let server: StateweaverServer;
let url: string;
const pages: WatchedPage[] = [];

beforeAll(async () => {
  server = createServer({
    graphs: { db: dbAgent() },
    checkpointer: new MemoryCheckpointer(),
    inboxDir: E2E_INBOX,
    auth,
  });
  ({ url } = await server.listen({ port: 0 }));
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A page signed in as `who` (the auth handler reads the cookie). */
async function signedIn(who: string): Promise<WatchedPage> {
  const w = await openPage(browser);
  await w.page.context().addCookies([{ name: "sw_test_user", value: who, url }]);
  pages.push(w);
  return w;
}

/** Starts a thread as dana over the API and waits until it pauses. */
async function paused(text: string): Promise<string> {
  const headers = { "content-type": "application/json", authorization: "Bearer token-dana" };
  const res = await fetch(`${url}/inbox/threads`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      graphId: "db",
      input: { messages: [{ type: "human", content: text }] },
    }),
  });
  const { threadId, runId } = (await res.json()) as { threadId: string; runId: string };
  await fetch(`${url}/threads/${threadId}/runs/${runId}/join`, { headers });
  return threadId;
}

const approveButton = (page: Page) =>
  page.locator('[data-action-index="0"] [data-decision="approve"]');

describe("who may decide, in the web inbox", () => {
  it("shows a review read-only, with the reason, to someone the rules leave out", async () => {
    const threadId = await paused("sql DROP TABLE e2e_a");
    const vic = await signedIn("vic");
    await openThread(vic.page, url, threadId);
    const notice = vic.page.locator("[data-review-read-only]");
    await notice.waitFor();
    expect(await notice.textContent()).toContain(
      'Only holders of the "dba" permission may approve',
    );
    expect(await approveButton(vic.page).isDisabled()).toBe(true);
    expect(await vic.page.locator("form.review button[type=submit]").isDisabled()).toBe(true);
    expectClean(vic);
  });

  it("lets an ops reviewer reject but not approve, and a dba approve", async () => {
    const threadId = await paused("sql SELECT e2e");
    const olga = await signedIn("olga");
    await openThread(olga.page, url, threadId);
    expect(await approveButton(olga.page).isDisabled()).toBe(true);
    expect(await olga.page.locator("[data-refused]").textContent()).toMatch(/"dba" permission/);
    expect(await olga.page.locator('[data-decision="reject"]').isDisabled()).toBe(false);
    const dana = await signedIn("dana");
    await openThread(dana.page, url, threadId);
    await choose(dana.page, 0, "approve");
    await submit(dana.page);
    await waitUntilDone(dana.page);
    expect(ran).toContain("sql:SELECT e2e");
    expectClean(olga);
    expectClean(dana);
  });

  it("runs a two-person review after the second person approves, showing who approved first", async () => {
    const threadId = await paused("remove e2e.txt");
    const ana = await signedIn("ana");
    await openThread(ana.page, url, threadId);
    expect(await ana.page.locator("[data-approvals]").textContent()).toContain(
      "Nobody has approved yet",
    );
    await choose(ana.page, 0, "approve");
    await submit(ana.page);
    await ana.page.getByText("Your approval is recorded (1 of 2)").waitFor();
    expect(ran).not.toContain("rm:e2e.txt");
    const bo = await signedIn("bo");
    await openThread(bo.page, url, threadId);
    expect(await bo.page.locator("[data-approvals]").textContent()).toContain(
      "Approved by Ana; 1 more needed",
    );
    await choose(bo.page, 0, "approve");
    await submit(bo.page);
    await waitUntilDone(bo.page);
    expect(ran).toContain("rm:e2e.txt");
    expectClean(ana);
    expectClean(bo);
  });
});
