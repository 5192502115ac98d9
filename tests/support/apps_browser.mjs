// Drives headless Chromium (Debian's package) with playwright-core through the MCP Apps test
// host page (apps_host.html): loads the view of a tool, waits for it to render the tool result,
// records a sale through the view's form (the view's tools/call, relayed by the host to the
// server), and prints one JSON object on stdout for tests/test_examples_apps_browser.py:
// {before, after, log, errors}. Usage: node apps_browser.mjs <host url> <chromium>; the
// module folder holding playwright-core is $APPS_MODULES.
import { createRequire } from "node:module";

const require = createRequire(`${process.env.APPS_MODULES}/`);
const { chromium } = require("playwright-core");

const [url, executablePath] = process.argv.slice(2);
const TIMEOUT = 15000;

const browser = await chromium.launch({
  executablePath,
  headless: true,
  timeout: TIMEOUT,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-dev-shm-usage",
    "--disable-extensions",
    "--no-first-run",
  ],
});
const errors = [];
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(TIMEOUT);
  page.on("pageerror", (error) => errors.push("pageerror: " + error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push("console: " + message.text());
  });
  await page.goto(url);
  const view = page.frameLocator("iframe");
  await view.locator("#status", { hasText: "ready" }).waitFor();
  const snapshot = async () => ({
    title: await view.locator("#title").textContent(),
    total: await view.locator("#total").textContent(),
    bars: await view.locator("#bars rect").count(),
    amounts: await view.locator("#bars rect").evaluateAll((bars) =>
      Object.fromEntries(bars.map((bar) => [bar.dataset.month, Number(bar.dataset.amount)]))),
    status: await view.locator("#status").textContent(),
  });
  const before = await snapshot();
  await view.locator("#month").selectOption("apr");
  await view.locator("#amount").fill("15");
  await view.locator("#record").click();
  await view.locator("#status", { hasText: "recorded 15" }).waitFor();
  const after = await snapshot();
  // From inside the view, ask for a tool outside its reach: the host must refuse it.
  const inner = page.frames().find((frame) => frame !== page.mainFrame());
  await inner.evaluate(() => window.parent.postMessage(
    { jsonrpc: "2.0", id: "probe", method: "tools/call", params: { name: "no_such_tool" } }, "*"));
  await page.waitForFunction(() => window.hostLog.some(
    (entry) => entry.direction === "host->view" && entry.message.id === "probe"));
  const log = await page.evaluate(() => window.hostLog);
  const hostError = await page.evaluate(() => window.hostError || null);
  if (hostError) errors.push("host: " + hostError);
  process.stdout.write(JSON.stringify({ before, after, log, errors }) + "\n");
} catch (error) {
  process.stdout.write(JSON.stringify({ failure: String(error.stack || error), errors }) + "\n");
  process.exitCode = 1;
} finally {
  await browser.close();
}
