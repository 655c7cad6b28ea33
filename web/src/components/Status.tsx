// Loading and error states, the same on every page.
import type { ComponentChildren } from 'preact';
import { ApiError } from '../api.js';
import { TokenForm } from './TokenForm.js';

export function ErrorNote({ error }: { error: Error }) {
  const status = error instanceof ApiError ? error.status : null;
  return (
    <div class="error" role="alert">
      <strong>{status === 404 ? 'Not found' : 'Could not load this page'}</strong>
      {status ? ` (HTTP ${status})` : ''}: {error.message}.{status === 401 ? <TokenForm /> : null}
    </div>
  );
}

/** Shows children once data exists; the error or a loading line otherwise. */
export function Loading<T>({
  state,
  children,
}: {
  state: { data: T | undefined; error: Error | undefined };
  children: (data: T) => ComponentChildren;
}) {
  if (state.error && state.data === undefined) return <ErrorNote error={state.error} />;
  if (state.data === undefined)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  return (
    <>
      {state.error ? <ErrorNote error={state.error} /> : null}
      {children(state.data)}
    </>
  );
}
