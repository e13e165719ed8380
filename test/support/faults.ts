/**
 * Faults injected into the real DynamoDB client, for the paths that must survive them: a
 * middleware on the document client sees every command before it is sent and may answer or throw
 * instead. Everything not faulted reaches DynamoDB Local as usual.
 */
import { dynamo } from '../../shared/store/clients';

export interface SentCommand {
  name: string;
  input: Record<string, any>;
}

type Next = (args: { input: Record<string, any> }) => Promise<{ output: Record<string, any> }>;
/** Decides for one command: return an output to answer it, throw to fail it, or call `send` to pass it on (possibly changed). */
export type Fault = (command: SentCommand, send: (input?: Record<string, any>) => Promise<Record<string, any>>) => Promise<Record<string, any>>;

let counter = 0;

/** Installs a fault for every command until the returned function is called. */
export function injectFault(fault: Fault): () => void {
  const name = `test-fault-${counter++}`;
  dynamo().middlewareStack.add(
    ((next: unknown, context: { commandName?: string }) => async (args: { input: Record<string, any> }) => {
      const command = { name: context.commandName ?? '', input: args.input };
      const output = await fault(command, async (input) => (await (next as Next)({ ...args, input: input ?? args.input })).output);
      return { output, response: {} };
    }) as never,
    { step: 'initialize', name },
  );
  return () => dynamo().middlewareStack.remove(name);
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
