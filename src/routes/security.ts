// OpenAPI security requirements matching each route's `config.access`.
type Requirement = { [scheme: string]: string[] };

export const ADMIN: Requirement[] = [{ adminToken: [] }];
export const VALIDATOR: Requirement[] = [{ validatorKey: [] }, { adminToken: [] }];
/** Public reads; a token is accepted, and required when the server is set to demand one. */
export const PUBLIC: Requirement[] = [{}, { validatorKey: [] }, { adminToken: [] }];
