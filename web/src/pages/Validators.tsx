// Per-validator agreement (SPEC 10), when the server has the route (API 1.1), with each one's last
// heartbeat and version; a silent validator is marked in words, not colour alone.
import { Loading } from '../components/Status.js';
import { count, exact, pct, utc } from '../format.js';
import type { PageProps } from '../links.js';
import { validatorAgreement } from '../optionalApi.js';
import { useData } from '../useData.js';

export function Validators({ id, competition, stages, tick }: PageProps) {
  const state = useData(() => validatorAgreement(id, stages?.join(',')), [id, stages?.join(','), tick]);
  return (
    <>
      <h1 tabIndex={-1}>{competition?.name ?? id}: validators</h1>
      <Loading state={state}>
        {(rows) =>
          rows === null ? (
            <p class="note">
              This server does not report validator agreement (no <code>/validators</code> route).
            </p>
          ) : (
            // Wide enough to scroll on a narrow window: focusable, so the keyboard scrolls it too.
            <div class="table-wrap" tabIndex={0} role="region" aria-label="Validators table">
              <table id="validators">
                <caption>
                  Validators: how each one's resolve rates compare with the others' on the same (task, miner) pairs;
                  flagged at 10 or more shared pairs and a difference of 20 points or more
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Validator</th>
                    <th scope="col">Last seen (UTC)</th>
                    <th scope="col">Version</th>
                    <th scope="col">Status</th>
                    <th scope="col" class="num">
                      Runs
                    </th>
                    <th scope="col" class="num">
                      Baseline runs
                    </th>
                    <th scope="col" class="num">
                      Miner runs
                    </th>
                    <th scope="col" class="num">
                      Miners
                    </th>
                    <th scope="col" class="num">
                      Tasks
                    </th>
                    <th scope="col" class="num">
                      Resolve rate
                    </th>
                    <th scope="col" class="num">
                      Shared pairs
                    </th>
                    <th scope="col" class="num">
                      Resolve-rate difference
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((v) => (
                    <tr
                      key={v.id}
                      data-key={v.id}
                      class={
                        [v.agreement.flagged ? 'flagged' : '', v.silent ? 'silent' : ''].join(' ').trim() || undefined
                      }
                    >
                      <th scope="row">
                        {v.name} <span class="hint">{v.hotkey ?? v.id}</span>
                      </th>
                      <td data-col="lastSeen" title={v.lastSeen ?? 'never'}>
                        {v.lastSeen ? utc(v.lastSeen) : 'never'}
                      </td>
                      <td data-col="version">{v.version ?? '–'}</td>
                      <td data-col="status">
                        {[
                          v.silent ? 'silent' : null,
                          v.excluded ? 'excluded' : null,
                          v.agreement.flagged ? 'flagged' : null,
                        ]
                          .filter(Boolean)
                          .join(', ') || 'ok'}
                      </td>
                      <td class="num">{count(v.runs)}</td>
                      <td class="num">{count(v.baselineRuns)}</td>
                      <td class="num">{count(v.minerRuns)}</td>
                      <td class="num">{count(v.miners)}</td>
                      <td class="num">{count(v.tasks)}</td>
                      <td class="num" title={exact(v.resolveRate)}>
                        {pct(v.resolveRate)}
                      </td>
                      <td class="num">{count(v.agreement.sharedPairs)}</td>
                      <td class="num" title={exact(v.agreement.resolveRateDelta)}>
                        {v.agreement.resolveRateDelta === null
                          ? '–'
                          : `${v.agreement.resolveRateDelta > 0 ? '+' : ''}${(v.agreement.resolveRateDelta * 100).toFixed(1)} pts`}
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
