import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/app.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';

describeEachBackend('Health endpoints', (backend) => {
  let database: TestDatabase;
  let testApp: TestApp;
  beforeAll(async () => {
    database = await backend.create();
    testApp = await startTestApp(database);
  });
  afterAll(async () => {
    await testApp.app.close();
    await database.drop();
  });

  it('reports the process alive on /healthz', async () => {
    const response = await testApp.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('reports ready on /readyz while the database answers', async () => {
    const response = await testApp.app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready', database: backend.name });
  });

  it('answers /readyz with a 503 problem once the database is gone, while /healthz stays 200', async () => {
    await testApp.store.close();
    const response = await testApp.app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(response.json()).toMatchObject({ code: 'service_unavailable' });
    expect((await testApp.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});
