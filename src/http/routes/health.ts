import type { FastifyInstance } from 'fastify';
import { AppError } from '../../core/errors.js';
import type { Store } from '../../store/store.js';

const READY_TIMEOUT_MS = 2000;

/** `/healthz`: the process answers. `/readyz`: and its database does too (load balancers route on this). */
export function healthRoutes(app: FastifyInstance, store: Store): void {
  app.get('/healthz', () => ({ status: 'ok' }));

  app.get('/readyz', async () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new Error('database ping timed out'));
      }, READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([store.ping(), timeout]);
    } catch {
      throw new AppError('service_unavailable', 'The database did not answer.');
    } finally {
      clearTimeout(timer);
    }
    return { status: 'ready', database: store.kind };
  });
}
