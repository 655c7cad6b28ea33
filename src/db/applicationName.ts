// The application_name of every connection a process opens to PostgreSQL, as pg_stat_activity
// shows it: `swe-scoring <kind> [<label> ]<host>:<pid>`. The kind tells the pool from the
// notifier's LISTEN, the version reads, the migrations and `db copy`; the host and pid (and the operator's
// instance label, SCORING_INSTANCE_LABEL) tell one server process from another. PostgreSQL keeps
// 63 bytes of it and shows any byte outside printable ASCII as `?`: the name is made to fit both.
import { hostname } from 'node:os';

export type ConnectionKind = 'pool' | 'listen' | 'versions' | 'migrate' | 'copy';

/** PostgreSQL's NAMEDATALEN - 1: a longer application_name is cut short without a word. */
const MAX_BYTES = 63;

const ascii = (s: string) => s.replace(/[^\x21-\x7e]/g, '?');

/**
 * The name of a connection of `kind`. The host is its first label (the domain goes); when the
 * name would still pass 63 bytes, the host keeps its end after a `~`, since generated host names
 * (pods, containers) differ at the end.
 */
export function applicationName(
  kind: ConnectionKind,
  label?: string | null,
  host: string = hostname(),
  pid: number = process.pid,
): string {
  const prefix = `swe-scoring ${kind} ${label ? `${ascii(label)} ` : ''}`;
  const suffix = `:${pid}`;
  let name = ascii(host.split('.')[0] || host);
  const room = MAX_BYTES - prefix.length - suffix.length;
  if (name.length > room) name = room > 1 ? `~${name.slice(name.length - room + 1)}` : '';
  return `${prefix}${name}${suffix}`.slice(0, MAX_BYTES);
}
