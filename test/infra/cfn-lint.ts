/**
 * Runs cfn-lint (the Python CloudFormation linter) on a synthesized template. It is not an npm
 * package: `.ci/run` installs it when missing. Where it is not on PATH the check is skipped with a
 * message, except under `CI=true`, where a missing linter fails the test instead of passing unseen.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface LintFinding {
  Level: 'Error' | 'Warning' | 'Informational';
  Rule: { Id: string };
  Message: string;
}

export function findCfnLint(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'cfn-lint');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

export const cfnLintRequired = (): boolean => process.env.CI === 'true';

/** Every finding (cfn-lint exits non-zero for warnings too, so the exit code alone says little). */
export function cfnLint(executable: string, templatePath: string): LintFinding[] {
  let output: string;
  try {
    output = execFileSync(executable, ['--format', 'json', templatePath], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; status?: number };
    // Exit codes are bits (2 errors, 4 warnings, 8 informational) reported on stdout; 1 or more is a failure to run.
    const findings = typeof failed.status === 'number' && failed.status % 2 === 0 && failed.status <= 14;
    if (!findings || !failed.stdout) throw new Error(`cfn-lint did not run: ${failed.stderr ?? String(error)}`);
    output = failed.stdout;
  }
  return JSON.parse(output) as LintFinding[];
}
