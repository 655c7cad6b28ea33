// Progress per stage: planned, in and missing runs over each stage's pairs, one row a stage.
import type { Coverage } from '../api.js';
import { count, pct, STAGE_LABEL } from '../format.js';

export interface StageSummary {
  stage: string;
  summary: Coverage['summary'];
}

export function StageProgress({ rows }: { rows: StageSummary[] }) {
  return (
    // Wide on a narrow window, with nothing focusable in it: the box takes focus, so the keyboard
    // scrolls it too.
    <div class="table-wrap" tabIndex={0} role="region" aria-label="Progress per stage table">
      <table id="coverage-stages">
        <caption>Progress per stage: scored runs against the runs planned for every (task, miner) pair</caption>
        <thead>
          <tr>
            <th scope="col">Stage</th>
            <th scope="col" class="num">
              Pairs
            </th>
            <th scope="col" class="num">
              Planned runs
            </th>
            <th scope="col" class="num">
              Runs in
            </th>
            <th scope="col" class="num">
              Missing
            </th>
            <th scope="col">Progress</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ stage, summary: s }) => {
            const done = s.planned === 0 ? null : Math.min(1, s.have / s.planned);
            return (
              <tr key={stage} data-key={stage}>
                <th scope="row">{STAGE_LABEL[stage] ?? stage}</th>
                <td class="num">{count(s.pairs)}</td>
                <td class="num">{count(s.planned)}</td>
                <td class="num">{count(s.have)}</td>
                <td class="num">{count(s.missing)}</td>
                <td>
                  {done === null ? (
                    <span class="hint">no tasks in this stage</span>
                  ) : (
                    <>
                      <progress max={1} value={done} aria-label={`${STAGE_LABEL[stage] ?? stage} progress`} />{' '}
                      {s.complete ? 'complete' : pct(done)}
                    </>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
