// Hrefs of a competition's pages, carrying its stage set along.
import type { Competition, Stage } from './api.js';
import { href } from './router.js';

export interface PageProps {
  id: string;
  /** null until its settings arrive: pages load their own data meanwhile. */
  competition: Competition | null;
  /** The chosen stage set; null means the competition's final stages. */
  stages: Stage[] | null;
  query: URLSearchParams;
  /** Goes up on every live update. */
  tick: number;
}

export function links(id: string, stages: Stage[] | null) {
  const q = { stages: stages?.join(',') };
  // Built once per page, not once per row: a leaderboard makes hundreds of these.
  const tail = href([], q).slice(2);
  const base = `#/c/${encodeURIComponent(id)}`;
  return {
    competition: href(['c', id], q),
    weights: href(['c', id, 'weights'], q),
    validators: href(['c', id, 'validators'], q),
    coverage: href(['c', id, 'coverage'], q),
    criteria: href(['c', id, 'criteria'], q),
    weightsHistory: href(['c', id, 'weights', 'history'], q),
    miner: (hotkey: string) => `${base}/miners/${encodeURIComponent(hotkey)}${tail}`,
    task: (taskId: string) => `${base}/tasks/${encodeURIComponent(taskId)}${tail}`,
  };
}
