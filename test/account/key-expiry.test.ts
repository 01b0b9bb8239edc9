import { expect, it } from 'vitest';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { sweepKeyExpiry } from '../../src/services/keys/expiry.js';
import { KEY_SERVICES } from '../../src/services/keys/keys.js';
import { DAY_MS, ManualClock } from '#test/support/clock.js';
import { describeEachBackend } from '#test/support/databases.js';
import { emailsTo, type ReadEmail } from '#test/support/fixtures/account-email.js';
import { type Fixture, useFixture } from '#test/support/http-fixture.js';

/** The subjects of the key expiry emails each of the fixture's members got, by role. */
async function noticesByRole(f: Fixture): Promise<Record<'owner' | 'admin' | 'member', string[]>> {
  const subjects = async (email: string) =>
    (await emailsTo(f, email))
      .map((message: ReadEmail) => message.subject)
      .filter((subject) => subject.includes('expires'));
  return {
    owner: await subjects(f.owner.user.email),
    admin: await subjects(f.admin.user.email),
    member: await subjects(f.member.user.email),
  };
}

describeEachBackend('Key expiry emails', (backend) => {
  const fixture = useFixture(backend);

  it('emails each owner and admin, not members, 14 and 3 days before a key expires, once per notice', async () => {
    const f = fixture();
    const sweep = () => sweepKeyExpiry(f.deps, f.app.services.accountMail);
    // Made 80 days before the fixture's now (20 November 2026, 10:00 UTC): 10 days left of its 90.
    const madeAt = new ManualClock(f.clock.now() - 80 * DAY_MS);
    await KEY_SERVICES.brand.create({ store: f.store, clock: madeAt }, OPERATOR, {
      workspaceId: f.workspaceId,
      name: 'Website build',
    });
    const subject = 'Your brand read key "Website build" expires on 30 November 2026 at 10:00 UTC';

    await sweep();
    await sweep();
    expect(await noticesByRole(f)).toEqual({ owner: [subject], admin: [subject], member: [] });
    const [email] = await emailsTo(f, f.owner.user.email);
    expect(email).toMatchObject({ workspaceId: f.workspaceId, source: 'account' });
    expect(email?.text).toContain('Brand read key "Website build" of the workspace "Acme Coffee" expires on');
    expect(email?.text).toContain('Create a replacement in Settings → Agent Access');

    f.clock.advance(8 * DAY_MS);
    try {
      await sweep();
      await sweep();
      expect(await noticesByRole(f)).toEqual({
        owner: [subject, subject],
        admin: [subject, subject],
        member: [],
      });
      // Expired: a webhook event, but no more email.
      f.clock.advance(3 * DAY_MS);
      await sweep();
      expect((await noticesByRole(f)).owner).toHaveLength(2);
    } finally {
      f.clock.advance(-11 * DAY_MS);
    }
  });

  it("tells them to ask the operator for a replacement of the operator's keys", async () => {
    const f = fixture();
    await KEY_SERVICES.email.create(f.deps, OPERATOR, {
      workspaceId: f.otherWorkspaceId,
      name: 'Receipts',
      expiresInDays: 2,
    });
    await sweepKeyExpiry(f.deps, f.app.services.accountMail);
    const [email, ...more] = await emailsTo(f, f.otherOwner.user.email);
    expect(more).toEqual([]);
    expect(email?.subject).toMatch(/^Your transactional email key "Receipts" expires on /);
    expect(email?.text).toContain('Ask the operator of Brand Context for a replacement');
  });
});
