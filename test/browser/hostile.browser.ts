// Hostile data, as a validator or an operator can write it (markup in names and rubric text, long
// unbroken hotkeys and task ids, bidi overrides, joiners and emoji, hotkeys naming Object.prototype's
// members) and hostile hash routes: the dashboard shows it all as text under its own CSP, stays
// usable, and says so when a route names nothing.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { useDashboard } from './dashboard.js';
import { settled } from './settled.js';

const XSS = `<img src=x onerror=alert(1)>"><svg onload=alert(2)>`;
const C = 'h';
const LONG_TASK = `T${'x'.repeat(127)}`;
const LONG_MINER = `M${'m'.repeat(127)}`;
const MINERS = [LONG_MINER, '__proto__', 'constructor', 'toString', 'javascript:x'];
const criterion = (i: number, title: string) => ({
  id: i.toString(16).padStart(32, '0'),
  title,
  type: 'positive',
  importance: 'must have',
  change: i === 1 ? 'stability' : null,
});

const ui = useDashboard({ seed: 'empty' });

/** Everything a page did that data could have made it do: dialogs, CSP refusals, console errors. */
async function watch(page: Page) {
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await page.addInitScript(() => {
    const w = window as unknown as { violations: string[] };
    w.violations = [];
    document.addEventListener('securitypolicyviolation', (e) => w.violations.push(e.violatedDirective));
  });
  return dialogs;
}

beforeAll(async () => {
  await ui.server.send('PUT', `/v1/competitions/${C}`, {
    name: `${XSS}👩‍👩‍👧‍👦${'W'.repeat(140)}`,
    burnRatio: 0.1,
    revealAnswers: true,
  });
  await ui.server.send('PUT', `/v1/competitions/${C}/tasks`, {
    tasks: [
      { id: LONG_TASK, type: 'swebench_verified', complexity: 'short' },
      { id: 'javascript:x', type: 'swebench_verified', complexity: 'long' },
      {
        id: 'q1',
        type: 'swe_atlas_qna',
        complexity: 'medium',
        qna: {
          prompt: `${XSS}\u202Eevil ${'P'.repeat(10_000)}`,
          referenceAnswer: XSS,
          repositoryUrl: 'a/b',
          repositoryBaseCommit: 'a'.repeat(40),
          language: 'python',
          category: `${XSS}\u202E${'C'.repeat(400)}`,
          dockerImage: XSS,
          rubric: [criterion(1, `${XSS}\u202Eabc`), criterion(2, 'R'.repeat(4000)), criterion(3, 'a\u200d👨‍💻 ok')],
        },
      },
    ],
  });
  const { apiKey } = await ui.server.send('POST', '/v1/validators', { name: `${XSS}${'V'.repeat(140)}` });
  const runs = [];
  let n = 0;
  for (const taskId of [LONG_TASK, 'javascript:x', 'q1'])
    for (const who of ['baseline', ...MINERS])
      for (let attempt = 0; attempt < 2; attempt++) {
        n++;
        const run: Record<string, unknown> = {
          runId: `r${n}`,
          taskId,
          kind: who === 'baseline' ? 'baseline' : 'miner',
          ...(who === 'baseline' ? {} : { minerHotkey: who }),
          tokens: { input: 1000 + n * 10, output: 100 },
        };
        if (taskId === 'q1')
          run.rubricVotes = [1, 2, 3].map((i) => ({
            criterionId: i.toString(16).padStart(32, '0'),
            votes: Array.from({ length: 5 }, (_, k) => ({
              verdict: (n + i) % 2 || k < 2 ? 'YES' : 'NO',
              reason: XSS,
              evidence: XSS,
            })),
          }));
        else run.resolved = n % 3 !== 0;
        runs.push(run);
      }
  const res = await fetch(`${ui.server.baseUrl}/v1/competitions/${C}/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ runs }),
  });
  expect(res.status).toBe(200);
  await ui.server.send('PUT', `/v1/competitions/${C}/miners/constructor`, { excluded: true, reason: XSS });
  await ui.server.send('POST', `/v1/competitions/${C}/snapshots`, { note: XSS });
});

const PAGES = [
  '',
  `#/c/${C}`,
  `#/c/${C}/miners/${LONG_MINER}`,
  `#/c/${C}/miners/__proto__`,
  `#/c/${C}/miners/constructor`,
  `#/c/${C}/tasks/q1`,
  `#/c/${C}/tasks/${LONG_TASK}`,
  `#/c/${C}/tasks/javascript:x`,
  `#/c/${C}/weights`,
  `#/c/${C}/weights/history`,
  `#/c/${C}/validators`,
  `#/c/${C}/coverage`,
  `#/c/${C}/criteria`,
];

describe('hostile data', () => {
  it('is text on every page: no element, dialog, CSP refusal, console error or NaN comes of it', async () => {
    const { page, errors } = await ui.browser.page();
    const dialogs = await watch(page);
    const index = await page.goto(`${ui.server.baseUrl}/`);
    const csp = index!.headers()['content-security-policy']!;
    expect(csp).toMatch(/script-src 'self';/);
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    for (const hash of PAGES) {
      await page.goto('about:blank');
      await page.goto(`${ui.server.baseUrl}/${hash}`);
      await page.locator('main h1').first().waitFor();
      await settled(page);
      const seen = await page.evaluate(() => ({
        injected: document.querySelectorAll('img[src="x"], [onload], [onerror]').length,
        links: [...document.querySelectorAll('a[href]')]
          .map((a) => a.getAttribute('href')!)
          .filter((h) => !h.startsWith('#') && !h.startsWith('/') && !h.startsWith('blob:')),
        violations: (window as unknown as { violations: string[] }).violations,
        nan: /\bNaN\b|Infinity/.test(document.body.innerText),
      }));
      expect(seen, hash).toEqual({ injected: 0, links: [], violations: [], nan: false });
      if (hash.endsWith('/tasks/q1')) expect(await page.locator('#criteria').innerText()).toContain(XSS);
    }
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('long unbroken names, hotkeys and task ids', () => {
  it('wrap: no page scrolls sideways (wide tables scroll in their own box), no cell spills into the next', async () => {
    const { page, errors } = await ui.browser.page();
    for (const hash of [...PAGES, `#/c/${'a'.repeat(5000)}`]) {
      await page.goto('about:blank');
      await page.goto(`${ui.server.baseUrl}/${hash}`);
      await page.locator('main h1').first().waitFor();
      await settled(page);
      const width = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      expect(width[0], hash.slice(0, 80)).toBeLessThanOrEqual(width[1]!);
    }
    await page.goto(`${ui.server.baseUrl}/#/c/${C}`);
    const cell = page.locator(`#leaderboard tbody tr[data-key="${LONG_MINER}"] th`);
    const [link, box] = await Promise.all([cell.locator('a.hotkey').boundingBox(), cell.boundingBox()]);
    expect(link!.x + link!.width).toBeLessThanOrEqual(box!.x + box!.width);
    // The 414 of the 5000-character id is a console error; nothing else is.
    expect(errors.filter((e) => !/status of 414/.test(e))).toEqual([]);
    await page.close();
  });
});

describe('bidi overrides in operator and validator text', () => {
  // A category and a rubric title may carry U+202E (names refuse it, these fields do not): each is
  // isolated (<bdi>) where a sentence inlines it, so it reorders nothing after it. (The prompt is a
  // paragraph of its own: its override ends with it.)
  it("reorder nothing around them: the category's ')' and a criterion's badge stay on its right", async () => {
    const { page, errors } = await ui.browser.page();
    await page.goto(`${ui.server.baseUrl}/#/c/${C}/tasks/q1`);
    await page.locator('#criteria tbody tr').first().waitFor();
    const seen = await page.evaluate(() => {
      /** The rects of the `n` characters of `node` from `start`. */
      const rects = (node: Node, start: number, n = 1) => {
        const r = document.createRange();
        r.setStart(node, start);
        r.setEnd(node, start + n);
        return [...r.getClientRects()];
      };
      /** The last text node under `root` whose text contains `needle`. */
      const textWith = (root: Element, needle: string) => {
        const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        let found: Node | null = null;
        for (let n = walk.nextNode(); n; n = walk.nextNode()) if (n.textContent!.includes(needle)) found = n;
        if (!found) throw new Error(`no text with ${needle}`);
        return found;
      };
      const isolated = (node: Node) => {
        const el = node.parentElement!;
        return el.textContent === node.textContent && getComputedStyle(el).unicodeBidi === 'isolate';
      };
      // The summary "Question (a/b, python, <category>)": the ')' ends the last line, right of the category.
      const summary = document.querySelector('.question summary')!;
      const category = textWith(summary, '\u202E');
      const close = textWith(summary, ')');
      const paren = rects(close, close.textContent!.lastIndexOf(')'))[0]!;
      const last = rects(category, category.textContent!.length - 1).at(-1)!;
      // The first criterion, '<markup>\u202Eabc', with its 'reworded: stability' badge after it.
      const cell = document.querySelector('#criteria tbody tr th')!;
      const title = textWith(cell, '\u202E');
      const c = rects(title, title.textContent!.length - 1).at(-1)!;
      const badge = cell.querySelector('.badge')!.getBoundingClientRect();
      return {
        categoryIsolated: isolated(category),
        titleIsolated: isolated(title),
        parenAfterCategory: Math.abs(paren.top - last.top) < 2 && paren.left >= last.right - 0.5,
        badgeAfterTitle: badge.left >= c.right - 0.5,
      };
    });
    expect(seen).toEqual({
      categoryIsolated: true,
      titleIsolated: true,
      parenAfterCategory: true,
      badgeAfterTitle: true,
    });
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('hostile hash routes', () => {
  /** Opens `hash` in a fresh document and returns the page's heading and text. */
  async function show(hash: string) {
    const { page, errors } = await ui.browser.page();
    const dialogs = await watch(page);
    const requests: string[] = [];
    page.on('request', (r) => requests.push(new URL(r.url()).pathname));
    await page.goto(`${ui.server.baseUrl}/${hash}`);
    await page.locator('main h1').first().waitFor({ timeout: 5000 });
    await settled(page);
    const seen = {
      h1: await page.locator('main h1').first().innerText(),
      main: await page.locator('main').innerText(),
      injected: await page.locator('img[src="x"], [onload], [onerror]').count(),
      dialogs,
      errors,
      requests,
    };
    await page.close();
    return seen;
  }

  it.each(['#/c/%', `#/c/${C}/miners/%E0%A4%A`, `#/c/${C}/tasks/a%ZZ`])(
    'a malformed percent-escape (%s) is a page not found, not a blank page',
    async (hash) => {
      const seen = await show(hash);
      expect(seen.h1).toBe('Page not found');
      expect(seen.errors).toEqual([]);
    },
  );

  // The server refuses '.' and '..' as ids because clients resolve them away: GET
  // /v1/competitions/../validators is GET /v1/validators, which the read token then goes to.
  it.each(['#/c/..', '#/c/%2E%2E/validators', '#/c/./weights', `#/c/${C}/tasks/..`, `#/c/${C}/miners/%2E`])(
    "a '.' or '..' segment (%s) is a page not found, and asks the API for nothing",
    async (hash) => {
      const seen = await show(hash);
      expect(seen.h1).toBe('Page not found');
      expect(seen.requests.filter((p) => p.startsWith('/v1/'))).toEqual([]);
      expect(seen.errors).toEqual([]);
    },
  );

  it.each([
    ['#/c/nope', 'Competition nope'],
    ['#/c/%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E', 'Competition <img src=x onerror=alert(1)>'],
    [`#/c/${C}/tasks/%3Csvg%20onload%3Dalert(1)%3E`, 'Task <svg onload=alert(1)>'],
  ])('%s names what was asked for as text and says why there is nothing', async (hash, h1) => {
    const seen = await show(hash);
    expect(seen.h1).toBe(h1);
    expect(seen.main).toMatch(/Not found \(HTTP 404\): competition nope does not exist|HTTP 400/);
    expect(seen.injected).toBe(0);
    expect(seen.dialogs).toEqual([]);
    // The browser logs the API's 404 or 400 itself; the app throws nothing.
    expect(seen.errors.filter((e) => !/status of 40[04]/.test(e))).toEqual([]);
  });
});
