// Drives headless Chromium (Debian's package) with playwright-core over the endpoint's
// interactive page (genmcp/docsui), served by a real server of an example. One browser for
// every flow of a run, a fresh context per flow; each flow's DOM readings go in the report,
// and a screenshot of it to <artifacts>/<example>-<flow>.png. Prints one JSON object:
// {flows: {name: readings | {failure}}, errors}. Usage:
//   node docsui_browser.mjs '{"example": "shop", "base": URL, "artifacts": DIR}' <chromium>
// playwright-core is under $APPS_MODULES.
import { createRequire } from "node:module";
import { mkdirSync, writeFileSync } from "node:fs";

const require = createRequire(`${process.env.APPS_MODULES}/`);
const { chromium } = require("playwright-core");

const [configText, executablePath] = process.argv.slice(2);
const config = JSON.parse(configText);
const TIMEOUT = 20000;
mkdirSync(config.artifacts, { recursive: true });

const browser = await chromium.launch({
  executablePath,
  headless: true,
  timeout: TIMEOUT,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
});
const errors = [];

async function open(path, { token, era, seed, refused, before } = {}) {
  const context = await browser.newContext({ viewport: config.viewport || { width: 1280, height: 800 } });
  const page = await context.newPage();
  if (before) await before(page);  // e.g. holdFirst, before the page's first request
  if (seed) {  // the token the page remembers (per tab): its first connection uses it
    await page.addInitScript((token) => sessionStorage.setItem("genmcp-docs", JSON.stringify({ token })), token);
    token = undefined;
  }
  page.setDefaultTimeout(TIMEOUT);
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  if (process.env.DOCSUI_DEBUG) page.on("request", (r) => console.error(r.method(), r.url(), JSON.stringify(r.headers())));
  await page.goto(config.base + path);
  await page.waitForFunction(() => document.getElementById("status").textContent !== "starting");
  if (era) await page.getByLabel("Protocol").selectOption(era);
  if (token !== undefined) {
    await page.getByLabel("Bearer token").fill(token);
    await page.getByLabel("Bearer token").press("Enter");  // the connect form, by keyboard
  }
  if ((token !== undefined || era || seed) && !refused) await connected(page, era);
  return page;
}

async function connected(page, era) {
  try {
    await page.waitForFunction((era) => {
      const status = document.getElementById("status");
      return status.className === "ok" && (!era || status.textContent.includes(era));
    }, era);
  } catch (error) {
    const log = await page.locator("#timeline pre").evaluateAll((p) => p.slice(0, 12).map((x) => x.textContent.replace(/\s+/g, " ").slice(0, 160)));
    throw new Error(`not connected: ${await page.locator("#status").textContent()}: ${error.message} ${log.join(" | ")}`);
  }
}

// Hold the first request to the endpoint that `which(request)` picks until the function
// returned is called: then it goes on to the server, which answers it late, as a loaded
// server or a slow network may. Every other request goes on at once.
async function holdFirst(page, which) {
  let release;
  const gate = new Promise((resolve) => { release = resolve; });
  let held = false;
  await page.route((url) => url.pathname.endsWith("/mcp"), async (route) => {
    if (!held && which(route.request())) {
      held = true;
      await gate;
    }
    await route.continue();
  });
  return release;
}

const asks = (request, method) => request.method() === "POST" &&
  (JSON.parse(request.postData() || "{}").method === method);

// The 2025 sessions the page opens (each initialize answer's Mcp-Session-Id), in order.
function sessionsOpened(page) {
  const ids = [];
  page.on("response", (response) => {
    const id = response.headers()["mcp-session-id"];
    if (id && asks(response.request(), "initialize")) ids.push(id);
  });
  return ids;
}

// Those of `ids` the server still knows: a ping in each (as `token`, the session's owner)
// answered other than 404. The page ends a session it no longer uses with a DELETE it does
// not wait for: ask again until none is left, or TIMEOUT (a hang guard).
async function stillLive(ids, token) {
  for (const until = Date.now() + TIMEOUT; ;) {
    const live = [];
    for (const id of ids) {
      const response = await fetch(`${config.base}/mcp`, { method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream",
          "MCP-Protocol-Version": "2025-11-25", "Mcp-Session-Id": id, Authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) });
      await response.text();
      if (response.status !== 404) live.push(id);
    }
    if (!live.length || Date.now() > until) return live;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function sentMethods(page) {  // the methods the page sent, newest first
  return page.locator("#timeline li").evaluateAll((items) => items.map((i) => i.dataset.method)
    .filter((m) => m !== "result" && m !== "error"));
}

async function names(page, kind) {
  return page.locator(`nav button[data-kind="${kind}"]`).evaluateAll(
    (buttons) => buttons.map((b) => b.dataset.name));
}

// Every visible form control has a label (a <label for>, or an aria-label).
async function unlabeled(page) {
  return page.evaluate(() => [...document.querySelectorAll("input, select, textarea")]
    .filter((c) => c.offsetParent !== null && c.labels.length === 0 && !c.getAttribute("aria-label"))
    .map((c) => c.id || c.outerHTML.slice(0, 80)));
}

async function shot(page, name) {
  await page.screenshot({ path: `${config.artifacts}/${config.example}-${name}.png` });
}

async function openItem(page, kind, name) {
  const button = page.locator(`nav button[data-kind="${kind}"][data-name="${name}"]`);
  await button.focus();
  await page.keyboard.press("Enter");  // nav entries are buttons: the keyboard opens them
  await page.locator("#detail h2 code", { hasText: name }).waitFor();
}

async function result(page) {
  const slot = page.locator("#detail .result-slot > *").first();
  await slot.waitFor();
  return slot;
}

async function timeline(page) {
  return page.locator("#timeline li").evaluateAll((items) => items.map((i) => i.dataset.method));
}

// -- the shop example (bearer tokens; create, export with progress, delete with a question)

const shop = {
  async list() {
    const page = await open("/mcp/docs", { token: "alice-token" });
    await page.locator("#server-name").waitFor();
    const readings = {
      title: await page.locator("#title").textContent(),
      server: await page.locator("#server-name").textContent(),
      protocol: await page.locator("#server-protocol").textContent(),
      capabilities: JSON.parse(await page.locator("pre.capabilities").textContent()),
      tools: await names(page, "tools"),
      templates: await names(page, "templates"),
      prompts: await names(page, "prompts"),
    };
    // keyboard: Tab from the token field reaches the navigation's buttons
    await page.getByLabel("Bearer token").focus();
    const reached = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press("Tab");
      reached.push(await page.evaluate(() => {
        const a = document.activeElement;
        return `${a.tagName.toLowerCase()}${a.dataset.kind ? ":" + a.dataset.kind : ""}${a.id ? "#" + a.id : ""}`;
      }));
    }
    readings.tabbing = reached;
    await openItem(page, "templates", "shop://customers/{name}");
    const field = page.getByLabel("name");
    await field.focus();
    await field.pressSequentially("a");
    await page.waitForFunction(() => {
      const list = document.querySelector("datalist");
      return list && list.children.length >= 2;
    });
    readings.completions = await page.locator("datalist option").evaluateAll((o) => o.map((x) => x.value));
    await openItem(page, "prompts", "follow_up");
    readings.promptUnlabeled = await unlabeled(page);
    readings.promptFields = await page.locator("#detail select, #detail input").evaluateAll(
      (controls) => controls.map((c) => c.labels[0].textContent));
    await openItem(page, "tools", "create_order");
    readings.unlabeled = await unlabeled(page);
    await shot(page, "list");
    return readings;
  },

  async call() {
    const page = await open("/mcp/docs", { token: "alice-token" });
    await openItem(page, "tools", "create_order");
    const readings = {
      quantityDefault: await page.getByLabel("quantity").inputValue(),
      unlabeled: await unlabeled(page),
      orders: [],
    };
    for (const [customer, item] of [["ada", "tea"], ["alan", "scones"]]) {
      await page.getByLabel("customer").fill(customer);
      await page.getByLabel("item").fill(item);
      await page.getByLabel("item").press("Enter");  // submits the form
      const slot = await result(page);
      await slot.locator("pre.structured").waitFor();
      readings.orders.push({
        structured: JSON.parse(await slot.locator("pre.structured").textContent()),
        check: await slot.locator(".schema-check").textContent(),
      });
    }
    await openItem(page, "tools", "export_orders");
    await page.getByRole("button", { name: "Call" }).click();
    const slot = await result(page);
    readings.export = await slot.locator("pre.text").textContent();
    readings.progress = await page.locator("#detail progress").evaluate((p) => [p.value, p.max]);
    readings.progressText = await page.locator("#detail .progress-text").textContent();
    readings.timeline = await timeline(page);
    readings.timings = await page.locator("#timeline .took").count();
    await shot(page, "call");
    return readings;
  },

  async elicitation() {
    const page = await open("/mcp/docs", { token: "alice-token" });
    await openItem(page, "tools", "create_order");
    await page.getByLabel("customer").fill("ada");
    await page.getByLabel("item").fill("tea");
    await page.getByRole("button", { name: "Call" }).click();
    await result(page);
    await openItem(page, "tools", "delete_order");
    await page.getByLabel("Order Id").fill("1");
    await page.getByRole("button", { name: "Call" }).click();
    const ask = page.locator("#detail .ask");
    await ask.waitFor();
    const readings = {
      message: await ask.locator(".ask-message").textContent(),
      focused: await page.evaluate(() => document.activeElement.closest(".ask") !== null),
      unlabeled: await unlabeled(page),
    };
    await shot(page, "elicitation");
    await page.keyboard.press("Space");  // the focused checkbox: yes
    await ask.getByRole("button", { name: "Accept" }).click();
    readings.result = await (await result(page)).locator("pre.text").textContent();
    readings.timeline = await timeline(page);
    return readings;
  },

  async era() {
    let opened;
    const page = await open("/mcp/docs", { token: "alice-token", era: "2025-11-25",
      before: (page) => { opened = sessionsOpened(page); } });
    const readings = {
      status: await page.locator("#status").textContent(),
      tools: await names(page, "tools"),
    };
    await openItem(page, "tools", "create_order");
    await page.getByLabel("customer").fill("alan");
    await page.getByLabel("item").fill("jam");
    await page.getByRole("button", { name: "Call" }).click();
    readings.created = JSON.parse(await (await result(page)).locator("pre.structured").textContent());
    await openItem(page, "tools", "delete_order");
    await page.getByLabel("Order Id").fill(String(readings.created.id));
    await page.getByRole("button", { name: "Call" }).click();
    const ask = page.locator("#detail .ask");
    await ask.waitFor();
    readings.message = await ask.locator(".ask-message").textContent();
    await ask.getByRole("button", { name: "Accept" }).click();  // yes left unchecked: kept
    readings.result = await (await result(page)).locator("pre.text").textContent();
    readings.timeline = await timeline(page);
    await shot(page, "era");
    await page.getByLabel("Protocol").selectOption("2026-07-28");
    await connected(page, "2026-07-28");
    readings.back = await page.locator("#status").textContent();
    readings.sessions = opened.length;
    readings.live = await stillLive(opened, "alice-token");  // the replaced session ended
    return readings;
  },

  // Answers to an earlier connection arriving after a later one is up (a loaded server):
  // the first connection's 401 (2026-07-28, before the token was typed) after the 2025
  // session is up, then a 2025 initialize after the switch back to 2026-07-28.
  async late() {
    let release, opened;
    const page = await open("/mcp/docs", { token: "alice-token", era: "2025-11-25",
      before: async (page) => {
        opened = sessionsOpened(page);
        release = await holdFirst(page, (r) => asks(r, "server/discover") && !r.headers().authorization);
      } });
    release();
    const refused = page.locator('#timeline li[data-method="error"] summary', { hasText: "of server/discover" });
    await refused.waitFor({ state: "attached" });  // then the page has handled it (microtasks)
    const readings = {
      newest: await page.locator("#timeline li summary").first().textContent(),
      status: await page.locator("#status").textContent(),
      tools: await names(page, "tools"),
      detail: await page.locator("#detail").evaluate((d) => (d.querySelector("h2") || d).textContent),
    };
    await page.getByLabel("Protocol").selectOption("2026-07-28");
    await connected(page, "2026-07-28");
    const initialized = page.locator('#timeline li[data-method="result"] summary', { hasText: "of initialize" });
    const before = await initialized.count();
    release = await holdFirst(page, (r) => asks(r, "initialize"));
    await page.getByLabel("Protocol").selectOption("2025-11-25");
    await page.getByLabel("Protocol").selectOption("2026-07-28");
    await connected(page, "2026-07-28");
    release();
    await initialized.nth(before).waitFor({ state: "attached" });
    await page.getByRole("button", { name: "Server", exact: true }).click();
    readings.back = await page.locator("#status").textContent();
    readings.protocol = await page.locator("#server-protocol").textContent();
    readings.session = await page.locator("#detail dt", { hasText: "Session" }).count();
    await openItem(page, "tools", "create_order");
    await page.getByLabel("customer").fill("ada");
    await page.getByLabel("item").fill("toast");
    await page.getByRole("button", { name: "Call" }).click();
    readings.called = await (await result(page)).textContent();  // a result, or the error
    // both 2025 sessions ended: the one the switch replaced, and the one answered late
    readings.sessions = opened.length;
    readings.live = await stillLive(opened, "alice-token");
    await shot(page, "late");
    return readings;
  },

  async auth() {
    const page = await open("/mcp/docs");
    await page.waitForFunction(() => document.getElementById("status").className === "bad");
    const readings = { without: await page.locator("#status").textContent(),
      toolsWithout: await names(page, "tools") };
    await page.getByLabel("Bearer token").fill("bob-token");
    await page.getByRole("button", { name: "Connect" }).click();
    await connected(page);
    readings.toolsWith = await names(page, "tools");
    await shot(page, "auth");
    return readings;
  },
};

// -- the tenants example (roles hide tools; acme has the everything server's tools) -------

const tenants = {
  async auth() {
    const readings = {};
    for (const token of ["", "bob-acme", "alice-acme"]) {
      const page = await open("/t/acme/mcp/docs", { token });
      readings[token || "guest"] = await names(page, "tools");
      if (token === "alice-acme") await shot(page, "auth");
      await page.context().close();
    }
    const other = await open("/t/globex/mcp/docs", { token: "alice-acme", refused: true });
    await other.waitForFunction(() => document.getElementById("status").className === "bad");
    readings.otherTenant = await other.locator("#status").textContent();
    return readings;
  },

  // Lists read for an earlier connection, answered after a later one is up: alice's (an
  // admin) last list answers only after bob (a member) has connected; bob's lists stay.
  async late() {
    const sent = await open("/t/acme/mcp/docs", { token: "alice-acme" });
    const methods = await sentMethods(sent);
    const last = methods.filter((m) => m.endsWith("/list")).at(0);  // newest first
    await sent.context().close();
    let release;
    const page = await open("/t/acme/mcp/docs", { before: async (page) => {
      release = await holdFirst(page, (r) => asks(r, last) && r.headers().authorization === "Bearer alice-acme");
    } });
    await connected(page);  // as a guest
    const asked = page.locator(`#timeline li[data-method="${last}"]`);
    const guest = await asked.count();
    await page.getByLabel("Bearer token").fill("alice-acme");
    await page.getByLabel("Bearer token").press("Enter");
    await asked.nth(guest).waitFor({ state: "attached" });  // alice's: held
    const answered = page.locator('#timeline li[data-method="result"] summary', { hasText: `of ${last}` });
    const before = await answered.count();  // the guest's
    await page.getByLabel("Bearer token").fill("bob-acme");
    await page.getByLabel("Bearer token").press("Enter");
    await connected(page);
    const readings = { last, bob: await names(page, "tools") };
    release();
    await answered.nth(before + 1).waitFor({ state: "attached" });  // bob's, then alice's
    readings.after = await names(page, "tools");
    readings.status = await page.locator("#status").textContent();
    return readings;
  },

  async results() {
    const page = await open("/t/acme/mcp/docs", { token: "alice-acme", seed: true });
    const readings = {};
    for (const name of ["test_multiple_content_types", "test_audio_content", "test_embedded_resource"]) {
      await openItem(page, "tools", name);
      await page.getByRole("button", { name: "Call" }).click();
      const slot = await result(page);
      readings[name] = await slot.evaluate((node) => ({
        blocks: [...node.querySelectorAll(".block")].map((b) => b.className.replace("block block-", "")),
        texts: [...node.querySelectorAll("pre.text")].map((p) => p.textContent),
        images: [...node.querySelectorAll("img")].map((i) => [i.alt, i.complete && i.naturalWidth > 0]),
        audio: [...node.querySelectorAll("audio")].map((a) => a.getAttribute("aria-label")),
      }));
      if (name === "test_multiple_content_types") await shot(page, "results");
    }
    return readings;
  },

  async form() {
    const page = await open("/t/acme/mcp/docs", { token: "alice-acme", seed: true });
    await openItem(page, "tools", "json_schema_2020_12_tool");
    const readings = {
      legends: await page.locator("#detail fieldset legend").allTextContents(),
      choices: await page.getByLabel("contactMethod").locator("option").allTextContents(),
      unlabeled: await unlabeled(page),
    };
    await page.getByLabel("name", { exact: true }).fill("Ada");
    await page.getByLabel("street").fill("1 Main St");
    await page.getByLabel("city").fill("Paris");
    await page.getByLabel("contactMethod").selectOption({ label: "email" });
    await page.getByLabel("email", { exact: true }).fill("ada@example.com");
    await page.getByRole("button", { name: "Call" }).click();
    readings.result = await (await result(page)).locator("pre.text").textContent();
    await shot(page, "form");
    return readings;
  },

  async sampling() {
    const page = await open("/t/acme/mcp/docs", { token: "alice-acme", seed: true });
    await openItem(page, "tools", "test_input_required_result_sampling");
    await page.getByRole("button", { name: "Call" }).click();
    const ask = page.locator("#detail .ask");
    await ask.waitFor();
    const readings = { asked: await ask.locator("h3").textContent(),
      shown: await ask.locator("pre").textContent(), unlabeled: await unlabeled(page) };
    await page.getByLabel("Your reply, as the model").fill("Paris");
    await ask.getByRole("button", { name: "Send" }).click();
    readings.result = await (await result(page)).locator("pre.text").textContent();
    return readings;
  },

  async enums() {
    const page = await open("/t/acme/mcp/docs", { token: "alice-acme", seed: true });
    await openItem(page, "tools", "test_elicitation_sep1330_enums");
    await page.getByRole("button", { name: "Call" }).click();
    const ask = page.locator("#detail .ask");
    await ask.waitFor();
    await ask.getByLabel("untitledSingle", { exact: true }).selectOption("option2");
    await ask.getByLabel("titledSingle", { exact: true }).selectOption({ label: "Second Option" });
    await ask.getByLabel("legacyEnum", { exact: true }).selectOption({ label: "Option Two" });
    const add = ask.getByRole("button", { name: "Add untitledMulti item", exact: true });
    await add.click();
    await add.click();
    await ask.getByLabel("untitledMulti item", { exact: true }).nth(0).selectOption("option1");
    await ask.getByLabel("untitledMulti item", { exact: true }).nth(1).selectOption("option3");
    await ask.getByRole("button", { name: "Add titledMulti item", exact: true }).click();
    await ask.getByLabel("titledMulti item", { exact: true }).selectOption({ label: "Third Choice" });
    const readings = { unlabeled: await unlabeled(page),
      legends: await ask.locator("fieldset legend").allTextContents() };
    await shot(page, "enums");
    await ask.getByRole("button", { name: "Accept" }).click();
    readings.result = await (await result(page)).locator("pre.text").textContent();
    return readings;
  },

  async cancel() {
    const page = await open("/t/acme/mcp/docs", { token: "alice-acme", seed: true });
    await openItem(page, "tools", "test_long_running_operation");
    const readings = { seconds: await page.getByLabel("seconds").inputValue() };
    await page.getByRole("button", { name: "Call" }).click();
    await page.waitForFunction(() => document.querySelector("#detail progress").value >= 3 / 300);
    readings.progressText = await page.locator("#detail .progress-text").textContent();
    await page.getByRole("button", { name: "Cancel" }).click();
    readings.after = await (await result(page)).textContent();
    readings.callEnabled = await page.getByRole("button", { name: "Call" }).isEnabled();
    await shot(page, "cancel");
    return readings;
  },
};

// -- genmcp dev (tests/cli/test_dev.py): the source changes, the server restarts, the page
// reconnects by itself and lists the new tool

const dev = {
  async reload() {
    const page = await open(config.page);
    await connected(page);
    await page.evaluate(() => {
      window.seen = [];
      new MutationObserver(() => window.seen.push(document.getElementById("status").className))
        .observe(document.getElementById("status"), { childList: true, characterData: true, subtree: true });
    });
    const readings = { before: await names(page, "tools") };
    writeFileSync(config.file, config.rewrite);
    await page.locator('nav button[data-kind="tools"][data-name="second"]').waitFor({ timeout: 60000 });
    await connected(page);
    readings.after = await names(page, "tools");
    readings.seen = await page.evaluate(() => window.seen);
    await shot(page, "reload");
    return readings;
  },
};

// -- the MCP Apps example: the tool's view in the page's sandboxed iframe, bridged

const apps = {
  async view() {
    const page = await open("/mcp/docs");
    await connected(page);
    await openItem(page, "tools", "sales_chart");
    await page.getByLabel("region").selectOption({ label: "north" });
    await page.getByRole("button", { name: "Call" }).click();
    const frame = page.locator("iframe.app-view");
    await frame.waitFor();
    const view = page.frameLocator("iframe.app-view");
    await view.locator("#status", { hasText: "ready" }).waitFor();
    const readings = {
      sandbox: await frame.getAttribute("sandbox"),
      title: await frame.getAttribute("title"),
      heading: await view.locator("#title").textContent(),
      bars: await view.locator("#bars rect").count(),
      structured: JSON.parse(await page.locator("#detail pre.structured").textContent()),
    };
    await view.locator("#month").selectOption("apr");
    await view.locator("#amount").fill("15");
    await view.locator("#record").click();
    await view.locator("#status", { hasText: "recorded 15" }).waitFor();
    readings.after = await view.locator("#bars rect[data-month='apr']").getAttribute("data-amount");
    readings.timeline = await timeline(page);
    await shot(page, "view");
    return readings;
  },
};

// -- the probe app (support/docsui_probe.py): what the examples do not show ---------------

// Whether the page keeps to accessibility basics: its headings never skip a level down,
// every control, button and link has a name, every image an alt, and Tab reaches each
// focusable element with a visible focus ring (:focus-visible's outline).
async function accessibility(page) {
  const found = await page.evaluate(() => {
    const levels = [...document.querySelectorAll("h1, h2, h3, h4, h5, h6")]
      .filter((h) => h.offsetParent !== null).map((h) => Number(h.tagName[1]));
    const named = (n) => (n.getAttribute("aria-label") || n.textContent || "").trim() !== "";
    const shown = (n) => n.offsetParent !== null;
    return {
      lang: document.documentElement.lang,
      landmarks: ["main", "nav"].filter((tag) => document.querySelector(tag)),
      levels,
      skips: levels.filter((level, i) => i > 0 && level > levels[i - 1] + 1),
      unnamed: [...document.querySelectorAll("button, a[href], summary")].filter(shown)
        .filter((n) => !named(n)).map((n) => n.outerHTML.slice(0, 80)),
      noAlt: [...document.querySelectorAll("img")].filter((i) => !i.hasAttribute("alt")).length,
    };
  });
  found.unlabeled = await unlabeled(page);
  await page.locator("#endpoint").focus();  // the first focusable element
  const seen = new Set();
  found.stops = 0;
  found.unringed = [];
  for (let i = 0; i < 120; i++) {
    if (i > 0) await page.keyboard.press("Tab");
    const stop = await page.evaluate(() => {
      const a = document.activeElement;
      if (!a || a === document.body) return null;
      if (!a.dataset.stop) a.dataset.stop = String(Math.random());
      const style = getComputedStyle(a);
      return { key: a.dataset.stop, what: `${a.tagName.toLowerCase()}${a.id ? "#" + a.id : ""}`,
        ring: a.matches(":focus-visible") && style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 1 };
    });
    if (stop === null || seen.has(stop.key)) break;  // round the page once
    seen.add(stop.key);
    found.stops++;
    if (!stop.ring) found.unringed.push(stop.what);
  }
  return found;
}

async function probeState() {
  return (await fetch(`${config.base}/probe/state`)).json();
}

const probe = {
  async csp() {
    const page = await open("/mcp/docs");
    await connected(page);
    const readings = {};
    for (const name of ["strict_view", "declared_view"]) {
      await openItem(page, "tools", name);
      await page.getByRole("button", { name: "Call", exact: true }).click();
      const view = page.frameLocator("iframe.app-view");
      for (const id of ["fetch", "image"]) {
        await view.locator(`#${id}`).filter({ hasNotText: "pending" }).waitFor();
      }
      readings[name] = {
        fetch: await view.locator("#fetch").textContent(),
        image: await view.locator("#image").textContent(),
        color: await view.locator("h1").evaluate((h) => getComputedStyle(h).color),
        violations: (await view.locator("#violations li").allTextContents()).sort(),
        policy: await page.locator("#detail pre.policy").textContent(),
        sandbox: await page.locator("iframe.app-view").getAttribute("sandbox"),
      };
      await shot(page, `csp-${name}`);
    }
    return readings;
  },

  async link() {
    const page = await open("/mcp/docs");
    await connected(page);
    await openItem(page, "tools", "report_link");
    await page.getByRole("button", { name: "Call", exact: true }).click();
    const slot = await result(page);
    const link = slot.locator(".block-resource_link");
    const readings = { blocks: await slot.locator(".block").evaluateAll(
      (blocks) => blocks.map((b) => b.className.replace("block block-", ""))),
      link: (await link.textContent()).replace(/\s+/g, " ").trim() };
    await link.getByRole("button", { name: "Read", exact: true }).focus();
    await page.keyboard.press("Enter");  // followed by keyboard
    await link.locator("pre.text").waitFor();
    readings.contents = await link.locator("pre.text").textContent();
    readings.uri = await link.locator(".resource code").textContent();
    readings.timeline = await timeline(page);
    await shot(page, "link");
    return readings;
  },

  async cancel2025() {
    const page = await open("/mcp/docs", { era: "2025-11-25" });
    await openItem(page, "tools", "wait_for_cancel");
    await page.getByRole("button", { name: "Call", exact: true }).click();
    await page.locator("#detail .progress-text", { hasText: "started" }).waitFor();
    const readings = { before: await probeState() };
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    readings.after = await (await result(page)).textContent();
    // the server's side, while this browser (and its connections) is still open
    for (const until = Date.now() + TIMEOUT; ;) {  // a hang guard
      readings.server = await probeState();
      if ((readings.server.cancelled && readings.server.cancels.length) || Date.now() > until) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const sent = page.locator('#timeline li[data-method="notifications/cancelled"] pre');
    await sent.waitFor({ state: "attached" });
    readings.notification = JSON.parse(await sent.textContent());
    readings.call = JSON.parse(await page.locator('#timeline li[data-method="tools/call"] pre').textContent());
    readings.callEnabled = await page.getByRole("button", { name: "Call", exact: true }).isEnabled();
    await shot(page, "cancel2025");
    return readings;
  },

  async a11y() {
    const page = await open("/mcp/docs");
    await connected(page);
    const readings = { server: await accessibility(page) };
    await openItem(page, "tools", "report_link");
    await page.getByRole("button", { name: "Call", exact: true }).click();
    const slot = await result(page);
    await slot.getByRole("button", { name: "Read", exact: true }).click();
    await slot.locator(".resource pre.text").waitFor();
    readings.tool = await accessibility(page);
    await shot(page, "a11y");
    return readings;
  },
};

const suites = { shop, tenants, dev, apps, probe };
const flows = {};
try {
  // one browser for the run and any more given in "also" ({example, base, ...}: same names)
  for (const run of [{ ...config, also: undefined }, ...(config.also || [])]) {
    Object.assign(config, { flows: undefined }, run);
    for (const [name, flow] of Object.entries(suites[config.example])) {
      if (config.flows && !config.flows.includes(name)) continue;
      if (name in flows) throw new Error(`two flows named ${name}`);
      const begun = Date.now();
      try {
        flows[name] = await flow();
        flows[name].ms = Date.now() - begun;  // for the report only: no test reads it
      } catch (error) {
        flows[name] = { failure: String(error.stack || error) };
      }
    }
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify({ flows, errors }));
