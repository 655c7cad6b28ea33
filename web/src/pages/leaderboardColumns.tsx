// The leaderboard's columns: rank, hotkey, S_N, the group scores present, resolve rate, tasks,
// final weight. Rounded in the cell, exact in the tooltip.
import type { LeaderboardEntry } from '../api.js';
import type { Column } from '../components/SortableTable.js';
import { count, counted, exact, pct, score } from '../format.js';

type Group = 'short' | 'medium' | 'long';
const GROUPS: Group[] = ['short', 'medium', 'long'];

export function groupsPresent(miners: LeaderboardEntry[]): Group[] {
  return GROUPS.filter((g) => miners.some((m) => m.groupScores[g] !== undefined));
}

export function leaderboardColumns(
  miners: LeaderboardEntry[],
  minerHref: (h: string) => string,
): Column<LeaderboardEntry>[] {
  const groups = groupsPresent(miners);
  return [
    { key: 'rank', label: 'Rank', numeric: true, value: (m) => m.rank, cell: (m) => m.rank ?? '–' },
    {
      key: 'hotkey',
      label: 'Hotkey',
      rowHeader: true,
      value: (m) => m.hotkey,
      cell: (m) => (
        <>
          <a href={minerHref(m.hotkey)} class="hotkey">
            {m.hotkey}
          </a>
          {m.excluded ? <span class="badge excluded-badge">excluded</span> : null}
        </>
      ),
    },
    {
      key: 'sn',
      label: 'S_N',
      title: 'Normalized score S_N in [−1, 1]',
      numeric: true,
      value: (m) => m.normalizedScore,
      cell: (m) => score(m.normalizedScore),
      exact: (m) => exact(m.normalizedScore),
    },
    ...groups.map((g): Column<LeaderboardEntry> => ({
      key: g,
      label: g,
      title: `Group score over ${g} tasks`,
      numeric: true,
      value: (m) => m.groupScores[g],
      cell: (m) => score(m.groupScores[g]),
      exact: (m) => exact(m.groupScores[g]),
    })),
    {
      key: 'resolve',
      label: 'Resolve rate',
      numeric: true,
      value: (m) => m.resolveRate,
      cell: (m) => pct(m.resolveRate),
      exact: (m) => `${count(m.resolvedRuns)} of ${counted(m.runs, 'run')} resolved`,
    },
    {
      key: 'tasks',
      label: 'Tasks scored',
      title: 'Tasks in pools main + hard boost',
      numeric: true,
      value: (m) => m.taskCounts.main + m.taskCounts.hardBoost,
      cell: (m) => count(m.taskCounts.main + m.taskCounts.hardBoost),
      exact: (m) =>
        `main ${m.taskCounts.main}, hard boost ${m.taskCounts.hardBoost}, excluded ${m.taskCounts.excluded}`,
    },
    {
      key: 'weight',
      label: 'Final weight',
      numeric: true,
      value: (m) => m.incentive.finalWeight,
      cell: (m) => pct(m.incentive.finalWeight),
      exact: (m) => exact(m.incentive.finalWeight),
    },
  ];
}

/** The leaderboard's caption names the order the rows are in, whichever column sorts them. */
export function sortCaption(columns: Column<LeaderboardEntry>[], sort: string, dir: 'asc' | 'desc'): string {
  const col = columns.find((c) => c.key === sort);
  if (!col || col.key === 'rank')
    return dir === 'asc'
      ? 'Leaderboard: S_N descending; unranked and excluded miners (who take part in nothing) listed last'
      : 'Leaderboard: rank descending (S_N ascending); unranked and excluded miners listed last';
  const label = typeof col.label === 'string' ? col.label : col.key;
  return `Leaderboard: ${label} ${dir === 'asc' ? 'ascending' : 'descending'}; miners without a value listed last`;
}
