import { afterAll, beforeAll, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../src/contract/webhooks.js';
import { startTestApp, type TestApp } from '#test/support/app.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { publishEveryEvent } from '#test/support/fixtures/every-event.js';
import { type OpenApiDocument, schemaAt } from '#test/support/openapi-conformance.js';
import { eventOf } from '#test/support/webhook-receiver.js';

/** The schema GET /openapi.json gives the body of `type`'s webhook. */
const webhookBody = (type: string) => `/webhooks/${type}/post/requestBody/content/application~1json/schema`;

describeEachBackend('Webhook event schemas (src/contract/webhook-events.ts)', (backend) => {
  let database: TestDatabase;
  let testApp: TestApp;
  let document: OpenApiDocument;
  /** Every body the service queued for an endpoint that subscribes to every event, each type at least once. */
  let payloads: string[];

  beforeAll(async () => {
    database = await backend.create();
    testApp = await startTestApp(database);
    payloads = await publishEveryEvent(testApp);
    document = (await testApp.app.inject({ method: 'GET', url: '/openapi.json' })).json<OpenApiDocument>();
  });
  afterAll(async () => {
    await testApp.close();
    await database.drop();
  });

  it('sends every event type with a body its type’s schema validates, naming no field the schema does not', () => {
    const types = new Set(payloads.map((payload) => eventOf(payload).type));
    expect([...types].sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
  });

  it('describes every body it sends by its type’s webhook in GET /openapi.json', () => {
    for (const payload of payloads) {
      const { type } = eventOf(payload);
      expect(schemaAt(document, webhookBody(type))(JSON.parse(payload)), type).toBe(true);
    }
  });

  it('refuses, by the contract and by the document, a body with another type’s data or a field too many', () => {
    const member = payloads.map((payload) => eventOf(payload)).find((event) => event.type === 'member.added');
    const campaign = payloads
      .map((payload) => eventOf(payload))
      .find((event) => event.type === 'campaign.created');
    expect(member && campaign).toBeTruthy();
    const isMemberAdded = schemaAt(document, webhookBody('member.added'));
    for (const wrong of [
      { ...member, data: campaign?.data },
      { ...member, data: { ...member?.data, secret: 'whsec_x' } },
    ]) {
      expect(() => eventOf(JSON.stringify(wrong))).toThrow();
      expect(isMemberAdded(wrong)).toBe(false);
    }
    // Each webhook's body is its type's alone.
    expect(isMemberAdded({ ...member, type: 'member.removed' })).toBe(false);
  });
});
