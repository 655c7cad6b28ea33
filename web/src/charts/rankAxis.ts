// The x axis of a chart by leaderboard rank: ticks on whole ranks only (no 1.5), and half a rank
// of room each side so the first and last bars are drawn whole.
import type uPlot from 'uplot';

/** Whole-number tick steps uPlot may choose from. */
export const RANK_INCRS = [1, 2, 5, 10, 20, 50, 100, 200, 500];

/** The scale's range around ranks min..max; [0.5, 1.5] without data. */
export const rankRange = (min: number | null, max: number | null): uPlot.Range.MinMax =>
  min !== null && max !== null && Number.isFinite(min) && Number.isFinite(max) ? [min - 0.5, max + 0.5] : [0.5, 1.5];

/** Tick labels: a whole rank by its number, anything else blank. */
export const rankTicks = (splits: number[]): string[] =>
  splits.map((v) => (Number.isInteger(v) && v >= 1 ? String(v) : ''));
