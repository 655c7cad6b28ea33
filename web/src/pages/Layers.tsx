// The complexity layers of the weights (SPEC 6): each element, its weight and its winners.
import type { Weights } from '../api.js';
import { counted, exact, pct, score } from '../format.js';

type Layer = Weights['layers'][number];

export const elementName = (subset: string[]) => subset.join(' + ');

export interface Won {
  name: string;
  elementWeight: number;
  winners: number;
}

/** The elements each hotkey won, largest layers first. */
export function wonBy(layers: Layer[]): Map<string, Won[]> {
  const out = new Map<string, Won[]>();
  for (const layer of layers)
    for (const e of layer.elements)
      for (const h of e.winners) {
        const list = out.get(h) ?? [];
        list.push({ name: elementName(e.subset), elementWeight: layer.elementWeight, winners: e.winners.length });
        out.set(h, list);
      }
  return out;
}

interface Props {
  layers: Layer[];
  rankOf: (hotkey: string) => number | null;
  minerHref: (hotkey: string) => string;
}

export function Layers({ layers, rankOf, minerHref }: Props) {
  return (
    <section aria-labelledby="layers-title">
      <h2 id="layers-title">Layers and elements</h2>
      {layers.map((layer) => (
        <div class="table-wrap" key={layer.subsetSize}>
          <table class="layer" data-subset-size={layer.subsetSize}>
            <caption>
              {layer.subsetSize === 1 ? 'Single groups' : `${layer.subsetSize} groups together`}: layer weight{' '}
              <span title={exact(layer.layerWeight)}>{pct(layer.layerWeight)}</span>,{' '}
              {counted(layer.elements.length, 'element')} of{' '}
              <span title={exact(layer.elementWeight)}>{pct(layer.elementWeight)}</span>
            </caption>
            <thead>
              <tr>
                <th scope="col">Element</th>
                <th scope="col">Winners (rank)</th>
                <th scope="col" class="num">
                  Winning score
                </th>
                <th
                  scope="col"
                  class="num"
                  title="Element weight split between tied winners, before normalization and burn"
                >
                  Raw share per winner
                </th>
              </tr>
            </thead>
            <tbody>
              {layer.elements.map((e) => (
                <tr key={elementName(e.subset)}>
                  <th scope="row">{elementName(e.subset)}</th>
                  <td>
                    {e.winners.length === 0 ? (
                      <span class="hint">nobody competed</span>
                    ) : (
                      e.winners.map((h) => (
                        <span key={h} class="winner">
                          <a class="hotkey" href={minerHref(h)}>
                            {h}
                          </a>{' '}
                          <span class="hint">(#{rankOf(h) ?? '–'})</span>
                        </span>
                      ))
                    )}
                  </td>
                  <td class="num" title={exact(e.winningScore)}>
                    {score(e.winningScore)}
                  </td>
                  <td class="num" title={exact(e.winners.length ? layer.elementWeight / e.winners.length : null)}>
                    {e.winners.length ? pct(layer.elementWeight / e.winners.length) : '–'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </section>
  );
}
