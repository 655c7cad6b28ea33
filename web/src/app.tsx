// The shell: header, breadcrumb, the competition's tabs and stage set, live status, and the page
// the hash route names. Moving to another page moves focus to its heading.
import { Fragment } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { api, read } from './api.js';
import { CompetitionNav } from './components/CompetitionNav.js';
import { LiveBadge } from './components/LiveBadge.js';
import { ErrorNote } from './components/Status.js';
import { ForgetToken } from './components/TokenForm.js';
import { useLive } from './live.js';
import type { PageProps } from './links.js';
import { validatorAgreement } from './optionalApi.js';
import { Competition } from './pages/Competition.js';
import { Competitions } from './pages/Competitions.js';
import { Coverage } from './pages/Coverage.js';
import { CriteriaReport } from './pages/CriteriaReport.js';
import { Miner } from './pages/Miner.js';
import { Task } from './pages/Task.js';
import { Validators } from './pages/Validators.js';
import { Weights } from './pages/Weights.js';
import { WeightsHistory } from './pages/WeightsHistory.js';
import { useLocation, type Route } from './router.js';
import { parseStages } from './stages.js';
import { useData } from './useData.js';

const routeKey = (r: Route) => JSON.stringify(r);

function page(route: Route, props: PageProps | null) {
  if (route.page === 'competitions') return <Competitions />;
  if (route.page === 'notFound')
    return (
      <>
        <h1 tabIndex={-1}>Page not found</h1>
        <p>
          No page at <code>{route.path}</code>. <a href="#/">All competitions</a>
        </p>
      </>
    );
  if (!props) return null;
  if (route.page === 'miner') return <Miner {...props} hotkey={route.hotkey} />;
  if (route.page === 'task') return <Task {...props} taskId={route.taskId} />;
  if (route.page === 'weights') return <Weights {...props} />;
  if (route.page === 'validators') return <Validators {...props} />;
  if (route.page === 'coverage') return <Coverage {...props} />;
  if (route.page === 'criteria') return <CriteriaReport {...props} />;
  if (route.page === 'weightsHistory') return <WeightsHistory {...props} />;
  return <Competition {...props} />;
}

export function App() {
  const { route, query } = useLocation();
  const id = 'id' in route ? route.id : null;
  const live = useLive(id);
  const comp = useData(
    () =>
      id === null
        ? Promise.resolve(null)
        : read(api.GET('/v1/competitions/{competitionId}', { params: { path: { competitionId: id } } })),
    [id, live.tick],
  );
  const validators = useData(() => (id === null ? Promise.resolve(null) : validatorAgreement(id)), [id]);
  const competition = comp.data && comp.data.id === id ? comp.data : null;
  const stages = parseStages(query.get('stages'));
  // Pages load their data alongside the competition's settings, not after them.
  const props: PageProps | null = id !== null ? { id, competition, stages, query, tick: live.tick } : null;

  const key = routeKey(route);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else document.querySelector<HTMLElement>('main h1')?.focus();
  }, [key]);
  useEffect(() => {
    const name = route.page === 'miner' ? route.hotkey : route.page === 'task' ? route.taskId : route.page;
    document.title = [name, competition?.name, 'swe-scoring'].filter(Boolean).join(' · ');
  }, [key, competition?.name]);

  return (
    <>
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="#/">
          swe-scoring
        </a>
        <nav aria-label="Breadcrumb" class="crumbs">
          <ol>
            <li>
              <a href="#/">Competitions</a>
            </li>
            {competition ? <li>{competition.name}</li> : null}
          </ol>
        </nav>
        {id !== null ? <LiveBadge live={live} /> : null}
        <ForgetToken />
      </header>
      {props && competition ? (
        <CompetitionNav
          route={route}
          props={props}
          competition={competition}
          validators={Array.isArray(validators.data)}
        />
      ) : null}
      <main id="main" tabIndex={-1} aria-busy={comp.loading}>
        {id !== null && comp.error && !competition ? (
          <>
            <h1 tabIndex={-1}>Competition {id}</h1>
            <ErrorNote error={comp.error} />
          </>
        ) : (
          <Fragment key={key}>{page(route, props)}</Fragment>
        )}
      </main>
    </>
  );
}
