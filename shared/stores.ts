/**
 * The set of store ports the service keeps its data in, as one value: what each family's handler
 * is built with (`functions/<family>/handler.ts`). The service runs on `dynamoStores` (DynamoDB and
 * S3); tests and tools may build handlers on the in-memory twins (`memory-stores.ts`).
 *
 * A process holds one set at a time (a Lambda runs one family's handler): building a handler with
 * a set installs it for every domain function of the process.
 */
import { useAuxiliaryStore } from './auxiliary/store/current';
import { useBrandStore } from './brands/store/current';
import { dynamoBrandStore } from './brands/store/dynamo';
import type { BrandStore } from './brands/store/port';
import { dynamoAuxiliaryStore } from './auxiliary/store/dynamo';
import type { AuxiliaryStore } from './auxiliary/store/port';
import { useDirectoryStore } from './directory/store/current';
import { dynamoDirectoryStore } from './directory/store/dynamo';
import type { DirectoryStore } from './directory/store/port';
import { useOAuthStore } from './oauth/store/current';
import { dynamoOAuthStore } from './oauth/store/dynamo';
import type { OAuthStore } from './oauth/store/port';
import { useExportStore } from './export/store/current';
import { dynamoExportStore } from './export/store/dynamo';
import type { ExportStore } from './export/store/port';
import { useObservationStore } from './observations/store/current';
import { blockObservationStore } from './observations/store/blocks';
import type { ObservationStore } from './observations/store/port';
import { useSummaryStore } from './observations/store/summary-current';
import { dynamoSummaryStore } from './observations/store/dynamo-summaries';
import type { SummaryStore } from './observations/store/summary-port';
import { useMcpStore } from './mcp/store/current';
import { dynamoMcpStore } from './mcp/store/dynamo';
import type { McpStore } from './mcp/store/port';
import type { LambdaHandler } from './http/handler';

export interface Stores {
  directory: DirectoryStore;
  oauth: OAuthStore;
  observations: ObservationStore;
  /** The observations' day summaries (`Observation/$stats`). */
  summaries: SummaryStore;
  auxiliary: AuxiliaryStore;
  brands: BrandStore;
  exports: ExportStore;
  /** The `/mcp` endpoint's rate windows (in the directory table). */
  mcp: McpStore;
}

/** The service's own stores: DynamoDB tables and the S3 bucket named by `config()`. */
export const dynamoStores: Stores = {
  directory: dynamoDirectoryStore,
  oauth: dynamoOAuthStore,
  observations: blockObservationStore,
  summaries: dynamoSummaryStore,
  auxiliary: dynamoAuxiliaryStore,
  brands: dynamoBrandStore,
  exports: dynamoExportStore,
  mcp: dynamoMcpStore,
};

/** Installs a set of stores for this process; returns the set it replaced (to put it back). */
export function useStores(stores: Stores): Stores {
  return {
    directory: useDirectoryStore(stores.directory),
    oauth: useOAuthStore(stores.oauth),
    observations: useObservationStore(stores.observations),
    summaries: useSummaryStore(stores.summaries),
    auxiliary: useAuxiliaryStore(stores.auxiliary),
    brands: useBrandStore(stores.brands),
    exports: useExportStore(stores.exports),
    mcp: useMcpStore(stores.mcp),
  };
}

/**
 * A family's handler builder from how the family makes its handler: with `stores`, it installs
 * them for the whole process first (the in-memory twins, in tests); without, the handler runs on
 * the stores installed (DynamoDB and S3 unless a test put others).
 */
export function handlerBuilder(make: () => LambdaHandler): (stores?: Stores) => LambdaHandler {
  return (stores) => {
    if (stores) useStores(stores);
    return make();
  };
}
