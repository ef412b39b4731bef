// Where an export's files go: a folder on the server (under EXPORT_FOLDER_ROOT) or an
// S3-compatible bucket through the official AWS SDK. Both overwrite a file of the same name, so a
// retried run rewrites its files instead of adding copies.
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';

export type DestinationSettings =
  | { type: 'FOLDER'; path: string }
  | { type: 'S3'; bucket: string; prefix: string; region: string; endpoint: string | null; forcePathStyle: boolean; accessKeyId: string; secretAccessKey: string };

export interface Destination {
  /** Writes `body` at `key` (a relative path with `/`), replacing any file there; returns where it went. */
  put(key: string, body: Buffer, contentType: string): Promise<string>;
  close(): void;
}

/** `path` resolved, when it is `root` or inside it; undefined otherwise. */
export function insideRoot(root: string, path: string): string | undefined {
  if (!isAbsolute(path)) return undefined;
  const resolved = resolve(path);
  const rel = relative(resolve(root), resolved);
  return rel === '' || (rel.split(sep)[0] !== '..' && !isAbsolute(rel)) ? resolved : undefined;
}

function folder(root: string, path: string): Destination {
  return {
    async put(key, body) {
      const base = insideRoot(root, path);
      if (!base) throw new Error(`the export folder ${path} is not inside EXPORT_FOLDER_ROOT (${root})`);
      const target = join(base, ...key.split('/'));
      await mkdir(dirname(target), { recursive: true });
      // written aside then renamed: a reader never sees half a file under the final name
      const temporary = `${target}.${randomBytes(6).toString('hex')}.partial`;
      await writeFile(temporary, body);
      await rename(temporary, target);
      return target;
    },
    close() {},
  };
}

function s3(settings: Extract<DestinationSettings, { type: 'S3' }>): Destination {
  // the SDK is loaded at the first upload, not at start: only export jobs use it (docs/performance.md, "Memory")
  let client: S3Client | undefined;
  const open = async () => {
    const { S3Client } = await import('@aws-sdk/client-s3');
    return new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
      // checksums only where S3 requires them: several S3-compatible stores refuse the SDK's default trailing checksums
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
    });
  };
  return {
    async put(key, body, contentType) {
      const objectKey = `${settings.prefix}${key}`;
      const { PutObjectCommand } = await import('@aws-sdk/client-s3');
      client ??= await open();
      await client.send(new PutObjectCommand({ Bucket: settings.bucket, Key: objectKey, Body: body, ContentType: contentType }));
      return `s3://${settings.bucket}/${objectKey}`;
    },
    close() {
      client?.destroy();
    },
  };
}

export function openDestination(settings: DestinationSettings, folderRoot: string): Destination {
  return settings.type === 'FOLDER' ? folder(folderRoot, settings.path) : s3(settings);
}
