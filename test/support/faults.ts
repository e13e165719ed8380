/**
 * Faults injected into the real AWS clients, for the paths that must survive them: a middleware on
 * the DynamoDB document client (or on the S3 client) sees every command before it is sent and may
 * answer or throw instead. Everything not faulted reaches DynamoDB Local
 * (or s3rver) as usual.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { dynamo, s3 } from '../../shared/store/clients';

export interface SentCommand {
  name: string;
  input: Record<string, any>;
}

type Next = (args: { input: Record<string, any> }) => Promise<{ output: Record<string, any> }>;
/** Decides for one command: return an output to answer it, throw to fail it, or call `send` to pass it on (possibly changed). */
export type Fault = (command: SentCommand, send: (input?: Record<string, any>) => Promise<Record<string, any>>) => Promise<Record<string, any>>;

interface WithMiddleware {
  middlewareStack: { add: (middleware: never, options: { step: 'initialize'; name: string }) => void; remove: (name: string) => boolean };
}

let counter = 0;

function install(client: WithMiddleware, fault: Fault): () => void {
  const name = `test-fault-${counter++}`;
  client.middlewareStack.add(
    ((next: unknown, context: { commandName?: string }) => async (args: { input: Record<string, any> }) => {
      const command = { name: context.commandName ?? '', input: args.input };
      const output = await fault(command, async (input) => (await (next as Next)({ ...args, input: input ?? args.input })).output);
      return { output, response: {} };
    }) as never,
    { step: 'initialize', name },
  );
  return () => void client.middlewareStack.remove(name);
}

/** Installs a fault for every DynamoDB command until the returned function is called. */
export function injectFault(fault: Fault): () => void {
  return install(dynamo() as unknown as WithMiddleware, fault);
}

/** Installs a fault for every S3 command (the bodies of large auxiliary resources) until the returned function is called. */
export async function injectS3Fault(fault: Fault): Promise<() => void> {
  return install((await s3()) as unknown as WithMiddleware, fault);
}

/** Records the commands sent while installed. */
export function recordCommands(): { commands: SentCommand[]; stop: () => void } {
  const commands: SentCommand[] = [];
  const stop = injectFault(async (command, send) => {
    commands.push(command);
    return send();
  });
  return { commands, stop };
}

export function throttling(): Error {
  return Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ThrottlingException', $retryable: { throttling: true }, $metadata: { httpStatusCode: 400 } });
}

/** What S3 answers when it cannot take a request right now (after the SDK's own retries). */
export function s3Unavailable(): Error {
  return Object.assign(new Error('Please reduce your request rate.'), { name: 'SlowDown', $retryable: {}, $metadata: { httpStatusCode: 503 } });
}

/** A transaction cancelled with these reasons (`code(i)` for the i-th action), as DynamoDB answers one. */
export function cancelled(actions: number, code: (i: number) => string): TransactionCanceledException {
  return new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: Array.from({ length: actions }, (_, i) => ({ Code: code(i) })) });
}

/** Sends the first half of a batch call's items (or keys) and answers the rest as unprocessed. */
export const halfUnprocessed: Fault = async (command, send) => {
  if (command.name === 'BatchWriteItemCommand') {
    const [table, requests] = Object.entries(command.input.RequestItems as Record<string, unknown[]>)[0]!;
    const half = Math.ceil(requests.length / 2);
    const output = await send({ RequestItems: { [table]: requests.slice(0, half) } });
    return { ...output, UnprocessedItems: { [table]: requests.slice(half) } };
  }
  const [table, request] = Object.entries(command.input.RequestItems as Record<string, { Keys: unknown[] }>)[0]!;
  const half = Math.ceil(request.Keys.length / 2);
  const output = await send({ RequestItems: { [table]: { ...request, Keys: request.Keys.slice(0, half) } } });
  return { ...output, UnprocessedKeys: request.Keys.length > half ? { [table]: { ...request, Keys: request.Keys.slice(half) } } : {} };
};

const invocation = new AsyncLocalStorage<string>();

/** Runs `work` as a named invocation, so that a fault can tell its commands from everyone else's. */
export function asInvocation<T>(name: string, work: () => Promise<T>): Promise<T> {
  return invocation.run(name, work);
}

export interface Stopper {
  /** Settles when the invocation has been stopped. */
  stopped: Promise<void>;
  remove: () => void;
}

/** What the commands of a stopped invocation meet. */
export class InvocationStopped extends Error {
  constructor() {
    super('the invocation was stopped: nothing it sends reaches the store any more');
    this.name = 'InvocationStopped';
  }
}

/**
 * Stops the named invocation half-way, as a Lambda killed by its timeout is: its first `allowed`
 * commands of kind `commandName` (DynamoDB or S3) pass, and from the next one on, none of its
 * commands reaches either store again (each fails at once, so the process-wide caches it was
 * filling are not left waiting forever; what it does after that cannot change the stores). With
 * `sending`, the command that stops it still reaches the store and only its answer is lost, so it
 * may have landed. Other invocations pass untouched.
 */
export async function stopInvocation(name: string, commandName: string, allowed: number, options: { sending?: boolean } = {}): Promise<Stopper> {
  let passed = 0;
  let frozen = false;
  let signal = () => undefined as void;
  const stopped = new Promise<void>((resolve) => (signal = resolve));
  const stop: Fault = async (command, send) => {
    if (invocation.getStore() !== name) return send();
    if (!frozen && (command.name !== commandName || passed++ < allowed)) return send();
    const first = !frozen;
    frozen = true;
    if (first && options.sending) await send().catch(() => undefined);
    signal();
    throw new InvocationStopped();
  };
  const removals = [injectFault(stop), await injectS3Fault(stop)];
  return { stopped, remove: () => removals.forEach((remove) => remove()) };
}
