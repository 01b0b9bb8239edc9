import { describe, expect, it } from 'vitest';
import { AppError } from '../../core/errors.js';
import {
  DEFAULT_PASSWORD_WORK_LIMITS,
  hashPassword,
  PasswordHasher,
  SCRYPT_PARAMS,
  scryptParamsFrom,
} from './passwords.js';

const PASSWORD = 'correct horse battery staple';

/** What each call came to: its value, the code of the AppError it was refused with, or 'failed'. */
async function outcomes<T>(calls: Promise<T>[]): Promise<(T | string)[]> {
  const settled = await Promise.allSettled(calls);
  return settled.map((result) => {
    if (result.status === 'fulfilled') return result.value;
    return result.reason instanceof AppError ? result.reason.code : 'failed';
  });
}

describe('scryptParamsFrom', () => {
  it('lowers N only under a test runner, and only to a power of two of at least 1024', () => {
    expect(scryptParamsFrom({ NODE_ENV: 'test', BRAND_CONTEXT_TEST_SCRYPT_N: '1024' })).toEqual({
      N: 1024,
      r: 8,
      p: 1,
    });
    expect(scryptParamsFrom({ NODE_ENV: 'production', BRAND_CONTEXT_TEST_SCRYPT_N: '1024' })).toBe(
      SCRYPT_PARAMS,
    );
    expect(scryptParamsFrom({ BRAND_CONTEXT_TEST_SCRYPT_N: '1024' })).toBe(SCRYPT_PARAMS);
    expect(scryptParamsFrom({ NODE_ENV: 'test', BRAND_CONTEXT_TEST_SCRYPT_N: '1000' })).toBe(SCRYPT_PARAMS);
    expect(scryptParamsFrom({ NODE_ENV: 'test', BRAND_CONTEXT_TEST_SCRYPT_N: '512' })).toBe(SCRYPT_PARAMS);
  });
});

describe('PasswordHasher', () => {
  it('verifies the password it hashed, and nothing else', async () => {
    const hasher = new PasswordHasher();
    const stored = await hasher.hash(PASSWORD);
    expect(stored).toMatch(/^scrypt\$131072\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(stored).not.toContain(PASSWORD);
    const [right, wrong, noHash, foreign] = await Promise.all([
      hasher.verify(PASSWORD, stored),
      hasher.verify('incorrect horse battery staple', stored),
      hasher.verify(PASSWORD, null),
      hasher.verify(PASSWORD, 'bcrypt$2b$10$whatever'),
    ]);
    expect({ right, wrong, noHash, foreign }).toEqual({
      right: true,
      wrong: false,
      noHash: false,
      foreign: false,
    });
  });

  it('runs at most `concurrent` checks with `queued` waiting; the rest get 503 sign_in_busy with Retry-After at once', async () => {
    const hasher = new PasswordHasher({ concurrent: 2, queued: 3 });
    const stored = await hasher.hash(PASSWORD);
    const calls = Array.from({ length: 10 }, (_, i) => hasher.verify(i % 2 ? PASSWORD : 'wrong', stored));
    const refusal = await calls[9]?.catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AppError);
    if (refusal instanceof AppError) {
      expect(refusal.status).toBe(503);
      expect(refusal.headers).toEqual({ 'retry-after': '1' });
    }
    // the first five were admitted and answer correctly, the queued ones included
    expect(await outcomes(calls)).toEqual([
      false,
      true,
      false,
      true,
      false,
      ...Array<string>(5).fill('sign_in_busy'),
    ]);
  });

  it('frees its slots once checks are done, also when they fail or are refused', async () => {
    const hasher = new PasswordHasher({ concurrent: 1, queued: 1 });
    const stored = await hasher.hash(PASSWORD);
    // invalid scrypt parameters make the derivation itself fail
    const broken = 'scrypt$3$8$1$c2FsdA$aGFzaA';
    expect(
      await outcomes<boolean | string>([hasher.verify(PASSWORD, broken), hasher.hash(PASSWORD)]),
    ).toEqual(['failed', expect.stringMatching(/^scrypt\$/) as string]);
    expect(
      await outcomes([
        hasher.verify(PASSWORD, stored),
        hasher.verify(PASSWORD, stored),
        hasher.verify(PASSWORD, stored),
      ]),
    ).toEqual([true, true, 'sign_in_busy']);
    expect(await outcomes([hasher.verify(PASSWORD, stored), hasher.verify(PASSWORD, stored)])).toEqual([
      true,
      true,
    ]);
  });
});

describe('hashPassword', () => {
  it('setting a password shares the process’s bound: beyond it, 503 sign_in_busy', async () => {
    const { concurrent, queued } = DEFAULT_PASSWORD_WORK_LIMITS;
    const hashes = await outcomes(
      Array.from({ length: concurrent + queued + 1 }, () => hashPassword(PASSWORD)),
    );
    expect(hashes.filter((hash) => hash === 'sign_in_busy')).toHaveLength(1);
  });
});
