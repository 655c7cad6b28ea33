// The list of competitions.
import { api, read } from '../api.js';
import { Loading } from '../components/Status.js';
import { count, pct, STAGE_LABEL } from '../format.js';
import { href } from '../router.js';
import { useData } from '../useData.js';

export function Competitions() {
  const state = useData(() => read(api.GET('/v1/competitions')), []);
  return (
    <>
      <h1 tabIndex={-1}>Competitions</h1>
      <Loading state={state}>
        {({ competitions }) =>
          competitions.length === 0 ? (
            <p>
              No competition yet. An operator creates one with <code>PUT /v1/competitions/&#123;id&#125;</code>.
            </p>
          ) : (
            <div class="table-wrap">
              <table id="competitions">
                <caption>Every competition on this server</caption>
                <thead>
                  <tr>
                    <th scope="col">Competition</th>
                    <th scope="col">Final stages</th>
                    <th scope="col" class="num">
                      Tasks
                    </th>
                    <th scope="col" class="num">
                      Miners
                    </th>
                    <th scope="col" class="num">
                      Runs
                    </th>
                    <th scope="col" class="num">
                      Baseline resolve rate
                    </th>
                    <th scope="col" class="num">
                      Burn
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {competitions.map((c) => (
                    <tr key={c.id}>
                      <th scope="row">
                        <a href={href(['c', c.id])}>{c.name}</a> <span class="hint">{c.id}</span>
                      </th>
                      <td>{c.finalStages.map((s) => STAGE_LABEL[s]).join(', ')}</td>
                      <td class="num">{count(c.counts.tasks)}</td>
                      <td class="num">{count(c.counts.miners)}</td>
                      <td class="num">{count(c.counts.runs)}</td>
                      <td class="num" title={String(c.baseline.resolveRate)}>
                        {pct(c.baseline.resolveRate)}
                      </td>
                      <td class="num" title={String(c.burnRatio)}>
                        {pct(c.burnRatio)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loading>
    </>
  );
}
