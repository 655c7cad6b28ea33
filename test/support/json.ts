/**
 * A JSON value typed loosely on purpose: a response body, the OpenAPI document, or a valid
 * payload a hostile test mutates into an invalid one. Tests pin the shape with expect(), which
 * fails at run time on a wrong guess; a cast per assertion would add noise and no safety.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the one loose JSON type of the tests, see above
export type Json = any;
