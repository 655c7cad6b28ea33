// Worker thread entry: the costly half of Epistula checks (sr25519 over the signed message),
// off the server's event loop. Each message `{id, parts}` is answered `{id, valid}`.
import { parentPort } from 'node:worker_threads';
import { signatureValid, type SignedParts } from './epistula.js';

const port = parentPort!;
port.on('message', ({ id, parts }: { id: number; parts: SignedParts }) => {
  port.postMessage({ id, valid: signatureValid(parts) });
});
