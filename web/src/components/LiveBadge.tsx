// Says whether the open page follows the server's live updates.
import type { Live } from '../live.js';

const TEXT = { connecting: 'connecting…', live: 'live', unavailable: 'live updates off' } as const;

export function LiveBadge({ live }: { live: Live }) {
  return (
    <p
      class={`live live-${live.status}`}
      role="status"
      data-live={live.status}
      data-version={live.version ?? ''}
      title={
        live.status === 'unavailable'
          ? 'The server has no event stream for this competition: reload to refresh.'
          : `Scores version ${live.version ?? 'not announced yet'}`
      }
    >
      <span class="dot" aria-hidden="true" />
      {TEXT[live.status]}
    </p>
  );
}
