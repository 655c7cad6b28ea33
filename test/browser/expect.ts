// What a cell must show for a value from the API: the rounding rules of the dashboard, written
// out here again so a test fails when a page rounds differently or shows another number.
import type { Locator } from 'playwright-core';
import { expect } from 'vitest';

const DASH = '–';
export const sn = (v: number | null | undefined) => (v === null || v === undefined ? DASH : v.toFixed(4));
export const s3 = (v: number | null | undefined) => (v === null || v === undefined ? DASH : v.toFixed(3));
export const pct = (v: number | null | undefined) =>
  v === null || v === undefined ? DASH : `${(v * 100).toFixed(1)}%`;

/** A cell shows `text` and, when `exact` is given, keeps the exact value in its title. */
export async function expectCell(cell: Locator, text: string, exact?: number | null) {
  expect((await cell.innerText()).trim()).toBe(text);
  if (exact !== undefined) expect(await cell.getAttribute('title')).toBe(exact === null ? 'none' : String(exact));
}

/** The row of a table whose data-key is `key`. */
export const row = (table: Locator, key: string) => table.locator(`tbody tr[data-key="${key}"]`);
