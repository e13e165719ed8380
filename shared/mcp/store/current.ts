/** The `mcp` family's store this process uses (see `installed`): DynamoDB unless a handler's builder or a test installs another. */
import { installed } from '../../store/installed';
import { dynamoMcpStore } from './dynamo';
import type { McpStore } from './port';

const holder = installed<McpStore>(dynamoMcpStore);

export const mcpStore = holder.current;
export const useMcpStore = holder.use;
