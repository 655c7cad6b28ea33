/**
 * The version of the rules this core computes (SPEC.md). Every snapshot records it, so a score
 * published under one version of the rules is never mistaken for another's.
 */
export const RULES_VERSION = 'swe-scoring-spec/1.1';
