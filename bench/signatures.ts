// Cost of verifying one Epistula v2 signed request (src/signatures/epistula.ts), by body size:
// an empty body, a small one, and a real 1,000-run batch from the benchmark's competition.
//   npm run bench:signatures [-- --rounds N]
// Prints µs per verification with the default backend (@scure/sr25519, pure JS) and with Rust
// schnorrkel in WebAssembly (@polkadot/wasm-crypto, a devDependency), and the time spent hashing
// the body. Asserts every verdict.
import { createHash } from 'node:crypto';
import { sr25519Verify, waitReady } from '@polkadot/wasm-crypto';
import { parseArgs } from 'node:util';
import { bodyHasher, bodySha256Hex, keypairFromSeed, signRequest } from '../src/client/sign.js';
import { createEpistulaVerifier } from '../src/signatures/epistula.js';
import { SIZES, buildCompetition, runBatches } from './generate.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '200' } } });
const rounds = Number(values.rounds);
const key = keypairFromSeed(new Uint8Array(32).fill(1));
const server = keypairFromSeed(new Uint8Array(32).fill(2));
await waitReady();
const backends = {
  scure: createEpistulaVerifier({ serverAddress: server.address }),
  wasm: createEpistulaVerifier({ serverAddress: server.address, sr25519Verify: (m, s, k) => sr25519Verify(s, m, k) }),
};
const batch = Buffer.from(runBatches(buildCompetition(SIZES.small, 1), 1000).bodies[0]!);

const bodies: [string, Buffer][] = [
  ['empty body (GET)', Buffer.alloc(0)],
  ['1 KiB body', Buffer.alloc(1024, 'x')],
  [`1,000-run batch (${(batch.length / 1024).toFixed(0)} KiB)`, batch],
];

const perOp = (fn: () => void, n: number) => {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i += 1) fn();
  return Number(process.hrtime.bigint() - start) / 1000 / n;
};

console.log(`Epistula verification, ${rounds} rounds each, Node ${process.version}`);
for (const [label, body] of bodies) {
  const now = Date.now();
  const requests = Array.from({ length: rounds }, () => {
    const h = signRequest({ key, body, signedFor: server.address, now });
    return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
  });
  const results = Object.entries(backends).map(([name, verify]) => {
    let i = 0;
    const once = () => {
      if (!verify({ headers: requests[i++ % rounds]!, body, now }).ok) throw new Error('a valid signature was refused');
    };
    perOp(once, Math.min(20, rounds)); // warm-up
    return `${name} ${perOp(once, rounds).toFixed(0).padStart(5)} µs`;
  });
  const hashUs = perOp(() => createHash('sha256').update(body).digest('hex'), rounds);
  console.log(
    `${label.padEnd(28)} per verify: ${results.join(', ')} (of which sha256 of the body ${hashUs.toFixed(0)} µs)`,
  );
}

// The client helper on a 1,000-run batch: signRequest whole, and its body hash (node:crypto where
// it runs, noble's elsewhere).
const batchText = batch.toString('utf8');
const n = Math.min(50, rounds);
const signUs = perOp(() => signRequest({ key, body: batchText, signedFor: server.address }), n);
const nodeUs = perOp(() => bodySha256Hex(batchText), n);
const nobleHash = bodyHasher(null);
const nobleUs = perOp(() => nobleHash(batchText), n);
console.log(
  `client signRequest of the 1,000-run batch: ${signUs.toFixed(0)} µs, of which the body's sha256 ${nodeUs.toFixed(0)} µs by node:crypto (noble's, used without Node's API: ${nobleUs.toFixed(0)} µs)`,
);
