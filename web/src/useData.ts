// Loads a page's data and reloads it when its inputs change (route, stages, live version). The
// last data stays on screen while a reload runs, so a live update never blanks the page, and an
// answer that arrives after a newer request started is dropped.
import { useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
}

const same = (a: unknown, b: unknown) => a !== undefined && JSON.stringify(a) === JSON.stringify(b);

export function useData<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ data: undefined, error: undefined, loading: true });
  const seq = useRef(0);
  useEffect(() => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      // An answer equal to the one on screen keeps the old object, so memoized tables and
      // charts are not rebuilt for nothing (a live notice often changes another page's data).
      (data) => mine === seq.current && setState((s) => ({ data: same(s.data, data) ? s.data : data, error: undefined, loading: false })),
      (error: unknown) =>
        mine === seq.current &&
        setState((s) => ({ data: s.data, error: error instanceof Error ? error : new Error(String(error)), loading: false })),
    );
  }, deps);
  return state;
}
