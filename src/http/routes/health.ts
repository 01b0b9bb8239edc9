import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { StoreError } from '../../store/errors.js';
import type { Store } from '../../store/store.js';
import { jsonResponse, withProblems } from '../schemas.js';

const READY_TIMEOUT_MS = 2000;

const livenessSchema = {
  tags: ['health'],
  operationId: 'checkLiveness',
  summary: 'Is the process alive',
  security: [],
  response: withProblems(
    { 200: jsonResponse('The process answers', z.object({ status: z.literal('ok') })) },
    [],
  ),
};

const readinessSchema = {
  tags: ['health'],
  operationId: 'checkReadiness',
  summary: 'Is the service ready for traffic',
  description: 'Load balancers route on this: 200 only while the database answers too.',
  security: [],
  response: withProblems(
    {
      200: jsonResponse(
        'The database answers',
        z.object({ status: z.literal('ready'), database: z.enum(['sqlite', 'postgres']) }),
      ),
    },
    [],
  ),
};

/** `/healthz`: the process answers. `/readyz`: and its database does too (load balancers route on this). */
export function healthRoutes(app: FastifyInstance, store: Pick<Store, 'kind' | 'ping'>): void {
  app.get('/healthz', { schema: livenessSchema }, () => ({ status: 'ok' }));

  app.get('/readyz', { schema: readinessSchema }, async () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new Error(`no answer within ${String(READY_TIMEOUT_MS)} ms`));
      }, READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([store.ping(), timeout]);
    } catch (error) {
      // Whatever the cause (a closed store too), the answer is 503 with Retry-After.
      throw error instanceof StoreError ? error : new StoreError('service_unavailable', 'no answer', error);
    } finally {
      clearTimeout(timer);
    }
    return { status: 'ready', database: store.kind };
  });
}
