/**
 * Debian's Chromium driven by playwright-core. Every page records what would betray a
 * broken or attacked inbox: uncaught errors, console errors (a CSP violation is one), and
 * dialogs (an injected `alert()` is one).
 */
import { existsSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM = process.env.STATEWEAVER_CHROMIUM ?? "/usr/bin/chromium";

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}: install Debian's package (apt-get install -y chromium) or set STATEWEAVER_CHROMIUM.`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  });
}

export interface WatchedPage {
  page: Page;
  /** Uncaught errors and console errors, in order. */
  problems: string[];
  dialogs: string[];
}

export async function openPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  const page = await context.newPage();
  const watched: WatchedPage = { page, problems: [], dialogs: [] };
  page.on("pageerror", (e) => watched.problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") watched.problems.push(`console: ${m.text()}`);
  });
  page.on("dialog", (d) => {
    watched.dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  return watched;
}
