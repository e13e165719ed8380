/**
 * Reading a value the stack publishes in SSM Parameter Store (the public site URL, which cannot be a
 * plain environment variable of the functions: docs/operations.md). Loaded on first use, so only a
 * deployment that names a parameter pays for the client.
 */
import { traced } from '../telemetry/tracer';

/** The parameter's value; throws when it is missing or empty. */
export async function readParameter(name: string): Promise<string> {
  const { SSMClient, GetParameterCommand } = await import('@aws-sdk/client-ssm');
  const client = traced(new SSMClient({}));
  try {
    const out = await client.send(new GetParameterCommand({ Name: name }));
    const value = out.Parameter?.Value;
    if (!value) throw new Error(`SSM parameter ${name} is empty`);
    return value;
  } finally {
    client.destroy();
  }
}
