// check.mjs: load fpusoakd's pages in headless Chromium (playwright-core driving
// /usr/bin/chromium), fail on any console error, page error or failed request,
// count the SVG charts, and keep a full-page screenshot of each page.
// usage: node check.mjs BASE_URL ARTIFACT_DIR NAME=PATH:MIN_SVGS ...
// Prints PASS:/FAIL: lines (tests/run.sh counts them); exits 1 on any failure.
import { chromium } from 'playwright-core';

const [base, artifacts, ...pages] = process.argv.slice(2);
const T = 'tests/browser/check.mjs';
let failed = 0;
const pass = (m) => console.log(`PASS: ${T}: ${m}`);
const fail = (m) => { console.log(`FAIL: ${T}: ${m}`); failed++; };

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync'],
  timeout: 30000,
});
try {
  for (const spec of pages) {
    const eq = spec.indexOf('=');
    const name = spec.slice(0, eq), rest = spec.slice(eq + 1);
    const i = rest.lastIndexOf(':');
    const path = rest.slice(0, i), minSvgs = Number(rest.slice(i + 1));
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, javaScriptEnabled: true });
    const page = await context.newPage();
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(`console ${m.type()}: ${m.text()}`); });
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
    const resp = await page.goto(base + path, { waitUntil: 'load', timeout: 20000 });
    resp && resp.status() === 200 ? pass(`${path}: HTTP 200`) : fail(`${path}: HTTP ${resp ? resp.status() : 'none'}`);
    const svgs = await page.$$eval('figure.chart svg', (l) => l.map((s) => { const b = s.getBoundingClientRect(); return [b.width, b.height]; }));
    const drawn = svgs.filter(([w, h]) => w > 100 && h > 100).length;
    drawn >= minSvgs ? pass(`${path}: ${drawn} SVG charts rendered with a size (>= ${minSvgs})`)
                     : fail(`${path}: ${drawn} SVG charts rendered, want >= ${minSvgs}`);
    const captions = await page.$$eval('figure.chart figcaption', (l) => l.filter((c) => c.textContent.trim().length > 20).length);
    captions === svgs.length ? pass(`${path}: every chart has a caption (${captions})`)
                             : fail(`${path}: ${svgs.length} charts but ${captions} captions`);
    const scripts = await page.$$eval('script', (l) => l.length);
    scripts === 0 ? pass(`${path}: no <script> element (hostile strings stayed text)`) : fail(`${path}: ${scripts} <script> elements`);
    errors.length === 0 ? pass(`${path}: no console errors, page errors or failed requests`)
                        : fail(`${path}: ${errors.join(' | ')}`);
    const file = `${artifacts}/${name}.png`;
    await page.screenshot({ path: file, fullPage: true });
    pass(`${path}: screenshot ${file}`);
    await context.close();
  }
} catch (e) {
  fail(`browser session: ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
