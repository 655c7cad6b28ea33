// A QnA task's rubric criteria with their met and split rates as bars. The title may be hidden
// by the server (answer keys, API 1.1): the criterion is then named by its position.
import type { TaskDetail } from '../api.js';
import { exact, pct } from '../format.js';

type Criterion = NonNullable<TaskDetail['criteria']>[number];

function Bar({ value, kind }: { value: number | null; kind: string }) {
  return (
    <span class="bar-cell" title={exact(value)}>
      <span class={`bar bar-${kind}`} aria-hidden="true">
        <span style={{ width: `${(value ?? 0) * 100}%` }} />
      </span>
      <span class="num">{pct(value, 0)}</span>
    </span>
  );
}

export function Criteria({ criteria }: { criteria: Criterion[] }) {
  return (
    // Wide on a narrow window, with nothing focusable in it: the box takes focus, so the keyboard
    // scrolls it too (as the validators table and the criteria report's).
    <div class="table-wrap" tabIndex={0} role="region" aria-label="Rubric criteria table">
      <table id="criteria">
        <caption>
          Rubric criteria: met rate (share of graded runs that met it) and split rate (share whose judge votes were not
          unanimous)
        </caption>
        <thead>
          <tr>
            <th scope="col" class="num">
              #
            </th>
            <th scope="col">Criterion</th>
            <th scope="col">Polarity</th>
            <th scope="col" class="num">
              Graded runs
            </th>
            <th scope="col">Met rate</th>
            <th scope="col">Split rate</th>
          </tr>
        </thead>
        <tbody>
          {criteria.map((c, i) => (
            <tr key={c.id || i}>
              <td class="num">{i + 1}</td>
              <th scope="row" class="criterion">
                {/* Free text (it may hold U+202E): isolated, it cannot reorder the badge after it. */}
                <bdi>{c.title || `criterion ${i + 1}`}</bdi>
                {c.change ? <span class="badge">reworded: {c.change}</span> : null}
              </th>
              <td>{c.type}</td>
              <td class="num">{c.graded}</td>
              <td>
                <Bar value={c.metRate} kind="met" />
              </td>
              <td>
                <Bar value={c.splitRate} kind="split" />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
