// The package version, read from package.json (resolved from this file, so it works from src/ and
// dist/ alike): the OpenAPI document and the command line report it.
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

export const PACKAGE_VERSION: string = pkg.version;
