/** A command line used wrongly: exit status 2 and the message, no stack. */
export class UsageError extends Error {
  override name = 'UsageError';
}
