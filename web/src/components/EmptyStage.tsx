// What a page shows for a stage set with no tasks, instead of rows of dashes and empty charts.
import { STAGE_LABEL } from '../format.js';

export function EmptyStage({ stages }: { stages: readonly string[] }) {
  return (
    <p class="note" id="empty-stage" role="status">
      No tasks in the chosen stages ({stages.map((s) => STAGE_LABEL[s] ?? s).join(', ')}): nothing is scored here yet.
      Choose another stage set above.
    </p>
  );
}
