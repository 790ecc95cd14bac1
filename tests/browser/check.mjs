// SPDX-License-Identifier: GPL-2.0-only
// check.mjs: load fpusoakd's pages in headless Chromium (playwright-core driving /usr/bin/chromium) at
// 1280x800 with JavaScript off, as a reader without scripts sees them, and check what a reader needs:
//   - HTTP 200, no console error, page error or failed request, no <script>, SVG charts drawn with captions;
//   - the answer first: on a run page (or /) the state line and the headline cards end inside the first
//     800 px (getBoundingClientRect); on a compare page the verdict table starts there;
//   - charts readable: in every SVG no two legend or tick labels overlap (their bounding boxes), and the
//     tick labels of an axis are unique;
//   - no horizontal scroll at 1280 px; the page height is printed, and held to a maximum where given;
//   - every link answers 200 (same-origin GETs; in-page anchors must name an element);
//   - on /runs: choosing an A and a B and pressing "compare selected" opens their comparison;
// and saves a full-page and a first-screen screenshot of each page.
// usage: node check.mjs BASE_URL ARTIFACT_DIR NAME=PATH|MIN_SVGS[|KIND[|MAX_HEIGHT]] ...
//   KIND: run (a run page or /), compare, runs (the picker), plain; MAX_HEIGHT in px (0 = none).
// Prints PASS:/FAIL:/SKIP: lines (tests/run.sh counts them); exits 1 on any failure.
import { chromium } from 'playwright-core';

const [base, artifacts, ...pages] = process.argv.slice(2);
const T = 'tests/browser/check.mjs';
const W = 1280, H = 800;
let failed = 0;
const pass = (m) => console.log(`PASS: ${T}: ${m}`);
const fail = (m) => { console.log(`FAIL: ${T}: ${m}`); failed++; };
const info = (m) => console.log(`info: ${m}`);
const linkStatus = new Map();   // every URL checked once across pages

// Boxes of the labels of each SVG chart, by class, and the axis label texts.
function chartLabels() {
  const out = [];
  for (const svg of document.querySelectorAll('figure.chart svg')) {
    const grab = (cls) => [...svg.querySelectorAll(`text.${cls}`)].map((t) => {
      const b = t.getBoundingClientRect();
      return { text: t.textContent, x0: b.left, y0: b.top, x1: b.right, y1: b.bottom };
    });
    out.push({ title: svg.querySelector('title')?.textContent || '?', legend: grab('legend'), xtick: grab('xtick'),
               ytick: grab('ytick') });
  }
  return out;
}

const overlap = (a, b) => a.x0 < b.x1 - 0.5 && b.x0 < a.x1 - 0.5 && a.y0 < b.y1 - 0.5 && b.y0 < a.y1 - 0.5;

function checkCharts(path, charts) {
  let overlaps = [], dups = [], labels = 0;
  for (const c of charts) {
    const all = [...c.legend, ...c.xtick, ...c.ytick];
    labels += all.length;
    for (let i = 0; i < all.length; i++)
      for (let j = i + 1; j < all.length; j++)
        if (overlap(all[i], all[j])) overlaps.push(`${c.title}: "${all[i].text}" / "${all[j].text}"`);
    for (const axis of ['xtick', 'ytick']) {
      const seen = new Set();
      for (const t of c[axis]) {
        if (seen.has(t.text)) dups.push(`${c.title}: ${axis} "${t.text}"`);
        seen.add(t.text);
      }
    }
  }
  overlaps.length === 0 ? pass(`${path}: no two legend or tick labels overlap (${labels} labels in ${charts.length} charts)`)
                        : fail(`${path}: overlapping labels: ${overlaps.slice(0, 5).join(' | ')}`);
  dups.length === 0 ? pass(`${path}: the tick labels of every axis are unique`)
                    : fail(`${path}: repeated tick labels: ${dups.slice(0, 5).join(' | ')}`);
}

async function checkLinks(page, context, path) {
  const links = await page.$$eval('a[href]', (l) => l.map((a) => a.getAttribute('href')));
  const bad = [];
  let n = 0;
  for (const href of new Set(links)) {
    if (href.startsWith('#')) {
      const ok = await page.evaluate((id) => !!document.getElementById(id), href.slice(1));
      if (!ok) bad.push(`${href} (no such element)`);
      n++;
      continue;
    }
    const url = new URL(href, base + path);
    if (url.origin !== new URL(base).origin) { bad.push(`${href} (leaves the server)`); continue; }
    if (!linkStatus.has(url.href)) {
      const r = await context.request.get(url.href, { timeout: 20000 });
      linkStatus.set(url.href, r.status());
    }
    if (linkStatus.get(url.href) !== 200) bad.push(`${href} -> ${linkStatus.get(url.href)}`);
    n++;
  }
  bad.length === 0 ? pass(`${path}: every link answers 200 or names an element on the page (${n})`)
                   : fail(`${path}: links: ${bad.slice(0, 6).join(' | ')}`);
}

async function checkFirstScreen(page, path, kind) {
  const r = await page.evaluate(() => {
    const box = (sel) => { const e = document.querySelector(sel); if (!e) return null; const b = e.getBoundingClientRect(); return { top: b.top, bottom: b.bottom }; };
    return { state: box('#state'), cards: box('.cards'), verdicts: box('table.verdicts'), cardn: document.querySelectorAll('.card').length };
  });
  if (kind === 'run') {
    r.state && r.cards && r.state.bottom <= H && r.cards.bottom <= H && r.cardn === 5
      ? pass(`${path}: the state line and the 5 headline figures are inside the first ${H} px (cards end at ${Math.round(r.cards.bottom)})`)
      : fail(`${path}: headline not in the first ${H} px: ${JSON.stringify(r)}`);
  } else if (kind === 'compare') {
    r.verdicts && r.verdicts.top < H * 0.6
      ? pass(`${path}: the verdict table starts inside the first screen (at ${Math.round(r.verdicts.top)} px)`)
      : fail(`${path}: the verdict table is not on the first screen: ${JSON.stringify(r.verdicts)}`);
  }
}

async function checkPicker(page, path) {
  const radios = await page.$$('input[type=radio][name=a]');
  if (radios.length < 2) { fail(`${path}: fewer than two runs to pick`); return; }
  await page.check('table.runs tr:nth-child(3) input[name=a]');
  await page.check('table.runs tr:nth-child(2) input[name=b]');
  const a = await page.$eval('input[name=a]:checked', (e) => e.value), b = await page.$eval('input[name=b]:checked', (e) => e.value);
  await Promise.all([page.waitForNavigation({ timeout: 20000 }), page.click('input[type=submit][value="compare selected"]')]);
  const title = await page.title();
  title.includes(`Run ${a} vs run ${b}`) ? pass(`${path}: "compare selected" with A=${a}, B=${b} opens their comparison`)
                                        : fail(`${path}: "compare selected" led to "${title}" (${page.url()})`);
}

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
    const name = spec.slice(0, eq);
    const [path, min, kindArg, maxArg] = spec.slice(eq + 1).split('|');
    const minSvgs = Number(min || 0), kind = kindArg || 'plain', maxh = Number(maxArg || 0);
    const context = await browser.newContext({ viewport: { width: W, height: H }, javaScriptEnabled: false });
    const page = await context.newPage();
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(`console ${m.type()}: ${m.text()}`); });
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
    const resp = await page.goto(base + path, { waitUntil: 'load', timeout: 20000 });
    resp && resp.status() === 200 ? pass(`${path}: HTTP 200 with JavaScript off`) : fail(`${path}: HTTP ${resp ? resp.status() : 'none'}`);
    const svgs = await page.$$eval('figure.chart svg', (l) => l.map((s) => { const b = s.getBoundingClientRect(); return [b.width, b.height]; }));
    const drawn = svgs.filter(([w, h]) => w > 100 && h > 100).length;
    drawn >= minSvgs ? pass(`${path}: ${drawn} SVG charts rendered with a size (>= ${minSvgs})`)
                     : fail(`${path}: ${drawn} SVG charts rendered, want >= ${minSvgs}`);
    const captions = await page.$$eval('figure.chart figcaption', (l) => l.filter((c) => c.textContent.trim().length > 20).length);
    captions === svgs.length ? pass(`${path}: every chart has a caption (${captions})`)
                             : fail(`${path}: ${svgs.length} charts but ${captions} captions`);
    const scripts = await page.$$eval('script', (l) => l.length);
    scripts === 0 ? pass(`${path}: no <script> element (hostile strings stayed text)`) : fail(`${path}: ${scripts} <script> elements`);
    await checkFirstScreen(page, path, kind);
    checkCharts(path, await page.evaluate(chartLabels));
    const size = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, iw: window.innerWidth, h: document.documentElement.scrollHeight }));
    size.sw <= size.iw ? pass(`${path}: no horizontal scroll at ${W} px (content ${size.sw} px wide)`)
                       : fail(`${path}: horizontal scroll at ${W} px: content ${size.sw} px wide`);
    info(`${path}: page height ${size.h} px at ${W} px wide`);
    if (maxh > 0)
      size.h <= maxh ? pass(`${path}: ${size.h} px tall, within ${maxh} px`) : fail(`${path}: ${size.h} px tall, over ${maxh} px`);
    await page.screenshot({ path: `${artifacts}/${name}.png`, fullPage: true });
    await page.screenshot({ path: `${artifacts}/${name}-first-screen.png` });
    pass(`${path}: screenshots ${artifacts}/${name}.png and ${name}-first-screen.png`);
    await checkLinks(page, context, path);
    errors.length === 0 ? pass(`${path}: no console errors, page errors or failed requests`)
                        : fail(`${path}: ${errors.join(' | ')}`);
    if (kind === 'runs') await checkPicker(page, path);
    await context.close();
  }
} catch (e) {
  fail(`browser session: ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
