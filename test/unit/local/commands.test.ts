import { describe, expect, it } from 'vitest';
import { tokenCommand } from '../../../local/commands';

describe('the token command the banner prints', () => {
  it('names the data folder when it is not the default, quoted for a shell when needed', () => {
    expect(tokenCommand('practitioner', undefined)).toBe('npm run --silent token -- practitioner');
    expect(tokenCommand('patient', '.data')).toBe('npm run --silent token -- patient');
    expect(tokenCommand('patient', '.data-2')).toBe('DATA_DIR=.data-2 npm run --silent token -- patient');
    expect(tokenCommand('patient', "/tmp/my data's")).toBe(`DATA_DIR='/tmp/my data'\\''s' npm run --silent token -- patient`);
  });
});
