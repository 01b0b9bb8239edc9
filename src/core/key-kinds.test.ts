import { describe, expect, it } from 'vitest';
import { capitalizedLabel, KEY_KIND_LIST, KEY_KINDS, keyKindOfToken, mapKeyKinds } from './key-kinds.js';
import { PERMISSIONS } from './roles.js';
import { KEY_FORMATS, redactKeys } from './secret-keys.js';

describe('KEY_KINDS', () => {
  it('gives every kind its own prefix, id prefix, collection, CLI command, env var and code name', () => {
    for (const field of ['prefix', 'idPrefix', 'collection', 'command', 'envVar', 'codeName'] as const) {
      const values = KEY_KIND_LIST.map((kind) => kind[field]);
      expect(new Set(values).size, field).toBe(values.length);
    }
  });

  it('keys every row by its own id', () => {
    for (const [id, kind] of Object.entries(KEY_KINDS)) expect(kind.id).toBe(id);
  });

  it('has no prefix that begins another, so a token names at most one kind', () => {
    for (const kind of KEY_KIND_LIST)
      for (const other of KEY_KIND_LIST)
        if (other !== kind) expect(other.prefix.startsWith(kind.prefix)).toBe(false);
  });

  it('ends every prefix with "_", which redaction and the key format expect', () => {
    for (const kind of KEY_KIND_LIST) expect(kind.prefix).toMatch(/^[a-z]+_$/);
  });

  it('accepts every kind on at least one surface, and grants and lists it only by permissions roles know', () => {
    for (const kind of KEY_KIND_LIST) {
      expect(kind.surfaces.length, kind.id).toBeGreaterThan(0);
      for (const permission of [...kind.permissions, kind.listPermission])
        expect(Object.keys(PERMISSIONS)).toContain(permission);
    }
  });
});

describe('keyKindOfToken', () => {
  it('names the kind of a key of every kind, and none for a user token or a stray word', () => {
    for (const kind of KEY_KIND_LIST) expect(keyKindOfToken(KEY_FORMATS[kind.id].generate())).toBe(kind);
    expect(keyKindOfToken('eyJhbGciOiJIUzI1NiJ9.e30.c2ln')).toBeUndefined();
    expect(keyKindOfToken('password')).toBeUndefined();
  });
});

describe('the derived formats and redaction', () => {
  it('makes each kind a format of its own prefix, which rejects the keys of every other kind', () => {
    for (const kind of KEY_KIND_LIST) {
      const key = KEY_FORMATS[kind.id].generate();
      expect(key.startsWith(kind.prefix)).toBe(true);
      for (const other of KEY_KIND_LIST)
        if (other !== kind) expect(KEY_FORMATS[other.id].formatProblem(key)).toBe('format');
    }
  });

  it('masks a key of every kind, keeping only its prefix', () => {
    for (const kind of KEY_KIND_LIST) {
      const key = KEY_FORMATS[kind.id].generate();
      expect(redactKeys(`sent ${key} here`)).toBe(`sent ${kind.prefix}[REDACTED] here`);
    }
  });
});

describe('mapKeyKinds and capitalizedLabel', () => {
  it('makes one value per kind from its row', () => {
    expect(mapKeyKinds((kind) => kind.prefix)).toEqual({ brand: 'brk_', api: 'wsk_', email: 'tek_' });
  });

  it('capitalizes only the first letter of a label, as headings start it', () => {
    expect(capitalizedLabel(KEY_KINDS.brand)).toBe('Brand read key');
    expect(capitalizedLabel(KEY_KINDS.api)).toBe('Workspace API key');
  });
});
