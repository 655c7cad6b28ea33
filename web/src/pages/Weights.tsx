// The weights page: who is paid and why. The ranked list names beside each miner the elements it
// won, so "rank 3 gets 0, rank 4 gets 32%" reads at a glance; the layers below list every
// element with its winners, and the weights on chain by uid when a metagraph is recorded.
import { api, read, stagesQuery } from '../api.js';
import { EmptyStage } from '../components/EmptyStage.js';
import { Loading } from '../components/Status.js';
import { counted, exact, pct, score, weightOf } from '../format.js';
import { links, type PageProps } from '../links.js';
import { chainWeights, stagesEmpty } from '../optionalApi.js';
import { useData } from '../useData.js';
import { ChainWeights } from './ChainWeights.js';
import { Layers, wonBy } from './Layers.js';

export function Weights({ id, competition, stages, tick }: PageProps) {
  const state = useData(async () => {
    const q = { params: { path: { competitionId: id }, query: stagesQuery(stages) } };
    const [weights, board, chain] = await Promise.all([
      read(api.GET('/v1/competitions/{competitionId}/weights', q)),
      read(api.GET('/v1/competitions/{competitionId}/leaderboard', q)),
      chainWeights(id, stages?.join(',')),
    ]);
    // Only a board with no ranked miner can be a stage set without tasks: then ask.
    const empty = board.miners.every((m) => m.rank === null) ? await stagesEmpty(id, stages?.join(',')) : false;
    return { weights, board, chain, empty };
  }, [id, stages?.join(','), tick]);
  const to = links(id, stages);
  return (
    <>
      <h1 tabIndex={-1}>{competition?.name ?? id}: weights</h1>
      <Loading state={state}>
        {({ weights: w, board, chain, empty }) => {
          if (empty) return <EmptyStage stages={board.stages} />;
          const won = wonBy(w.layers);
          const ranked = board.miners.filter((m) => !m.excluded && m.rank !== null);
          return (
            <>
              <p class="summary">
                Groups contested: {w.groups.length ? w.groups.join(', ') : 'none (one overall element)'} · burn ratio{' '}
                <span title={exact(w.burnRatio)}>{pct(w.burnRatio)}</span> · burned weight{' '}
                <span title={exact(w.burnWeight)}>{pct(w.burnWeight)}</span>
              </p>
              <div class="table-wrap">
                <table id="weights-ranked">
                  <caption>
                    Final weights by rank, with the elements each miner won (a tied element is split between its
                    winners)
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col" class="num">
                        Rank
                      </th>
                      <th scope="col">Hotkey</th>
                      <th scope="col" class="num">
                        S_N
                      </th>
                      <th scope="col">Elements won</th>
                      <th scope="col" class="num" title="W(m): sum of the element shares won">
                        Raw weight
                      </th>
                      <th scope="col">Final weight</th>
                    </tr>
                  </thead>
                  <tbody>
                    {ranked.map((m) => {
                      const fw = weightOf(w.finalWeights, m.hotkey);
                      const mine = won.get(m.hotkey) ?? [];
                      return (
                        <tr key={m.hotkey} data-key={m.hotkey} class={fw > 0 ? 'paid' : 'unpaid'}>
                          <td class="num">{m.rank}</td>
                          <th scope="row">
                            <a class="hotkey" href={to.miner(m.hotkey)}>
                              {m.hotkey}
                            </a>
                          </th>
                          <td class="num" title={exact(m.normalizedScore)}>
                            {score(m.normalizedScore)}
                          </td>
                          <td>
                            {mine.length === 0 ? (
                              <span class="hint">none</span>
                            ) : (
                              mine.map((e) => (
                                <span
                                  key={e.name}
                                  class="chip"
                                  title={`element weight ${exact(e.elementWeight)}, ${counted(e.winners, 'winner')}`}
                                >
                                  {e.name}
                                  {e.winners > 1 ? ` (1/${e.winners})` : ''}
                                </span>
                              ))
                            )}
                          </td>
                          <td class="num" title={exact(weightOf(w.rawWeights, m.hotkey))}>
                            {pct(weightOf(w.rawWeights, m.hotkey))}
                          </td>
                          <td data-col="weight" title={exact(fw)}>
                            <span class="bar-cell">
                              <span class="bar bar-weight" aria-hidden="true">
                                <span style={{ width: `${fw * 100}%` }} />
                              </span>
                              <span class="num">{pct(fw)}</span>
                            </span>
                          </td>
                        </tr>
                      );
                    })}
                  </tbody>
                  <tfoot>
                    <tr class="burn">
                      <td />
                      <th scope="row">burned</th>
                      <td />
                      <td />
                      <td />
                      <td title={exact(w.burnWeight)}>
                        <span class="bar-cell">
                          <span class="bar bar-burn" aria-hidden="true">
                            <span style={{ width: `${w.burnWeight * 100}%` }} />
                          </span>
                          <span class="num">{pct(w.burnWeight)}</span>
                        </span>
                      </td>
                    </tr>
                  </tfoot>
                </table>
              </div>
              {chain ? <ChainWeights data={chain} /> : null}
              <Layers
                layers={w.layers}
                rankOf={(h) => board.miners.find((m) => m.hotkey === h)?.rank ?? null}
                minerHref={to.miner}
              />
            </>
          );
        }}
      </Loading>
    </>
  );
}
