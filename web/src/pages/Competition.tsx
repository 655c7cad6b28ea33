// The competition page: the leaderboard, sortable and searchable by hotkey (both kept in the
// URL), with the S_N distribution and weight by rank beside it.
import { useMemo } from 'preact/hooks';
import { api, read, stagesQuery } from '../api.js';
import { EmptyStage } from '../components/EmptyStage.js';
import { SearchBox } from '../components/SearchBox.js';
import { SortableTable, type Dir } from '../components/SortableTable.js';
import { Loading } from '../components/Status.js';
import { count, counted, pct } from '../format.js';
import { links, type PageProps } from '../links.js';
import { stagesEmpty } from '../optionalApi.js';
import { replaceQuery } from '../router.js';
import { useData } from '../useData.js';
import { CompetitionCharts } from './CompetitionCharts.js';
import { leaderboardColumns, sortCaption } from './leaderboardColumns.js';

export function Competition({ id, competition, stages, query, tick }: PageProps) {
  const state = useData(async () => {
    const board = await read(
      api.GET('/v1/competitions/{competitionId}/leaderboard', {
        params: { path: { competitionId: id }, query: stagesQuery(stages) },
      }),
    );
    // Only a board with no ranked miner can be a stage set without tasks: then ask.
    const empty = board.miners.every((m) => m.rank === null) ? await stagesEmpty(id, stages?.join(',')) : false;
    return { board, empty };
  }, [id, stages?.join(','), tick]);
  const search = query.get('q') ?? '';
  const sort = query.get('sort') ?? 'rank';
  const dir: Dir = query.get('dir') === 'desc' ? 'desc' : 'asc';
  const to = links(id, stages);
  const board = state.data?.board;
  const needle = search.trim().toLowerCase();
  const columns = useMemo(() => (board ? leaderboardColumns(board.miners, to.miner) : []), [board, stages?.join(',')]);
  const rows = useMemo(
    () =>
      board && needle ? board.miners.filter((m) => m.hotkey.toLowerCase().includes(needle)) : (board?.miners ?? []),
    [board, needle],
  );
  // The table and charts are the page's weight: built again only when what they show changes,
  // not when the shell re-renders around them (live status, the competition's settings arriving).
  const table = useMemo(
    () => (
      <SortableTable
        id="leaderboard"
        caption={sortCaption(columns, sort, dir)}
        columns={columns}
        rows={rows}
        rowKey={(m) => m.hotkey}
        sort={sort}
        dir={dir}
        rowClass={(m) => (m.excluded ? 'excluded' : m.rank === null ? 'unranked' : '')}
        onSort={(key, d) =>
          replaceQuery({ sort: key === 'rank' ? null : key, dir: key === 'rank' && d === 'asc' ? null : d })
        }
      />
    ),
    [columns, rows, sort, dir],
  );
  const burnRatio = competition?.burnRatio ?? null;
  const charts = useMemo(
    () => (board ? <CompetitionCharts miners={board.miners} burnRatio={burnRatio} /> : null),
    [board, burnRatio],
  );
  return (
    <>
      <h1 tabIndex={-1}>{competition?.name ?? id}: leaderboard</h1>
      <Loading state={state}>
        {({ board, empty }) => {
          if (empty) return <EmptyStage stages={board.stages} />;
          const ranked = board.miners.filter((m) => m.rank !== null).length;
          const excluded = board.miners.filter((m) => m.excluded).length;
          return (
            <>
              <p class="summary">
                {counted(ranked, 'ranked miner')}
                {excluded ? `, ${count(excluded)} excluded` : ''} · baseline resolve rate{' '}
                <span title={String(board.baseline.resolveRate)}>{pct(board.baseline.resolveRate)}</span> (
                {count(board.baseline.resolved)} of {counted(board.baseline.runs, 'run')})
                {burnRatio === null ? '' : ` · burn ${pct(burnRatio)}`}
              </p>
              <div class="toolbar">
                <SearchBox
                  id="hotkey-search"
                  label="Search hotkeys"
                  value={search}
                  onInput={(v) => replaceQuery({ q: v || null })}
                />
                <p class="hint" role="status">
                  {needle ? `${count(rows.length)} of ${counted(board.miners.length, 'miner')} match` : ''}
                </p>
              </div>
              {table}
              {charts}
            </>
          );
        }}
      </Loading>
    </>
  );
}
