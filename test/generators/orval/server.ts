/** Where the orval client sends its requests: set before the first call (./orval.config.mjs). */
export const server = { baseUrl: '' };
