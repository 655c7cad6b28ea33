// Validators and their keys.
import type { Repos } from '../db/repos.js';
import type { ValidatorRow } from '../db/validators.js';
import { notFound } from '../errors.js';

const view = (v: ValidatorRow) => ({ id: v.id, name: v.name, createdAt: v.createdAt, revokedAt: v.revokedAt });

export function validatorsService(repos: Repos) {
  return {
    /** Creates a validator; its key is in this result only (the server keeps a hash). */
    create(name: string) {
      const { validator, apiKey } = repos.validators.create(name);
      return { ...view(validator), apiKey };
    },
    list: () => repos.validators.list().map(view),
    revoke(id: string) {
      if (!repos.validators.revoke(id)) throw notFound(`validator ${id} does not exist`);
      return view(repos.validators.get(id)!);
    },
    /** The active validator holding this bearer key, or null. */
    authenticate: (apiKey: string) => repos.validators.authenticate(apiKey),
  };
}
