/**
 * Signing in to the inbox through the deployment's auth file, in Chromium: the page asks
 * for an access token, `authenticate` refuses a wrong one, the right one shows who is
 * signed in (no name to type), and a decision taken there is recorded as that person.
 */
import type { Browser } from "playwright-core";
import { MemoryCheckpointer } from "stateweaver/checkpoint";
import { createServer, type StateweaverServer } from "stateweaver/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auth, dbAgent } from "../server/fixtures/review-rights.js";
import { launchBrowser, openPage } from "./browser.js";
import { E2E_INBOX } from "./build-inbox.js";
import { choose, expectClean, submit, waitUntilDone } from "./page-helpers.js";

let browser: Browser;
let server: StateweaverServer;
let url: string;

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

describe("an inbox behind an auth file", () => {
  it("signs in with an access token and records decisions as the signed-in person", async () => {
    const headers = { "content-type": "application/json", authorization: "Bearer token-olga" };
    const started = await fetch(`${url}/inbox/threads`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        graphId: "db",
        input: { messages: [{ type: "human", content: "sql SELECT sign_in" }] },
      }),
    });
    const { threadId, runId } = (await started.json()) as { threadId: string; runId: string };
    await fetch(`${url}/threads/${threadId}/runs/${runId}/join`, { headers });

    const w = await openPage(browser);
    const { page } = w;
    await page.goto(url);
    await page.locator("#token").waitFor();
    expect(await page.locator("main").textContent()).toContain("auth accepts");
    await page.locator("#token").fill("token-nobody");
    await page.getByRole("button", { name: "Sign in" }).click();
    expect(await page.locator(".field-error").textContent()).toContain("not accepted");

    await page.locator("#token").fill("token-dana");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByTestId("signed-in-as").waitFor();
    expect(await page.getByTestId("signed-in-as").textContent()).toContain("Dana");
    expect(await page.getByLabel("Your name, recorded with each decision").count()).toBe(0);
    // The session cookie is HttpOnly: the page's script cannot read it.
    expect(await page.evaluate("document.cookie")).not.toContain("sw_user");

    await page.locator(`li.row[data-thread="${threadId}"] a`).click();
    await choose(page, 0, "approve");
    await submit(page);
    await waitUntilDone(page);
    const view = (await (await fetch(`${url}/inbox/threads/${threadId}`, { headers })).json()) as {
      decisions: Array<{ reviewer: string; authenticatedBy: string }>;
    };
    expect(view.decisions[0]).toMatchObject({ reviewer: "dana", authenticatedBy: "auth_handler" });
    expectClean(w, [401]);
  });
});
