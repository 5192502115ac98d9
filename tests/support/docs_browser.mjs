// Drives headless Chromium (Debian's package) with playwright-core over the built docs site,
// served by a real server at <base url>: the home page renders with its navigation, an API
// page shows MCPTestClient.open_call with its signature, the search box finds "open_call"
// and its first hit opens that entry. Prints one JSON object for tests/docs/test_docs.py:
// {home, api, search, failed, errors}; failed lists same-origin requests that did not load.
// Usage: node docs_browser.mjs <base url> <chromium>; playwright-core is under $APPS_MODULES.
import { createRequire } from "node:module";

const require = createRequire(`${process.env.APPS_MODULES}/`);
const { chromium } = require("playwright-core");

const [base, executablePath] = process.argv.slice(2);
const TIMEOUT = 15000;
const origin = new URL(base).origin;

const browser = await chromium.launch({
  executablePath,
  headless: true,
  timeout: TIMEOUT,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
});
const errors = [];
const failed = [];
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(TIMEOUT);
  page.on("pageerror", (error) => errors.push("pageerror: " + error.message));
  page.on("requestfailed", (request) => {
    // A load the next navigation cut short (ERR_ABORTED) is no broken link; anything else is.
    const why = request.failure()?.errorText ?? "";
    if (request.url().startsWith(origin) && !why.includes("ERR_ABORTED")) {
      failed.push(`${why} ${request.url()}`);
    }
  });
  page.on("response", (response) => {
    if (response.url().startsWith(origin) && response.status() >= 400) {
      failed.push(`${response.status()} ${response.url()}`);
    }
  });

  await page.goto(base + "/");
  const home = {
    title: await page.title(),
    heading: await page.locator("article h1").first().textContent(),
    nav: await page.locator("nav.md-nav--primary a.md-nav__link").allTextContents(),
  };

  await page.goto(base + "/reference/testing/");
  const entry = page.locator('[id="genmcp.testing.MCPTestClient.open_call"]');
  await entry.waitFor({ state: "visible" });
  const api = { title: await page.title(), openCall: await entry.textContent() };

  await page.goto(base + "/");
  const box = page.locator("input.md-search__input");
  await box.click();
  await box.pressSequentially("open_call");
  const hits = page.locator(".md-search-result__item a");
  await hits.first().waitFor({ state: "visible" });
  const search = {
    hrefs: await hits.evaluateAll((links) => links.map((link) => link.href)),
    texts: await hits.allTextContents(),
  };
  await page.locator('.md-search-result__item a[href*="MCPTestClient.open_call"]').click();
  await page.waitForURL(/MCPTestClient\.open_call/);
  search.landed = page.url();

  process.stdout.write(JSON.stringify({ home, api, search, failed, errors }) + "\n");
} catch (error) {
  process.stdout.write(
    JSON.stringify({ failure: String(error.stack || error), failed, errors }) + "\n");
  process.exitCode = 1;
} finally {
  await browser.close();
}
