// The stability report (SPEC 12): do the reworded criteria split the judge's votes less than the
// unchanged ones? A plot of the pooled met and split rates by kind of change, then the numbers
// for every run, the baseline's and each miner's.
import { api, read, stagesQuery, type StabilityReport } from '../api.js';
import { Loading } from '../components/Status.js';
import { changeLabel, RatePlot } from '../criteria/RatePlot.js';
import { count, counted, exact, pct } from '../format.js';
import { links, type PageProps } from '../links.js';
import { useData } from '../useData.js';

type Group = StabilityReport['groups'][number];
type Stats = Group['pooled'];

/** Verdicts, met rate and split rate of one party, with the counts they come from. */
function Cells({ s, who }: { s: Stats; who: string }) {
  return (
    <>
      <td class="num" data-col={`${who}-verdicts`}>
        {count(s.verdicts)}
      </td>
      <td class="num" data-col={`${who}-met`} title={exact(s.metRate)}>
        {pct(s.metRate)} <span class="muted">({count(s.met)})</span>
      </td>
      <td class="num" data-col={`${who}-split`} title={exact(s.splitRate)}>
        {pct(s.splitRate)} <span class="muted">({count(s.split)})</span>
      </td>
    </>
  );
}

const groupKey = (g: Group) => `${changeLabel(g.change)}/${g.polarity}`;

function GroupsTable({ groups }: { groups: Group[] }) {
  const heads = (who: string) => (
    <>
      <th scope="col" class="num">
        {who} verdicts
      </th>
      <th scope="col" class="num">
        {who} met rate (met)
      </th>
      <th scope="col" class="num">
        {who} split rate (split)
      </th>
    </>
  );
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label="Criteria by kind of change">
      <table id="criteria-report">
        <caption>By kind of change and polarity: every scored run (pooled), then the baseline's</caption>
        <thead>
          <tr>
            <th scope="col">Change</th>
            <th scope="col">Polarity</th>
            <th scope="col" class="num">
              Criteria
            </th>
            {heads('Pooled')}
            {heads('Baseline')}
          </tr>
        </thead>
        <tbody>
          {groups.map((g) => (
            <tr key={groupKey(g)} data-key={groupKey(g)}>
              <th scope="row">{changeLabel(g.change)}</th>
              <td>{g.polarity}</td>
              <td class="num" data-col="criteria">
                {count(g.criteria)}
              </td>
              <Cells s={g.pooled} who="pooled" />
              <Cells s={g.baseline} who="baseline" />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function MinersTable({ id, groups, miners }: { id: string; groups: Group[]; miners: string[] }) {
  const to = links(id, null);
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label="Criteria by miner">
      <table id="criteria-miners">
        <caption>Each miner's verdicts: met rate and split rate per kind of change and polarity</caption>
        <thead>
          <tr>
            <th scope="col">Miner</th>
            {groups.map((g) => (
              <th key={groupKey(g)} scope="col" class="num">
                {changeLabel(g.change)}, {g.polarity}: verdicts · met · split
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {miners.map((hotkey) => (
            <tr key={hotkey} data-key={hotkey}>
              <th scope="row">
                <a class="hotkey" href={to.miner(hotkey)}>
                  {hotkey}
                </a>
              </th>
              {groups.map((g) => {
                const s = g.miners[hotkey]!;
                return (
                  <td key={groupKey(g)} class="num" data-col={groupKey(g)}>
                    {count(s.verdicts)} · {pct(s.metRate)} · {pct(s.splitRate)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function CriteriaReport({ id, competition, stages, tick }: PageProps) {
  const state = useData(
    () =>
      read(
        api.GET('/v1/competitions/{competitionId}/criteria/report', {
          params: { path: { competitionId: id }, query: stagesQuery(stages) },
        }),
      ),
    [id, stages?.join(','), tick],
  );
  return (
    <>
      <h1 tabIndex={-1}>{competition?.name ?? id}: criteria stability</h1>
      <Loading state={state}>
        {(report) => {
          if (report.groups.length === 0)
            return (
              <p class="note" id="no-criteria" role="status">
                No QnA criteria in the chosen stages ({report.stages.join(', ')}): choose another stage set above.
              </p>
            );
          const miners = Object.keys(report.groups[0]!.miners);
          const verdicts = report.groups.reduce((n, g) => n + g.pooled.verdicts, 0);
          const criteria = report.groups.reduce((n, g) => n + g.criteria, 0);
          return (
            <>
              <p class="summary" id="criteria-summary">
                {counted(criteria, 'criterion', 'criteria')} · {counted(verdicts, 'verdict')} from the baseline and{' '}
                {counted(miners.length, 'miner')}. A verdict is one scored run's majority on one criterion; it is split
                when the judge's votes were not unanimous. Runs graded under an earlier judge configuration count
                nowhere.
              </p>
              {verdicts === 0 ? (
                <p class="note">No scored QnA run yet in these stages: the rates fill in as runs arrive.</p>
              ) : (
                <RatePlot groups={report.groups} />
              )}
              <GroupsTable groups={report.groups} />
              {miners.length > 0 ? <MinersTable id={id} groups={report.groups} miners={miners} /> : null}
            </>
          );
        }}
      </Loading>
    </>
  );
}
