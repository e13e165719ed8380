/**
 * The linter keeps authentication where routes are dispatched: code of the service other than a
 * family's handler.ts that imports shared/auth/authenticate.ts is refused (eslint.config.mjs), shown
 * by planting such an import in a handler's domain file and in a family's route file.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

/** The rules the linter reports for `code` as if it were the file at `filePath`. */
async function refusals(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

const PLANTED = (from: string) => `import { authenticate } from '${from}';\nexport const again = authenticate;\n`;

describe('the import of the authenticator', () => {
  it('is refused in a domain file and in a route file of a family', async () => {
    for (const [file, from] of [
      ['shared/observations/planted.ts', '../auth/authenticate'],
      ['functions/api/planted.ts', '../../shared/auth/authenticate'],
    ] as const) {
      expect(await refusals(file, PLANTED(from)), file).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*Only a family's handler\.ts imports the authenticator/)]);
    }
  }, 60_000);

  it("is allowed in a family's handler.ts, which passes it to createHandler", async () => {
    expect(await refusals('functions/api/handler.ts', PLANTED('../../shared/auth/authenticate'))).toEqual([]);
  }, 60_000);
});
