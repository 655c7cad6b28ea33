// Chooses the stage set of every score read on the competition's pages; the choice is a new URL
// (so back undoes it and a link shares it).
import type { Stage } from '../api.js';
import { STAGE_LABEL } from '../format.js';
import { STAGES, stagesParam } from '../stages.js';
import { parse } from '../router.js';

interface Props {
  selected: Stage[];
  finals: Stage[];
}

function go(next: Stage[], finals: Stage[]) {
  const { query } = parse(location.hash);
  const param = stagesParam(next, finals);
  if (param) query.set('stages', param);
  else query.delete('stages');
  const [path = '#/'] = location.hash.split('?');
  const s = query.toString();
  location.hash = `${path}${s ? `?${s}` : ''}`;
}

export function StageSelect({ selected, finals }: Props) {
  return (
    <fieldset class="stages">
      <legend>Stages scored</legend>
      {STAGES.map((s) => {
        const on = selected.includes(s);
        return (
          <label key={s}>
            <input
              type="checkbox"
              name="stage"
              value={s}
              checked={on}
              disabled={on && selected.length === 1}
              onChange={() => go(on ? selected.filter((x) => x !== s) : [...selected, s], finals)}
            />
            {STAGE_LABEL[s]}
            {finals.includes(s) ? <span class="hint"> (final)</span> : null}
          </label>
        );
      })}
    </fieldset>
  );
}
