// Worker thread entry: the cryptographic half of Epistula checks (SHA-256 of the body, sr25519),
// off the server's event loop. Each message `{id, parts}` is answered `{id, valid}`.
import { parentPort } from 'node:worker_threads';
import { signatureValid, type SignedParts } from './epistula.js';

const port = parentPort!;
port.on('message', ({ id, parts }: { id: number; parts: SignedParts }) => {
  port.postMessage({ id, valid: signatureValid(parts) });
});
