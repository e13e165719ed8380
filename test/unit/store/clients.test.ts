import { describe, expect, it } from 'vitest';
import { dynamo } from '../../../shared/store/clients';

describe('the DynamoDB client', () => {
  it("runs without the SDK's logger middleware (it filters every row of every answer for a logger we never set)", () => {
    const names = dynamo().middlewareStack.identify().join('\n');
    expect(names).not.toMatch(/loggerMiddleware/);
    expect(names).toMatch(/retryMiddleware/);
  });
});
