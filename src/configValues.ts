// The values of settings read from the environment (src/config.ts), each refused with a
// ConfigError naming the variable and what it accepts.

/**
 * A setting the server cannot start with: said in one line naming the variable and what it
 * accepts (src/server.ts), not as a stack trace.
 */
export class ConfigError extends Error {}

/** The longest timer Node keeps (2^31 - 1 ms, about 24.8 days): a longer one fires after 1 ms, over and over. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** `90s`, `10m`, `2h` (or plain milliseconds) to milliseconds; unset or empty: null. At least 1 s, at most MAX_TIMER_MS. */
export function parseDuration(value: string | undefined, name: string): number | null {
  if (!value) return null;
  const m = /^(\d+)(ms|s|m|h)?$/.exec(value.trim());
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m?.[2] ?? 'ms') as 'ms' | 's' | 'm' | 'h'];
  const ms = m ? Number(m[1]) * unit : NaN;
  if (!Number.isSafeInteger(ms) || ms < 1000 || ms > MAX_TIMER_MS)
    throw new ConfigError(`${name} must be a duration from 1s to 596h such as 90s, 10m or 2h, got ${value}`);
  return ms;
}

export function parseInteger(value: string, name: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${value}`);
  return n;
}

export function parseBool(value: string, name: string): boolean {
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off|)$/i.test(value)) return false;
  throw new ConfigError(`${name} must be true or false, got ${value}`);
}

/**
 * SCORING_INSTANCE_LABEL: the operator's name for this server process, put in the application_name
 * of its PostgreSQL connections (docs/POSTGRES.md) beside the host and pid; unset or
 * empty: none. At most 20 characters, so a connection's name keeps room for the host in
 * PostgreSQL's 63 bytes, and no space, so the name stays readable word by word.
 */
export function instanceLabel(value: string | undefined): string | null {
  if (!value) return null;
  if (!/^[A-Za-z0-9._-]{1,20}$/.test(value))
    throw new ConfigError(
      `SCORING_INSTANCE_LABEL must be 1 to 20 characters of ASCII letters, digits, '.', '_' or '-' ` +
        `(it names this server's PostgreSQL connections, such as replica-2), got ${JSON.stringify(value)}`,
    );
  return value;
}
