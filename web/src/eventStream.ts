// Server-Sent Events with an Authorization header. EventSource cannot send one, so a server whose
// reads need a token (web/src/readToken.ts) is followed with fetch and a streamed body instead,
// parsed as text/event-stream (event and data fields, blocks ended by a blank line), reconnecting
// after a drop as EventSource does.
export interface StreamHandlers {
  open(): void;
  event(name: string, data: string): void;
  /** `closed`: the server refused the stream and it will not be retried. */
  error(closed: boolean): void;
}

const RETRY_MS = 3000;

function dispatch(block: string, on: StreamHandlers): void {
  let name = 'message';
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon === 0) continue; // a comment
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') name = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length > 0) on.event(name, data.join('\n'));
}

/** Follows `url` with the given headers until the returned function is called. */
export function followEvents(url: string, headers: Record<string, string>, on: StreamHandlers): () => void {
  const controller = new AbortController();
  const run = async () => {
    while (!controller.signal.aborted) {
      try {
        const res = await fetch(url, {
          headers: { ...headers, accept: 'text/event-stream' },
          cache: 'no-store',
          signal: controller.signal,
        });
        if (!res.ok || !res.body) return on.error(true);
        on.open();
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          for (let end = buffer.search(/\r?\n\r?\n/); end >= 0; end = buffer.search(/\r?\n\r?\n/)) {
            dispatch(buffer.slice(0, end), on);
            buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
          }
        }
      } catch {
        if (controller.signal.aborted) return;
      }
      on.error(false);
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  };
  void run();
  return () => controller.abort();
}
