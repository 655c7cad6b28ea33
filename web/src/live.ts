// Live updates: one EventSource per open competition on GET /v1/competitions/{id}/events
// (API.md 1.1). Each `event: scores` carries `{"version": N}`; each one makes the open page reload
// its data. After a dropped connection comes back the page reloads too, since events may have
// been missed meanwhile. This is the one URL the dashboard writes by hand: openapi-fetch does
// not speak Server-Sent Events. With a read token the stream is followed by web/src/eventStream.ts.
import { useEffect, useState } from 'preact/hooks';
import { followEvents, type StreamHandlers } from './eventStream.js';
import { authorization, readToken } from './readToken.js';

export type LiveStatus = 'connecting' | 'live' | 'unavailable';

/** `tick` goes up on every change worth a reload; `version` is the server's last announced one. */
export interface Live {
  tick: number;
  version: number | null;
  status: LiveStatus;
}

export function useLive(competitionId: string | null): Live {
  const [live, setLive] = useState<Live>({ tick: 0, version: null, status: 'connecting' });
  useEffect(() => {
    if (competitionId === null || typeof EventSource === 'undefined') {
      setLive((l) => ({ ...l, status: 'unavailable' }));
      return;
    }
    setLive((l) => ({ ...l, status: 'connecting' }));
    const url = `/v1/competitions/${encodeURIComponent(competitionId)}/events`;
    let opened = false;
    const on: StreamHandlers = {
      open() {
        setLive((l) => ({ ...l, tick: opened ? l.tick + 1 : l.tick, status: 'live' }));
        opened = true;
      },
      event(name, data) {
        if (name !== 'scores') return;
        let version: number | null = null;
        try {
          const v = (JSON.parse(data) as { version?: unknown }).version;
          if (typeof v === 'number') version = v;
        } catch {
          // a malformed payload still says that something changed
        }
        setLive((l) => ({ tick: l.tick + 1, version: version ?? l.version, status: 'live' }));
      },
      error(closed) {
        setLive((l) => ({ ...l, status: closed ? 'unavailable' : 'connecting' }));
      },
    };
    // With a read token the stream needs its header, which EventSource cannot send.
    if (readToken()) return followEvents(url, authorization(), on);
    const source = new EventSource(url);
    source.onopen = () => on.open();
    source.addEventListener('scores', (event) => on.event('scores', (event as MessageEvent<string>).data));
    // CLOSED: the server refused the stream (no such route, 4xx): EventSource will not retry.
    source.onerror = () => on.error(source.readyState === EventSource.CLOSED);
    return () => source.close();
  }, [competitionId]);
  return live;
}
