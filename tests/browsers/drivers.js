// One small driver over the three browser engines the project is tested
// in, all from Debian packages (no browser or driver is ever downloaded):
//
//   chromium  /usr/bin/chromium, driven by playwright-core (CDP)
//   firefox   /usr/bin/firefox-esr, driven by puppeteer-core over WebDriver BiDi
//   webkit    WebKitGTK's MiniBrowser through /usr/bin/WebKitWebDriver
//             (classic WebDriver), driven by selenium-webdriver; it needs a
//             display, so it runs in its own Xvfb
//
// Every driver has the same few calls: goto, run (a function evaluated in
// the page, awaited, its JSON-able result returned), real pointer and key
// input, and the page's errors.  The tests keep their logic in the page
// and use the driver only for what a learner does.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { until as untilShared } from '../helpers/until.js';

export const BROWSERS = {
  chromium: { executable: '/usr/bin/chromium', packages: 'chromium' },
  firefox: { executable: '/usr/bin/firefox-esr', packages: 'firefox-esr' },
  webkit: {
    executable: '/usr/bin/WebKitWebDriver',
    browser: '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser',
    xvfb: '/usr/bin/Xvfb',
    packages: 'webkit2gtk-driver xvfb',
  },
};

/** Why an engine cannot be launched here ('' when it can): a missing package. */
export function missing(name) {
  const b = BROWSERS[name];
  const files = [b.executable, b.browser, b.xvfb].filter(Boolean);
  const gone = files.filter((f) => !fs.existsSync(f));
  return gone.length ? `${gone.join(', ')} missing (sudo apt-get install ${b.packages})` : '';
}

const WIDTH = 1280;
const HEIGHT = 900;

/** The in-page error trap (for drivers that cannot see the console). */
const TRAP = () => {
  if (window.__errors) return;
  window.__errors = [];
  addEventListener('error', (e) => window.__errors.push(`page error: ${e.message}`));
  addEventListener('unhandledrejection', (e) => window.__errors.push(`unhandled rejection: ${e.reason?.message ?? e.reason}`));
};

/**
 * @typedef {Object} Driver
 * @property {'chromium' | 'firefox' | 'webkit'} name
 * @property {string} version   the browser's own version string
 * @property {(url: string) => Promise<void>} goto
 * @property {() => Promise<void>} reload
 * @property {<T>(fn: (...args: any[]) => T | Promise<T>, ...args: any[]) => Promise<T>} run
 * @property {(points: Array<{x: number, y: number}>) => Promise<void>} drag  press at the
 *   first point (viewport pixels), move through the others, release
 * @property {(x: number, y: number) => Promise<void>} click
 * @property {(key: 'Tab' | 'Enter' | 'Space' | 'ArrowLeft' | 'ArrowRight' | 'Escape') => Promise<void>} press
 * @property {() => string[]} errors   console errors and page errors so far (cleared by each call)
 * @property {() => Promise<void>} close
 */

/** the shared wait, with this suite's longer default (browsers start slowly) */
export const until = (/** @type {() => any} */ fn, timeout = 15000, what = String(fn)) => untilShared(fn, timeout, what);

/** @returns {Promise<number>} a free TCP port on 127.0.0.1 */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {net.AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
}

// ---- what the Chromium and Firefox drivers share --------------------------------

/** A drag through points with a mouse that playwright-core and puppeteer-core
 * both give (move, down, up); the button is released even when a move fails. */
async function dragMouse(mouse, points) {
  await mouse.move(points[0].x, points[0].y);
  await mouse.down();
  try {
    for (const p of points.slice(1)) await mouse.move(p.x, p.y);
  } finally {
    await mouse.up();
  }
}

/** The console errors and uncaught exceptions of a playwright-core or
 * puppeteer-core page, collected as they come. */
function collectErrors(page) {
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  return errors;
}

// ---- Chromium: playwright-core ------------------------------------------------

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'];

async function chromium() {
  const { chromium: pw } = await import('playwright-core');
  const browser = await pw.launch({ executablePath: BROWSERS.chromium.executable, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: WIDTH, height: HEIGHT }, serviceWorkers: 'allow' });
  const page = await context.newPage();
  const errors = collectErrors(page);
  return {
    name: 'chromium',
    version: `Chromium ${browser.version()}`,
    goto: async (url) => { await page.goto(url); },
    reload: async () => { await page.reload(); },
    run: (fn, ...args) => page.evaluate(([src, a]) => (0, eval)(`(${src})`)(...a), [String(fn), args]),
    drag: (points) => dragMouse(page.mouse, points),
    click: (x, y) => page.mouse.click(x, y),
    press: (key) => page.keyboard.press(key),
    errors: () => errors.splice(0),
    close: () => browser.close(),
  };
}

// ---- Firefox: puppeteer-core over WebDriver BiDi ---------------------------------

async function firefox() {
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: BROWSERS.firefox.executable,
    headless: true,
    protocol: 'webDriverBiDi',
    defaultViewport: { width: WIDTH, height: HEIGHT },
    extraPrefsFirefox: {
      // no network of its own: no updates, no telemetry, no safe-browsing lists
      'app.update.enabled': false,
      'browser.safebrowsing.malware.enabled': false,
      'browser.safebrowsing.phishing.enabled': false,
      'datareporting.policy.dataSubmissionEnabled': false,
      'network.captive-portal-service.enabled': false,
      'network.connectivity-service.enabled': false,
    },
  });
  const page = await browser.newPage();
  const errors = collectErrors(page);
  const KEYS = { Space: ' ' };
  return {
    name: 'firefox',
    version: `Firefox ESR ${(await browser.version()).replace(/^firefox\//, '')}`,
    goto: async (url) => { await page.goto(url); },
    reload: async () => { await page.reload(); },
    run: (fn, ...args) => page.evaluate((src, a) => (0, eval)(`(${src})`)(...a), String(fn), args),
    drag: (points) => dragMouse(page.mouse, points),
    click: (x, y) => page.mouse.click(x, y),
    press: (key) => page.keyboard.press(KEYS[key] ?? key),
    errors: () => errors.splice(0),
    close: () => browser.close(),
  };
}

// ---- WebKit: WebKitWebDriver + MiniBrowser, selenium-webdriver, in Xvfb ---------

/** Starts Xvfb on a free display; resolves to {display, proc}. */
function startXvfb() {
  return new Promise((resolve, reject) => {
    const proc = spawn(BROWSERS.webkit.xvfb, ['-displayfd', '3', '-screen', '0', `${WIDTH}x${HEIGHT + 200}x24`, '-nolisten', 'tcp'],
      { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
    let err = '';
    proc.stderr.on('data', (d) => { err += d; });
    proc.stdio[3].on('data', (d) => resolve({ display: `:${String(d).trim()}`, proc }));
    proc.on('exit', (code) => reject(new Error(`Xvfb exited (${code}): ${err.trim()}`)));
  });
}

async function webkit() {
  const { Builder } = await import('selenium-webdriver');
  const { display, proc: xvfb } = await startXvfb();
  const port = await freePort();
  const driverProc = spawn(BROWSERS.webkit.executable, [`--port=${port}`, '--host=127.0.0.1'],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, DISPLAY: display } });
  let driverLog = '';
  driverProc.stderr.on('data', (d) => { driverLog = (driverLog + d).slice(-4000); });
  const stop = () => {
    driverProc.kill();
    xvfb.kill();
  };
  let driver;
  try {
    await until(() => new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.end(); resolve(true); });
      s.on('error', () => resolve(false));
    }), 15000, 'WebKitWebDriver to listen');
    driver = await new Builder().usingServer(`http://127.0.0.1:${port}`).withCapabilities({
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': { binary: BROWSERS.webkit.browser, args: ['--automation'] },
    }).build();
  } catch (err) {
    stop();
    throw new Error(`${err.message}${driverLog ? `\nWebKitWebDriver: ${driverLog.trim()}` : ''}`);
  }
  await driver.manage().setTimeouts({ script: 300000, pageLoad: 60000 });
  await driver.manage().window().setRect({ width: WIDTH, height: HEIGHT });
  const caps = await driver.getCapabilities();
  const run = (fn, ...args) => driver.executeScript(`return (${String(fn)}).apply(null, arguments)`, ...args);
  const { Key } = await import('selenium-webdriver');
  const KEYS = { Tab: Key.TAB, Enter: Key.ENTER, Space: Key.SPACE, ArrowLeft: Key.ARROW_LEFT, ArrowRight: Key.ARROW_RIGHT, Escape: Key.ESCAPE };
  let errors = [];
  /** collects what the in-page trap caught (classic WebDriver has no console) */
  const harvest = async () => {
    try {
      errors.push(...(await run(() => (window.__errors ? window.__errors.splice(0) : []))));
    } catch { /* between pages */ }
  };
  const arm = () => run(TRAP);
  return {
    name: 'webkit',
    version: `WebKitGTK ${caps.get('browserVersion')} (MiniBrowser)`,
    goto: async (url) => {
      await harvest();
      await driver.get(url);
      await arm();
    },
    reload: async () => {
      await harvest();
      await driver.navigate().refresh();
      await arm();
    },
    run,
    async drag(points) {
      const [first, ...rest] = points.map((p) => ({ x: Math.round(p.x), y: Math.round(p.y) }));
      let a = driver.actions({ async: true }).move({ x: first.x, y: first.y, origin: 'viewport' }).press();
      for (const p of rest) a = a.move({ x: p.x, y: p.y, origin: 'viewport', duration: 0 });
      await a.release().perform();
    },
    click: async (x, y) => {
      await driver.actions({ async: true }).move({ x: Math.round(x), y: Math.round(y), origin: 'viewport' }).click().perform();
    },
    press: async (key) => {
      await driver.actions({ async: true }).sendKeys(KEYS[key]).perform();
    },
    errors: () => errors.splice(0),
    // the in-page trap's errors are fetched by goto/reload and by collect()
    collect: harvest,
    close: async () => {
      try {
        await driver.quit();
      } finally {
        stop();
      }
    },
  };
}

/** @param {'chromium' | 'firefox' | 'webkit'} name @returns {Promise<Driver>} */
export function launch(name) {
  return { chromium, firefox, webkit }[name]();
}
