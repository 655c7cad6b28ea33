// A miner's page: its scores, its per-task breakdown as a table and as plots, and its history
// over snapshots when the server keeps them.
import { useMemo } from 'preact/hooks';
import { api, read, stagesQuery } from '../api.js';
import { SortableTable, type Dir } from '../components/SortableTable.js';
import { Loading } from '../components/Status.js';
import { count, counted, exact, pct, score } from '../format.js';
import { links, type PageProps } from '../links.js';
import { replaceQuery } from '../router.js';
import { useData } from '../useData.js';
import { MinerCharts } from './MinerCharts.js';
import { MinerHistory } from './MinerHistory.js';
import { minerColumns } from './minerColumns.js';

export function Miner({ id, hotkey, stages, query, tick }: PageProps & { hotkey: string }) {
  const state = useData(
    () =>
      read(
        api.GET('/v1/competitions/{competitionId}/miners/{hotkey}', {
          params: { path: { competitionId: id, hotkey }, query: stagesQuery(stages) },
        }),
      ),
    [id, hotkey, stages?.join(','), tick],
  );
  const to = links(id, stages);
  const columns = useMemo(() => minerColumns(to.task), [id, stages?.join(',')]);
  const sort = query.get('sort') ?? 'task';
  const dir: Dir = query.get('dir') === 'desc' ? 'desc' : 'asc';
  const tasks = state.data?.tasks;
  const table = useMemo(
    () =>
      tasks && (
        <SortableTable
          id="miner-tasks"
          caption={`Per-task breakdown: ${counted(tasks.length, 'task')} run`}
          columns={columns}
          rows={tasks}
          rowKey={(t) => t.taskId}
          sort={sort}
          dir={dir}
          rowClass={(t) => `zone-row-${t.zone}`}
          onSort={(key, d) => replaceQuery({ sort: key, dir: d })}
        />
      ),
    [tasks, columns, sort, dir],
  );
  const charts = useMemo(() => tasks && <MinerCharts tasks={tasks} />, [tasks]);
  return (
    <>
      <h1 tabIndex={-1}>
        Miner <span class="hotkey">{hotkey}</span>
      </h1>
      <Loading state={state}>
        {(m) => (
          <>
            {m.excluded ? <p class="badge excluded-badge">Excluded by the operator: takes part in nothing.</p> : null}
            <dl class="facts" id="miner-facts">
              <div>
                <dt>Rank</dt>
                <dd>{m.rank ?? '–'}</dd>
              </div>
              <div>
                <dt>S_N</dt>
                <dd title={exact(m.normalizedScore)}>{score(m.normalizedScore)}</dd>
              </div>
              <div>
                <dt>S_M (main)</dt>
                <dd title={exact(m.mainScore)}>{score(m.mainScore)}</dd>
              </div>
              <div>
                <dt>B_H (hard boost)</dt>
                <dd title={exact(m.hardBoost)}>{score(m.hardBoost)}</dd>
              </div>
              {(['short', 'medium', 'long'] as const)
                .filter((g) => m.groupScores[g] !== undefined)
                .map((g) => (
                  <div key={g}>
                    <dt>{g}</dt>
                    <dd title={exact(m.groupScores[g])}>{score(m.groupScores[g])}</dd>
                  </div>
                ))}
              <div>
                <dt>Resolve rate</dt>
                <dd title={`${count(m.resolvedRuns)} of ${counted(m.runs, 'run')}`}>{pct(m.resolveRate)}</dd>
              </div>
              <div>
                <dt>Final weight</dt>
                <dd title={exact(m.incentive.finalWeight)}>{pct(m.incentive.finalWeight)}</dd>
              </div>
              <div>
                <dt>Tasks</dt>
                <dd
                  title={`main ${m.taskCounts.main}, hard boost ${m.taskCounts.hardBoost}, excluded ${m.taskCounts.excluded}`}
                >
                  {count(m.taskCounts.main)} main, {count(m.taskCounts.hardBoost)} hard, {count(m.taskCounts.excluded)}{' '}
                  excluded
                </dd>
              </div>
            </dl>
            {charts}
            <MinerHistory id={id} hotkey={hotkey} tick={tick} />
            {table}
          </>
        )}
      </Loading>
    </>
  );
}
