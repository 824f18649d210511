/** What the browser tests do on inbox pages, named for the reviewer's actions. */

import type { Page } from "playwright-core";
import { expect } from "vitest";
import type { WatchedPage } from "./browser.js";

export const SCREENSHOTS = new URL("../../.tmp/screenshots/", import.meta.url).pathname;

export async function openThread(page: Page, url: string, threadId: string): Promise<void> {
  await page.goto(`${url}/threads/${encodeURIComponent(threadId)}`);
  await page.locator("section.pending").first().waitFor();
}

export async function choose(page: Page, index: number, decision: string): Promise<void> {
  await page.locator(`[data-action-index="${index}"] [data-decision="${decision}"]`).click();
}

export async function submit(page: Page): Promise<void> {
  await page.locator("form.review button[type=submit]").click();
}

/** Waits until the run after a decision has ended and nothing waits on the thread. */
export async function waitUntilDone(page: Page): Promise<void> {
  await page.locator('[data-testid="nothing-pending"]').waitFor({ timeout: 20_000 });
}

export async function conversationText(page: Page): Promise<string> {
  return (await page.locator("ol.conversation").last().textContent()) ?? "";
}

/**
 * Page errors and console errors, less the browser's own note on a 4xx answer a test
 * provoked on purpose (a stale or invalid decision).
 */
export function unexpectedProblems(w: WatchedPage, allowedStatuses: number[] = []): string[] {
  return w.problems.filter(
    (p) =>
      !allowedStatuses.some((s) =>
        p.includes(`Failed to load resource: the server responded with a status of ${s}`),
      ),
  );
}

/** Checks what the page recorded since the last check, then starts a fresh record. */
export function expectClean(w: WatchedPage, allowedStatuses: number[] = []): void {
  const problems = unexpectedProblems(w, allowedStatuses);
  const dialogs = [...w.dialogs];
  w.problems.length = 0;
  w.dialogs.length = 0;
  expect(problems).toEqual([]);
  expect(dialogs).toEqual([]);
}
