// Worker thread entry for sr25519 checks (the main thread's side is ./verifyInWorker.ts): each
// message is one signed request's parts (the Epistula message, a few hundred bytes, its signature
// and the signer's key), answered with whether the signature holds. The check is the same function
// the main thread would run (src/signatures/epistula.ts `signatureValid`).
import { parentPort } from 'node:worker_threads';
import { signatureValid, type SignedParts } from '../signatures/epistula.js';
import type { FromVerifyWorker } from './verifyInWorker.js';

const port = parentPort!;
port.on('message', (m: SignedParts & { id: number }) => {
  const answer: FromVerifyWorker = { id: m.id, valid: signatureValid(m) };
  port.postMessage(answer);
});
