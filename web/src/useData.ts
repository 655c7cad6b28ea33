// Loads a page's data and reloads it when its inputs change (route, stages, live version). The
// last data stays on screen while a reload runs, so a live update never blanks the page. Answers
// are shown newest-request-wins: an older answer arriving after a newer one is dropped, but a
// reload started before the first answer came does not hold that first answer back.
import { useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
}

const same = (a: unknown, b: unknown) => a !== undefined && JSON.stringify(a) === JSON.stringify(b);

export function useData<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ data: undefined, error: undefined, loading: true });
  const started = useRef(0);
  const shown = useRef(0);
  useEffect(() => {
    const mine = ++started.current;
    setState((s) => (s.loading ? s : { ...s, loading: true }));
    const settle = (next: (s: Loaded<T>) => Loaded<T>) => {
      if (mine <= shown.current) return;
      shown.current = mine;
      setState(next);
    };
    load().then(
      // An answer equal to the one on screen keeps the old object, so memoized tables and
      // charts are not rebuilt for nothing.
      (data) =>
        settle((s) => ({
          data: same(s.data, data) ? s.data : data,
          error: undefined,
          loading: mine !== started.current,
        })),
      (error: unknown) =>
        settle((s) => ({
          data: s.data,
          error: error instanceof Error ? error : new Error(String(error)),
          loading: mine !== started.current,
        })),
    );
  }, deps);
  return state;
}
