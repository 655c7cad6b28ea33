// A competition's tabs (leaderboard, weights, weights over time, coverage, criteria, validators when the
// server has them) and its stage set, shown on every page of the competition.
import type { Competition } from '../api.js';
import { links, type PageProps } from '../links.js';
import type { Route } from '../router.js';
import { StageSelect } from './StageSelect.js';

interface Props {
  route: Route;
  props: PageProps;
  competition: Competition;
  validators: boolean;
}

export function CompetitionNav({ route, props, competition, validators }: Props) {
  const to = links(props.id, props.stages);
  const tab = (page: Route['page'], href: string, label: string) => (
    <li>
      <a href={href} aria-current={route.page === page ? 'page' : undefined}>
        {label}
      </a>
    </li>
  );
  return (
    <div class="subnav">
      <nav aria-label="Competition pages">
        <ul class="tabs">
          {tab('competition', to.competition, 'Leaderboard')}
          {tab('weights', to.weights, 'Weights')}
          {tab('weightsHistory', to.weightsHistory, 'Weights over time')}
          {tab('coverage', to.coverage, 'Coverage')}
          {tab('criteria', to.criteria, 'Criteria')}
          {validators ? tab('validators', to.validators, 'Validators') : null}
        </ul>
      </nav>
      <StageSelect selected={props.stages ?? competition.finalStages} finals={competition.finalStages} />
    </div>
  );
}
