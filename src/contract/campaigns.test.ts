import { describe, expect, it } from 'vitest';
import { campaignChangesSchema, newCampaignSchema } from './campaigns.js';

describe('newCampaignSchema', () => {
  it('fills the fields a new draft leaves out with empty strings', () => {
    expect(newCampaignSchema.parse({ name: ' Launch ' })).toEqual({
      name: 'Launch',
      subject: '',
      preheader: '',
      body_html: '',
      body_text: '',
    });
  });

  it('refuses a subject with a line break, which could inject mail headers', () => {
    const result = newCampaignSchema.safeParse({ name: 'x', subject: 'Hi\r\nBcc: all@example.com' });
    expect(result.error?.issues[0]?.message).toBe(
      'must be a single line: no line breaks (CR, LF, U+2028 or U+2029)',
    );
  });

  it('refuses a status: a new campaign is always a draft', () => {
    expect(newCampaignSchema.safeParse({ name: 'x', status: 'sent' }).success).toBe(false);
  });
});

describe('campaignChangesSchema', () => {
  it('refuses an edit that changes nothing', () => {
    expect(campaignChangesSchema.safeParse({}).success).toBe(false);
    expect(campaignChangesSchema.safeParse({ subject: '' }).success).toBe(true);
  });
});
