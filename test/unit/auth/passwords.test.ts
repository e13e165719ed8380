import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../../shared/auth/passwords';

describe('passwords', () => {
  it('verifies the right password only, with a fresh salt each time', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('correct horsE', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
  });

  it('never matches a missing or malformed hash', async () => {
    for (const stored of [undefined, '', 'plain', 'scrypt$1$2$3', 'bcrypt$1$2$3$x$y', 'scrypt$99999999$8$1$AAAA$AAAA']) {
      expect(await verifyPassword('x', stored)).toBe(false);
    }
  });
});
