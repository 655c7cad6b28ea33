// The miner page's per-task table: x, y, n, threshold, T_B, T_A, r, zone, pool, score.
import type { MinerTaskScore } from '../api.js';
import type { Column } from '../components/SortableTable.js';
import { exact, POOL_LABEL, score3, STAGE_LABEL, tokens, ZONE_LABEL } from '../format.js';

const int = (key: 'x' | 'y' | 'n' | 'threshold', label: string, title: string): Column<MinerTaskScore> => ({
  key,
  label,
  title,
  numeric: true,
  value: (t) => t[key],
});

export function minerColumns(taskHref: (id: string) => string): Column<MinerTaskScore>[] {
  return [
    {
      key: 'task',
      label: 'Task',
      rowHeader: true,
      value: (t) => t.taskId,
      cell: (t) => (
        <a href={taskHref(t.taskId)} class="task-id">
          {t.taskId}
        </a>
      ),
    },
    { key: 'stage', label: 'Stage', value: (t) => t.stage, cell: (t) => STAGE_LABEL[t.stage] },
    { key: 'complexity', label: 'Group', value: (t) => t.complexity, cell: (t) => t.complexity ?? '–' },
    int('x', 'x', 'Resolved baseline runs'),
    int('y', 'y', 'Resolved miner runs'),
    int('n', 'n', 'Run count n'),
    int('threshold', 't', 'Penalty threshold t = floor(0.8x)'),
    {
      key: 'tb',
      label: 'T_B',
      title: 'Mean weighted tokens of resolved baseline runs',
      numeric: true,
      value: (t) => t.baselineTokens,
      cell: (t) => tokens(t.baselineTokens),
      exact: (t) => exact(t.baselineTokens),
    },
    {
      key: 'ta',
      label: 'T_A',
      title: "Mean weighted tokens of the miner's runs",
      numeric: true,
      value: (t) => t.minerTokens,
      cell: (t) => tokens(t.minerTokens),
      exact: (t) => exact(t.minerTokens),
    },
    {
      key: 'r',
      label: 'r',
      title: 'clamp(log2(T_B / T_A), −2, 2)',
      numeric: true,
      value: (t) => t.r,
      cell: (t) => score3(t.r),
      exact: (t) => exact(t.r),
    },
    {
      key: 'zone',
      label: 'Zone',
      value: (t) => t.zone,
      cell: (t) => <span class={`zone zone-${t.zone}`}>{ZONE_LABEL[t.zone]}</span>,
    },
    { key: 'pool', label: 'Pool', value: (t) => t.pool, cell: (t) => POOL_LABEL[t.pool] },
    {
      key: 'score',
      label: 'Score',
      title: 'Task score s in [−4, 3]',
      numeric: true,
      value: (t) => t.score,
      cell: (t) => score3(t.score),
      exact: (t) => exact(t.score),
    },
  ];
}
