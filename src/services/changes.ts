// Change notices for live pages (GET …/events): a version per competition that moves with every
// write the storage layer reports, and listeners told of it at most once per interval. Notices go
// out on a later tick than the write, so never before its transaction has committed.
import type { Store } from '../db/contract.js';

export type ChangeListener = (version: number) => void;

interface Channel {
  version: number;
  listeners: Set<ChangeListener>;
  lastSent: number;
  timer: NodeJS.Timeout | null;
}

export function changesService(store: Store, intervalMs = 250) {
  const channels = new Map<string, Channel>();
  const channel = (id: string): Channel => {
    let c = channels.get(id);
    if (!c) channels.set(id, (c = { version: 0, listeners: new Set(), lastSent: 0, timer: null }));
    return c;
  };

  function send(c: Channel): void {
    c.timer = null;
    c.lastSent = Date.now();
    for (const listener of c.listeners) listener(c.version);
  }

  store.listeners.add((event) => {
    const c = channel(event.competitionId);
    c.version++;
    if (c.listeners.size === 0 || c.timer) return;
    const wait = Math.max(0, c.lastSent + intervalMs - Date.now());
    c.timer = setTimeout(() => send(c), wait);
  });

  return {
    /** The competition's current version (0 until its first write since the server started). */
    version: (competitionId: string) => channels.get(competitionId)?.version ?? 0,
    /** Calls `listener` after writes to the competition; returns the unsubscribe function. */
    subscribe(competitionId: string, listener: ChangeListener): () => void {
      const c = channel(competitionId);
      c.listeners.add(listener);
      return () => {
        c.listeners.delete(listener);
        if (c.listeners.size === 0 && c.timer) {
          clearTimeout(c.timer);
          c.timer = null;
        }
      };
    },
    close(): void {
      for (const c of channels.values()) if (c.timer) clearTimeout(c.timer);
      channels.clear();
    },
  };
}
