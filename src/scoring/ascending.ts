/**
 * Orders ids by UTF-16 code units. `localeCompare` would make the leaderboard and every
 * floating-point sum depend on the server's locale; plain `<` does not.
 */
export function ascending(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
