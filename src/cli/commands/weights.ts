// `swe-scoring weights --url URL --competition ID [--snapshot N] [--stages a,b] [--format json|python]`:
// the weights on chain (SPEC 11) from a running server, live or from a snapshot, as JSON or as a
// Python literal a validator passes to `subtensor.set_weights(wallet=…, **literal)`.
import { parseArgs } from 'node:util';
import { createScoringClient } from '../../client/index.js';
import type { components } from '../../client/schema.js';
import { CliError, type Command } from '../command.js';

type ChainWeights = components['schemas']['ChainWeights'];

const HELP = `Usage: swe-scoring weights --url URL --competition ID [--snapshot N] [--stages a,b]
                           [--format json|python]          (npm run weights -- …)

Prints the weights a validator sets on chain: the final weights by uid under the metagraph in
force, as 16-bit integers exactly as the Bittensor SDK's convert_weights_and_uids_for_emit makes
them (GET /v1/competitions/{id}/weights/chain).

  --url URL          the server, e.g. https://scores.example.org
  --competition ID   the competition
  --snapshot N       the weights on chain a signed snapshot holds (N or latest) instead of the live
                     ones; check it first with swe-scoring verify
  --stages a,b       stage set of the live read (default the competition's finalStages)
  --format FORMAT    json (default): the whole body; python: a dict literal of set_weights'
                     arguments, {'netuid': …, 'uids': […], 'weights': […], 'version_key': …}

Reads are public unless the server requires a token: then SCORING_TOKEN in the environment.

Exit status: 0 printed; 1 the server refused or failed (its message is shown); 2 wrong usage.`;

/** A dict literal of `set_weights`' keyword arguments, with where it came from as a comment. */
export function pythonLiteral(body: ChainWeights, from: string): string {
  const list = (xs: number[]) => `[${xs.join(', ')}]`;
  return [
    `# ${from}: competition ${body.competitionId}, stages ${body.stages.join(',')}, metagraph ${body.metagraphDigest} (block ${body.block})`,
    '{',
    `    'netuid': ${body.netuid},`,
    `    'uids': ${list(body.uids)},`,
    `    'weights': ${list(body.weights)},`,
    `    'version_key': ${body.versionKey},`,
    '}',
  ].join('\n');
}

async function fetchChain(
  url: string,
  competitionId: string,
  snapshot: string | undefined,
  stages: string | undefined,
): Promise<{ chain: ChainWeights; from: string }> {
  const token = process.env.SCORING_TOKEN;
  const client = createScoringClient(url.replace(/\/+$/, ''), token);
  const failed = (status: number, problem: unknown) =>
    new CliError(`${status}: ${(problem as { detail?: string } | undefined)?.detail ?? 'the server refused the read'}`);
  if (snapshot === undefined) {
    const { data, error, response } = await client.GET('/v1/competitions/{competitionId}/weights/chain', {
      params: { path: { competitionId }, query: stages === undefined ? {} : { stages } },
    });
    if (!data) throw failed(response.status, error);
    return { chain: data, from: 'live' };
  }
  const path = { competitionId, seq: snapshot };
  const { data, error, response } =
    snapshot === 'latest'
      ? await client.GET('/v1/competitions/{competitionId}/snapshots/latest', { params: { path: { competitionId } } })
      : await client.GET('/v1/competitions/{competitionId}/snapshots/{seq}', { params: { path } });
  if (!data) throw failed(response.status, error);
  if (!data.chain)
    throw new CliError(`snapshot ${data.seq} was taken with no metagraph recorded: it holds no weights on chain`);
  // The snapshot's own number, `latest` resolved: the output says which one it is.
  return { chain: data.chain, from: `snapshot ${data.seq}` };
}

export const weightsCommand: Command = {
  help: HELP,
  async run(argv) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        competition: { type: 'string' },
        snapshot: { type: 'string' },
        stages: { type: 'string' },
        format: { type: 'string', default: 'json' },
      },
    });
    const usage = (message: string) => new CliError(`${message} (swe-scoring weights --help)`, [], 2);
    if (positionals.length > 0) throw usage(`unexpected argument ${String(positionals[0])}`);
    if (!values.url) throw usage('--url is required');
    if (!values.competition) throw usage('--competition is required');
    if (values.format !== 'json' && values.format !== 'python') throw usage('--format is json or python');
    if (values.snapshot !== undefined && !/^([1-9]\d{0,14}|latest)$/.test(values.snapshot))
      throw usage('--snapshot is a snapshot number (1, 2, …) or latest');
    if (values.snapshot !== undefined && values.stages !== undefined)
      throw usage('--stages is for the live read: a snapshot holds its own stage set');
    let read: { chain: ChainWeights; from: string };
    try {
      read = await fetchChain(values.url, values.competition, values.snapshot, values.stages);
    } catch (e) {
      if (e instanceof CliError) throw e;
      throw new CliError(`${values.url}: ${(e as Error).message}`);
    }
    const { chain: body, from } = read;
    process.stdout.write(`${values.format === 'python' ? pythonLiteral(body, from) : JSON.stringify(body)}\n`);
    return 0;
  },
};
