// The weights on chain, by uid (SPEC 11): what a validator sets with `set_weights`, each uid with
// its hotkey from the metagraph, its float and its 16-bit integer; then the miners whose weight is
// burned for want of a registration, and the registered hotkeys with no run yet. Hidden when the
// competition has no metagraph.
import type { chainWeights } from '../optionalApi.js';
import { exact, pct } from '../format.js';

type Data = NonNullable<Awaited<ReturnType<typeof chainWeights>>>;

export function ChainWeights({ data: { chain, metagraph } }: { data: Data }) {
  const hotkeyOf = new Map(metagraph.neurons.map((n) => [n.uid, n.hotkey]));
  const integer = new Map(chain.uids.map((uid, i) => [uid, chain.weights[i]!]));
  const uids = Object.keys(chain.floats).map(Number);
  const hotkeys = (list: { hotkey: string }[]) => list.map((u) => u.hotkey).join(', ');
  return (
    <section aria-labelledby="chain-title">
      <h2 id="chain-title">On chain, by uid</h2>
      <p class="summary">
        Subnet {chain.netuid} at block {chain.block} · version key {chain.versionKey} · burned to uid {chain.burnUid}
        {chain.limits
          ? ` · limits ${chain.limits.maxWeightLimitMet === false || chain.limits.minAllowedWeightsMet === false ? 'NOT met' : 'met'}`
          : ''}
      </p>
      <div class="table-wrap">
        <table id="weights-chain">
          <caption>What a validator sets: each uid’s float weight and its 16-bit integer (0 is left out)</caption>
          <thead>
            <tr>
              <th scope="col" class="num">
                UID
              </th>
              <th scope="col">Hotkey</th>
              <th scope="col" class="num">
                Weight
              </th>
              <th scope="col" class="num">
                u16
              </th>
            </tr>
          </thead>
          <tbody>
            {uids.map((uid) => (
              <tr key={uid} data-key={uid}>
                <td class="num">{uid}</td>
                <th scope="row">
                  <span class="hotkey">{hotkeyOf.get(uid) ?? 'not registered'}</span>
                  {uid === chain.burnUid ? <span class="hint"> (burn)</span> : null}
                </th>
                <td class="num" title={exact(chain.floats[uid])}>
                  {pct(chain.floats[uid])}
                </td>
                <td class="num">{integer.get(uid) ?? 0}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {chain.unregistered.length > 0 ? (
        <p class="hint">Not registered, weight burned: {hotkeys(chain.unregistered)}</p>
      ) : null}
      {chain.awaitingRuns.length > 0 ? <p class="hint">Registered, no run yet: {hotkeys(chain.awaitingRuns)}</p> : null}
    </section>
  );
}
