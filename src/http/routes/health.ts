import type { FastifyInstance } from 'fastify';
import { StoreError } from '../../store/errors.js';
import type { Store } from '../../store/store.js';

const READY_TIMEOUT_MS = 2000;

/** `/healthz`: the process answers. `/readyz`: and its database does too (load balancers route on this). */
export function healthRoutes(app: FastifyInstance, store: Store): void {
  app.get('/healthz', () => ({ status: 'ok' }));

  app.get('/readyz', async () => {
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
