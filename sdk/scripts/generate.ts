/**
 * `npm run sdk`: regenerates the typed client in sdk/src/gen from the service's own OpenAPI
 * document, with @hey-api/openapi-ts and its fetch client. `npm run sdk -- <dir>` writes the
 * client into <dir>/src/gen instead.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@hey-api/openapi-ts';
import { openApiDocument } from './openapi-document.js';

const SDK_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Writes the client into `<root>/src/gen` (replacing what is there). The document is not kept:
 * the service serves it, and the generated types say everything it does.
 */
export async function generateSdk(root: string = SDK_ROOT, document?: Record<string, unknown>): Promise<void> {
  const work = mkdtempSync(path.join(tmpdir(), 'billing-sdk-'));
  try {
    const documentPath = path.join(work, 'openapi.json');
    writeFileSync(documentPath, JSON.stringify(document ?? (await openApiDocument())));
    await createClient({
      input: documentPath,
      output: { path: path.join(root, 'src', 'gen'), importFileExtension: '.js', clean: true },
      logs: { level: 'silent' },
      // the fetch client, the types of every schema and operation, one function per operation (named by its operationId).
      // Calls throw on a 4xx/5xx unless told `throwOnError: false`, so `data` is typed as present.
      plugins: [{ name: '@hey-api/client-fetch', throwOnError: true }, '@hey-api/typescript', '@hey-api/sdk'],
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await generateSdk(process.argv[2] ? path.resolve(process.argv[2]) : SDK_ROOT);
}
