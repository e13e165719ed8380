/**
 * `npm start`: the whole service at http://localhost:8000 (PORT and DATA_DIR override the port and
 * the data folder). Ctrl-C stops it; the next start reuses the data folder.
 */
import { JavaMissingError } from './engines';
import { DEFAULT_DATA_DIR } from './commands';
import { startRuntime } from './runtime';
import { startLocalSmartFixture } from './smart-fixture';

const port = Number(process.env.PORT ?? 8000);
const dataDir = process.env.DATA_DIR ?? DEFAULT_DATA_DIR;

async function main() {
  const startedAt = Date.now();
  let runtime;
  const smart = await startLocalSmartFixture(process.env.SMART_FIXTURE);
  try {
    runtime = await startRuntime({ port, dataDir, ...(smart ? { portal: smart.portal } : {}) });
  } catch (e) {
    if (e instanceof JavaMissingError) {
      console.error(e.message);
      process.exit(1);
    }
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      console.error(`Port ${port} is already in use; set PORT to another port (e.g. PORT=8001 npm start).`);
      process.exit(1);
    }
    throw e;
  }
  const url = runtime.info.url!;
  const smartNotes = smart ? await smart.ready(runtime.info.siteUrl ?? url, runtime.info.dataDir) : [];
  // With the fixture, the demo invitation was just issued again: the seed's note of it (its line and
  // the indented lines under it) no longer works.
  const seedNotes = smart ? withoutNote(runtime.seedNotes, '  Invitation') : runtime.seedNotes;
  const lines = [
    '',
    `Clinical Data Exchange is running at ${url}  (started in ${((Date.now() - startedAt) / 1000).toFixed(1)} s)`,
    '',
    `  FHIR R5 API        ${url}/FHIR/R5/   (capabilities: ${url}/FHIR/R5/metadata)`,
    `  Management API     ${url}/api/v1/`,
    `  OAuth 2.0          ${url}/o/token/   (discovery: ${url}/.well-known/smart-configuration)`,
    `  Patient portal     ${url}/clients/portal/`,
    `  Assistants (MCP)   ${url}/mcp   (a patient's connections: ${url}/o/connections/)`,
    `  Health             ${url}/health`,
    '',
    ...(seedNotes.length > 0 ? [...seedNotes, ''] : []),
    ...(smartNotes.length > 0 ? [...smartNotes, ''] : []),
    `  Data folder: ${runtime.info.dataDir} (${runtime.seeded ? 'demo data seeded' : 'reused'}; delete it to start over)`,
    '  Press Ctrl-C to stop.',
    '',
  ];
  console.log(lines.join('\n'));

  // Ctrl-C in a terminal signals the whole process group, and npm and tsx pass the signal on as
  // well, so the service gets it more than once: the first one stops it, the others must not kill
  // it half-way (with the engines' data files open) by falling back to the default handler.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\nReceived ${signal}, stopping...`);
    await runtime.stop();
    await smart?.close();
    console.log('Stopped.');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((e) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e);
  process.exit(1);
});

/** The notes less the one that begins with `heading`, with the lines indented under it. */
function withoutNote(notes: readonly string[], heading: string): string[] {
  let dropping = false;
  return notes.filter((line) => {
    dropping = line.startsWith(heading) || (dropping && /^ {4,}/.test(line));
    return !dropping;
  });
}
