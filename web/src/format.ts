// Numbers for people: rounded for reading, the exact value kept for a `title` tooltip.
export const DASH = '–';

const fixed = (digits: number) => (v: number | null | undefined) =>
  v === null || v === undefined ? DASH : v.toFixed(digits);

/** S_N and group scores: 4 decimals. */
export const score = fixed(4);
/** Task scores and r: 3 decimals. */
export const score3 = fixed(3);

/** A share (0..1) as a percentage; weights and rates. */
export function pct(v: number | null | undefined, digits = 1): string {
  if (v === null || v === undefined) return DASH;
  return `${(v * 100).toFixed(digits)}%`;
}

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
const whole = new Intl.NumberFormat('en');

/** Token counts: 1.2M, 340K. */
export const tokens = (v: number | null | undefined) => (v === null || v === undefined ? DASH : compact.format(v));
/** Counts: 12,345. */
export const count = (v: number | null | undefined) => (v === null || v === undefined ? DASH : whole.format(v));

/** The noun for `n` of it: `run` for 1, `runs` otherwise (`many` for an irregular plural). */
export const noun = (n: number, one: string, many = `${one}s`) => (n === 1 ? one : many);
/** A count and its noun: `1 ranked miner`, `1,024 runs`, `3 criteria`. */
export const counted = (n: number, one: string, many?: string) => `${count(n)} ${noun(n, one, many)}`;

/** The exact value, for a tooltip. */
export const exact = (v: number | null | undefined) => (v === null || v === undefined ? 'none' : String(v));

export const ZONE_LABEL: Record<string, string> = {
  penalty: 'penalty',
  maintain: 'maintain',
  bonus: 'bonus',
  excluded: 'excluded',
};
export const POOL_LABEL: Record<string, string> = { main: 'main', hard_boost: 'hard boost', excluded: 'excluded' };
export const STAGE_LABEL: Record<string, string> = {
  screener_1: 'screener 1',
  screener_2: 'screener 2',
  evaluation: 'evaluation',
};

/**
 * A miner's weight in a weights map (`rawWeights`, `finalWeights`: only miners with a weight are
 * keys), 0 when it has none. An own key only: a hotkey such as `constructor` or `toString` must
 * not read Object.prototype's function.
 */
export const weightOf = (weights: Readonly<Record<string, number>>, hotkey: string): number =>
  Object.hasOwn(weights, hotkey) ? (weights[hotkey] ?? 0) : 0;

/** An ISO 8601 UTC time to the second, for reading: `2026-12-04 22:43:25`. */
export const utc = (iso: string) => iso.replace('T', ' ').replace(/(\.\d+)?Z$/, '');
