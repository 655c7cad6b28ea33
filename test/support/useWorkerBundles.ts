// Setup file of the in-process test projects: their worker threads start from the run's bundles
// (./workerBundles.ts). A setting of this process only: the processes a test starts run as they
// would from source.
import { inject } from 'vitest';
import { startWorkersFromBundles } from '../../src/workerThread.js';

startWorkersFromBundles(inject('workerBundles'));
