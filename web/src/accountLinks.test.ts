import { describe, expect, it } from 'vitest';
import { linkPageError, waitInWords } from './accountLinks';
import { ApiError } from './api';

const NEW_LINK = 'Ask a workspace owner or admin to resend your invite.';

describe('linkPageError', () => {
  it('says how long to wait in words a person uses, not the Retry-After header', () => {
    const limited = new ApiError(
      429,
      'rate_limited',
      'Too many uses of invite and password reset links from your address: try again in 3592 s.',
      'Wait for the number of seconds in the Retry-After header, then try again.',
      [],
      3592,
    );
    expect(linkPageError(limited, NEW_LINK)).toMatchObject({
      detail: 'Too many requests: try again in about an hour.',
      resolution: 'This limit protects your account from people guessing links and addresses.',
    });
  });

  it('leaves field errors to their fields, and says how to get a new link for an unusable one', () => {
    const fields = new ApiError(400, 'invalid_request', 'Invalid input: password must be …', 'Correct …', [
      { field: 'password', message: 'must be at least 12 characters' },
    ]);
    expect(linkPageError(fields, NEW_LINK)).toBeUndefined();
    const expired = new ApiError(400, 'link_invalid', 'The link has expired.', 'Ask for a new link: …');
    expect(linkPageError(expired, NEW_LINK)).toMatchObject({
      detail: 'The link has expired.',
      resolution: NEW_LINK,
    });
  });
});

describe('waitInWords', () => {
  it('rounds to what a person would say', () => {
    expect(waitInWords(5)).toBe('a few seconds');
    expect(waitInWords(70)).toBe('about a minute');
    expect(waitInWords(14 * 60 + 20)).toBe('about 14 minutes');
    expect(waitInWords(2 * 3600)).toBe('about 2 hours');
  });
});
