// Final weights across snapshots: every page of `GET …/weights/history`, and the miners worth a
// line of their own.
import { api, read, type WeightsHistory } from './api.js';

export type HistoryEntry = WeightsHistory['history'][number];

/** Every snapshot's weights, oldest first, following `nextCursor` to the end. */
export async function loadWeightsHistory(id: string): Promise<HistoryEntry[]> {
  const path = { competitionId: id };
  const history: HistoryEntry[] = [];
  let cursor: string | null | undefined;
  do {
    const page = await read(
      api.GET('/v1/competitions/{competitionId}/weights/history', {
        params: { path, query: { limit: 1000, ...(cursor ? { cursor } : {}) } },
      }),
    );
    history.push(...page.history);
    cursor = page.nextCursor;
  } while (cursor);
  return history;
}

/** The `n` hotkeys with the largest final weight in any snapshot, largest first, then by hotkey. */
export function topMiners(history: HistoryEntry[], n: number): string[] {
  const best = new Map<string, number>();
  for (const h of history)
    for (const [hotkey, w] of Object.entries(h.finalWeights))
      if (w > 0 && w > (best.get(hotkey) ?? 0)) best.set(hotkey, w);
  return [...best.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, n)
    .map(([hotkey]) => hotkey);
}
