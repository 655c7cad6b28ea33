import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { adminRoutes } from './admin.js';
import { competitionRoutes } from './competitions.js';
import { eventRoutes } from './events.js';
import { exportRoutes } from './exports.js';
import { importRoutes } from './imports.js';
import { metagraphRoutes } from './metagraph.js';
import { judgeRoutes } from './judge.js';
import { minerRoutes } from './miners.js';
import { operationRoutes } from './operations.js';
import { runRoutes } from './runs.js';
import { scoreRoutes } from './scores.js';
import { snapshotRoutes } from './snapshots.js';
import { taskRoutes } from './tasks.js';
import { validatorRoutes } from './validators.js';

/** The prefix of every API route. */
export const API_PREFIX = '/v1';

export const routes: FastifyPluginAsyncZod = async (app) => {
  await app.register(operationRoutes);
  await app.register(
    async (v1) => {
      await v1.register(competitionRoutes);
      await v1.register(taskRoutes);
      await v1.register(validatorRoutes);
      await v1.register(minerRoutes);
      await v1.register(runRoutes);
      await v1.register(scoreRoutes);
      await v1.register(metagraphRoutes);
      await v1.register(judgeRoutes);
      await v1.register(eventRoutes);
      await v1.register(snapshotRoutes);
      await v1.register(exportRoutes);
      await v1.register(adminRoutes);
      await v1.register(importRoutes);
    },
    { prefix: API_PREFIX },
  );
};
