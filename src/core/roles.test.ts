import { describe, expect, it } from 'vitest';
import { API_KEY_PERMISSIONS, can, canManageMember, isOnlyOwner, PERMISSIONS } from './roles.js';

describe('can', () => {
  it('lets every role read the brand and only owners and admins write it', () => {
    expect(['owner', 'admin', 'member'].map((role) => can(role as 'owner', 'brand.read'))).toEqual([
      true,
      true,
      true,
    ]);
    expect(can('owner', 'brand.write')).toBe(true);
    expect(can('admin', 'brand.write')).toBe(true);
    expect(can('member', 'brand.write')).toBe(false);
  });

  it('lets every role edit the brand draft, and only owners and admins publish or discard it and change the workspace', () => {
    for (const role of ['owner', 'admin', 'member'] as const)
      expect(can(role, 'brand.draft.write')).toBe(true);
    for (const permission of ['brand.publish', 'workspace.write'] as const) {
      expect(can('member', permission)).toBe(false);
      expect(can('admin', permission)).toBe(true);
      expect(can('owner', permission)).toBe(true);
    }
  });

  it('lets members list keys read-only, and reserves creating and revoking them to owners and admins', () => {
    expect(can('member', 'keys.read')).toBe(true);
    for (const permission of ['keys.write', 'audit.read'] as const) {
      expect(can('member', permission)).toBe(false);
      expect(can('admin', permission)).toBe(true);
      expect(can('owner', permission)).toBe(true);
    }
  });

  it('lets members read and write campaign drafts, and only owners and admins schedule them', () => {
    expect(can('member', 'campaigns.read')).toBe(true);
    expect(can('member', 'campaigns.write')).toBe(true);
    expect(can('member', 'campaigns.schedule')).toBe(false);
    expect(can('admin', 'campaigns.schedule')).toBe(true);
  });

  it('gives owners every permission but sending through /email/v1, which only transactional email keys do', () => {
    for (const permission of Object.keys(PERMISSIONS) as (keyof typeof PERMISSIONS)[]) {
      expect(can('owner', permission)).toBe(permission !== 'email.send');
    }
  });
});

describe('canManageMember', () => {
  it('lets owners manage owners, admins manage everyone but owners, and members no one', () => {
    expect(canManageMember('owner', 'owner')).toBe(true);
    expect(canManageMember('admin', 'owner')).toBe(false);
    expect(canManageMember('admin', 'admin')).toBe(true);
    expect(canManageMember('admin', 'member')).toBe(true);
    expect(canManageMember('member', 'member')).toBe(false);
  });
});

describe('isOnlyOwner', () => {
  it('holds for the one owner of a workspace, not for one of two owners or for anyone else', () => {
    const owner = { role: 'owner' as const };
    const admin = { role: 'admin' as const };
    expect(isOnlyOwner(owner, [owner, admin])).toBe(true);
    expect(isOnlyOwner(owner, [owner, { role: 'owner' }, admin])).toBe(false);
    expect(isOnlyOwner(admin, [owner, admin])).toBe(false);
  });
});

describe('API_KEY_PERMISSIONS', () => {
  it('grants workspace API keys the campaign permissions and nothing else', () => {
    expect([...API_KEY_PERMISSIONS].sort()).toEqual(
      Object.keys(PERMISSIONS)
        .filter((permission) => permission.startsWith('campaigns.'))
        .sort(),
    );
  });
});
