// A task: its baseline summary and every miner's result on it; for a QnA task the question and
// how each rubric criterion fares.
import { useMemo } from 'preact/hooks';
import { api, read, stagesQuery, type TaskDetail } from '../api.js';
import { SortableTable, type Column, type Dir } from '../components/SortableTable.js';
import { Loading } from '../components/Status.js';
import { count, exact, pct, POOL_LABEL, score3, STAGE_LABEL, tokens, ZONE_LABEL } from '../format.js';
import { links, type PageProps } from '../links.js';
import { replaceQuery } from '../router.js';
import { useData } from '../useData.js';
import { Criteria } from './Criteria.js';

type Row = TaskDetail['miners'][number];

function columns(minerHref: (h: string) => string): Column<Row>[] {
  return [
    {
      key: 'hotkey',
      label: 'Miner',
      rowHeader: true,
      value: (m) => m.hotkey,
      cell: (m) => (
        <a href={minerHref(m.hotkey)} class="hotkey">
          {m.hotkey}
        </a>
      ),
    },
    { key: 'runs', label: 'Runs', numeric: true, value: (m) => m.runs },
    { key: 'y', label: 'y', title: 'Resolved miner runs', numeric: true, value: (m) => m.y },
    {
      key: 'ta',
      label: 'T_A',
      title: "Mean weighted tokens of the miner's runs",
      numeric: true,
      value: (m) => m.minerTokens,
      cell: (m) => tokens(m.minerTokens),
      exact: (m) => exact(m.minerTokens),
    },
    { key: 'r', label: 'r', numeric: true, value: (m) => m.r, cell: (m) => score3(m.r), exact: (m) => exact(m.r) },
    {
      key: 'zone',
      label: 'Zone',
      value: (m) => m.zone,
      cell: (m) => <span class={`zone zone-${m.zone}`}>{ZONE_LABEL[m.zone]}</span>,
    },
    { key: 'pool', label: 'Pool', value: (m) => m.pool, cell: (m) => POOL_LABEL[m.pool] },
    {
      key: 'score',
      label: 'Score',
      numeric: true,
      value: (m) => m.score,
      cell: (m) => score3(m.score),
      exact: (m) => exact(m.score),
    },
  ];
}

export function Task({ id, taskId, stages, query, tick }: PageProps & { taskId: string }) {
  const state = useData(
    () =>
      read(
        api.GET('/v1/competitions/{competitionId}/tasks/{taskId}', {
          params: { path: { competitionId: id, taskId }, query: stagesQuery(stages) },
        }),
      ),
    [id, taskId, stages?.join(','), tick],
  );
  const to = links(id, stages);
  const cols = useMemo(() => columns(to.miner), [id, stages?.join(',')]);
  const sort = query.get('sort') ?? 'score';
  const dir: Dir = query.get('dir') === 'asc' ? 'asc' : 'desc';
  return (
    <>
      <h1 tabIndex={-1}>
        Task <span class="task-id">{taskId}</span>
      </h1>
      <Loading state={state}>
        {(t) => (
          <>
            <dl class="facts" id="task-facts">
              <div>
                <dt>Type</dt>
                <dd>{t.type === 'swe_atlas_qna' ? 'SWE-Atlas QnA' : 'SWE-bench Verified'}</dd>
              </div>
              <div>
                <dt>Stage</dt>
                <dd>{STAGE_LABEL[t.stage]}</dd>
              </div>
              <div>
                <dt>Group</dt>
                <dd>{t.complexity ?? '–'}</dd>
              </div>
              <div>
                <dt>Baseline runs</dt>
                <dd>{count(t.baseline.runs)}</dd>
              </div>
              <div>
                <dt>x (resolved)</dt>
                <dd>{count(t.baseline.resolved)}</dd>
              </div>
              <div>
                <dt>Baseline resolve rate</dt>
                <dd title={exact(t.baseline.resolveRate)}>{pct(t.baseline.resolveRate)}</dd>
              </div>
              <div>
                <dt>T_B</dt>
                <dd title={exact(t.baseline.baselineTokens)}>{tokens(t.baseline.baselineTokens)}</dd>
              </div>
              <div>
                <dt>Planned runs</dt>
                <dd>{t.plannedRuns ?? '–'}</dd>
              </div>
            </dl>
            {!t.inStages ? (
              <p class="note">This task is not in the chosen stages: no miner is scored on it here.</p>
            ) : null}
            {t.qna ? (
              <details class="question" open>
                <summary>
                  {/* The category is free text (it may hold U+202E): isolated, it cannot reorder the ')'. */}
                  Question ({t.qna.repositoryUrl}, {t.qna.language}, <bdi>{t.qna.category}</bdi>)
                </summary>
                {/* A long prompt scrolls in its box (max-height): focusable, so the keyboard scrolls it too. */}
                <p class="prompt" tabIndex={0} role="region" aria-label="Question prompt">
                  {t.qna.prompt}
                </p>
              </details>
            ) : null}
            {t.criteria ? <Criteria criteria={t.criteria} /> : null}
            <SortableTable
              id="task-miners"
              caption={`Every miner's result on this task (${t.miners.length})`}
              columns={cols}
              rows={t.miners}
              rowKey={(m) => m.hotkey}
              sort={sort}
              dir={dir}
              onSort={(key, d) => replaceQuery({ sort: key, dir: d })}
            />
          </>
        )}
      </Loading>
    </>
  );
}
