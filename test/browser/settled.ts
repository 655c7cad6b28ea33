// Waits for a dashboard page to have loaded what it loads: no request of the page in flight (the
// live /events stream aside, which stays open), and none started over two of Preact's effect
// turns after the last one ended, so a read that an answer's render starts (a table's rows after
// its competition, a chart's data after its page) is waited for too. It replaces playwright's
// `networkidle`, which waits for 500 ms of silence after the last request: about 25 s of the
// browser suite's 50 waits were that silence.
import type { Page } from 'playwright-core';

interface Requests {
  /** Requests sent and not yet finished or failed. */
  inFlight: number;
  /** Requests sent so far. */
  sent: number;
  /** Called when inFlight drops to 0. */
  onIdle: (() => void)[];
}

const watched = new WeakMap<Page, Requests>();

/** Counts the page's requests from now on (before its first navigation: browser.ts's page()). */
export async function watchRequests(page: Page): Promise<void> {
  const requests: Requests = { inFlight: 0, sent: 0, onIdle: [] };
  const live = (url: string) => /\/events$/.test(new URL(url).pathname);
  const ended = (url: string) => {
    if (live(url)) return;
    requests.inFlight--;
    if (requests.inFlight === 0) for (const f of requests.onIdle.splice(0)) f();
  };
  page.on('request', (r) => {
    if (live(r.url())) return;
    requests.inFlight++;
    requests.sent++;
  });
  page.on('requestfinished', (r) => ended(r.url()));
  page.on('requestfailed', (r) => ended(r.url()));
  // fetch() counted in the page as it is called: a read started in the turn just waited for is
  // seen here even before the browser reports its request.
  await page.addInitScript(() => {
    const w = window as unknown as { fetchesPending: number };
    w.fetchesPending = 0;
    const fetch = window.fetch.bind(window);
    window.fetch = (...args: Parameters<typeof window.fetch>) => {
      w.fetchesPending++;
      const settle = () => void w.fetchesPending--;
      const answer = fetch(...args);
      answer.then(settle, settle);
      return answer;
    };
  });
  watched.set(page, requests);
}

/** Resolves once `page` has no request in flight and starts none over two effect turns. */
export async function settled(page: Page): Promise<void> {
  const requests = watched.get(page);
  if (!requests) throw new Error('settled(page): the page was not made by browser.ts (no request watch)');
  for (;;) {
    if (requests.inFlight > 0) await new Promise<void>((resolve) => requests.onIdle.push(resolve));
    const sent = requests.sent;
    // Preact runs effects after the next frame (requestAnimationFrame, or 100 ms at the latest),
    // then in a task of their own: two such turns, and the fetches counted in the page.
    const pending = await page.evaluate(async () => {
      const turn = () =>
        new Promise<void>((resolve) => {
          let done = false;
          const next = () => {
            if (done) return;
            done = true;
            setTimeout(resolve);
          };
          setTimeout(next, 100);
          requestAnimationFrame(next);
        });
      await turn();
      await turn();
      return (window as unknown as { fetchesPending?: number }).fetchesPending ?? 0;
    });
    if (pending === 0 && requests.inFlight === 0 && requests.sent === sent) return;
  }
}
