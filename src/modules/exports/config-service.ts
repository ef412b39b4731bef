// A tenant's export configuration: schedule, format and destination (docs/export.md). The S3
// secret key is sealed with the service secret, as payment provider keys and webhook secrets are.
import { access, constants, mkdir, stat } from 'node:fs/promises';
import type { Pool } from '../../db/pool.js';
import { withTx } from '../../db/tx.js';
import type { Clock } from '../../kernel/clock.js';
import { MS_PER_DAY, MS_PER_HOUR } from '../../kernel/clock.js';
import { badRequest, notFound } from '../../kernel/errors.js';
import { secretHint, type SecretBox } from '../../kernel/secret-box.js';
import { privateAddressProblem, urlShapeProblem, type LookupAll } from '../../adapters/http/url-guard.js';
import type { DatasetName } from './datasets.js';
import type { DestinationSettings } from './destinations.js';
import { insideRoot } from './destinations.js';
import { FORMATS, type ExportFormat } from './formats.js';
import * as repo from './repository.js';
import type { ExportConfigRow, Schedule } from './repository.js';

export const SCHEDULES = ['HOURLY', 'DAILY'] as const;

export interface ConfigInput {
  enabled?: boolean;
  schedule: string;
  format: string;
  destination: {
    type: string;
    path?: string;
    bucket?: string;
    prefix?: string;
    region?: string;
    endpoint?: string | null;
    force_path_style?: boolean;
    access_key_id?: string;
    secret_access_key?: string;
  };
}

export interface ExportConfig {
  row: ExportConfigRow;
  watermarks: Map<DatasetName, Date>;
}

export type Environment = 'production' | 'sandbox';

/** The first schedule tick after `now`: the next full UTC hour, or the next UTC midnight. */
export function nextTick(schedule: Schedule, now: Date): Date {
  const step = schedule === 'HOURLY' ? MS_PER_HOUR : MS_PER_DAY;
  return new Date((Math.floor(now.getTime() / step) + 1) * step);
}

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION = /^[a-z0-9-]{1,64}$/;
const PREFIX_MAX_CHARS = 512;

/** Context of the sealed secret: a sealed key copied to another tenant's row does not open there. */
export const secretContext = (tenantId: string) => `${tenantId}:export-destination`;

export function createExportConfigService(deps: { pool: Pool; clock: Clock; folderRoot: string; box: SecretBox; lookup?: LookupAll }) {
  const { pool, clock, box } = deps;

  function oneOf<T extends string>(value: string, allowed: readonly T[], field: string): T {
    if (!(allowed as readonly string[]).includes(value)) throw badRequest(`${field} must be one of ${allowed.join(', ')}, e.g. "${allowed[0]}"; got '${value}'`);
    return value as T;
  }

  function text(value: string | undefined, field: string, example: string): string {
    const trimmed = value?.trim();
    if (!trimmed) throw badRequest(`${field} is required for this destination type, e.g. "${example}"`);
    return trimmed;
  }

  async function folderPath(raw: string | undefined): Promise<string> {
    const example = `${deps.folderRoot}/acme`;
    const path = insideRoot(deps.folderRoot, text(raw, 'destination.path', example));
    if (!path) throw badRequest(`destination.path must be an absolute folder inside the export folder root ${deps.folderRoot} (EXPORT_FOLDER_ROOT), e.g. "${example}"; got '${raw}'`);
    try {
      await mkdir(path, { recursive: true });
      if (!(await stat(path)).isDirectory()) throw new Error('not a folder');
      await access(path, constants.W_OK);
    } catch (error) {
      throw badRequest(`destination.path '${raw}' cannot be written by the service (${(error as Error).message}); give a folder it can create or write, e.g. "${example}"`);
    }
    return path;
  }

  async function endpoint(raw: string | null | undefined, environment: Environment): Promise<string | null> {
    const trimmed = raw?.trim();
    if (!trimmed) return null;
    const problem = urlShapeProblem(trimmed, 'destination.endpoint')
      ?? (environment === 'production' ? await privateAddressProblem(trimmed, 'destination.endpoint', deps.lookup) : undefined);
    if (problem) throw badRequest(`${problem}, e.g. "https://s3.eu-west-3.amazonaws.com"; got '${trimmed}'`);
    return trimmed.replace(/\/+$/, '');
  }

  function prefix(raw: string | undefined): string {
    const value = (raw ?? '').trim().replace(/^\/+/, '');
    if (value.length > PREFIX_MAX_CHARS) throw badRequest(`destination.prefix must be at most ${PREFIX_MAX_CHARS} characters, e.g. "billing/exports/"`);
    return value === '' || value.endsWith('/') ? value : `${value}/`;
  }

  async function destinationColumns(tenantId: string, input: ConfigInput['destination'], environment: Environment, current: ExportConfigRow | undefined) {
    const type = oneOf(input.type, ['FOLDER', 'S3'] as const, 'destination.type');
    const none = { folder_path: null, s3_bucket: null, s3_prefix: '', s3_region: null, s3_endpoint: null, s3_force_path_style: false, s3_access_key_id: null, s3_secret_access_key_sealed: null, s3_secret_access_key_hint: null };
    if (type === 'FOLDER') return { ...none, destination_type: type, folder_path: await folderPath(input.path) };
    const bucket = text(input.bucket, 'destination.bucket', 'acme-billing-exports');
    if (!BUCKET.test(bucket)) throw badRequest(`destination.bucket must be an S3 bucket name (3 to 63 lower-case letters, digits, dots and hyphens), e.g. "acme-billing-exports"; got '${bucket}'`);
    const region = text(input.region, 'destination.region', 'eu-west-3');
    if (!REGION.test(region)) throw badRequest(`destination.region must be a region name of lower-case letters, digits and hyphens, e.g. "eu-west-3"; got '${region}'`);
    const accessKeyId = text(input.access_key_id, 'destination.access_key_id', 'AKIAIOSFODNN7EXAMPLE');
    const url = await endpoint(input.endpoint, environment);
    let sealed: string;
    let hint: string;
    const secret = input.secret_access_key?.trim();
    if (secret) {
      sealed = box.seal(secret, secretContext(tenantId));
      hint = secretHint(secret);
    } else if (current?.destination_type === 'S3' && current.s3_access_key_id === accessKeyId && current.s3_secret_access_key_sealed) {
      // the same key id without a secret keeps the stored secret (it is never shown, so it cannot be sent back)
      sealed = current.s3_secret_access_key_sealed;
      hint = current.s3_secret_access_key_hint ?? '';
    } else {
      throw badRequest('destination.secret_access_key is required with a new access_key_id, e.g. "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"');
    }
    return {
      ...none, destination_type: type, s3_bucket: bucket, s3_prefix: prefix(input.prefix), s3_region: region, s3_endpoint: url,
      // a custom endpoint (MinIO, a local server) usually has no per-bucket host names
      s3_force_path_style: input.force_path_style ?? url !== null, s3_access_key_id: accessKeyId, s3_secret_access_key_sealed: sealed, s3_secret_access_key_hint: hint,
    };
  }

  async function get(tenantId: string): Promise<ExportConfig> {
    const row = await repo.findConfig(pool, tenantId);
    if (!row) throw notFound('export configuration');
    return { row, watermarks: await repo.watermarks(pool, tenantId) };
  }

  /** Creates or replaces the configuration; the schedule's next tick is kept when the schedule is unchanged. */
  async function put(tenantId: string, environment: Environment, input: ConfigInput): Promise<ExportConfig> {
    const schedule = oneOf(input.schedule, SCHEDULES, 'schedule');
    const format: ExportFormat = oneOf(input.format, FORMATS, 'format');
    const enabled = input.enabled ?? true;
    const current = await repo.findConfig(pool, tenantId);
    const destination = await destinationColumns(tenantId, input.destination, environment, current);
    const now = clock.now();
    const keepTick = current?.enabled && current.schedule === schedule && current.next_run_at;
    const row: ExportConfigRow = {
      enabled, schedule, format, ...destination,
      next_run_at: enabled ? (keepTick ? current.next_run_at : nextTick(schedule, now)) : null,
      created_at: current?.created_at ?? now, updated_at: now,
    };
    await withTx(pool, (tx) => repo.upsertConfig(tx, tenantId, row));
    return get(tenantId);
  }

  /** Stops scheduled exports; runs and watermarks stay, so a new configuration goes on where exports stopped. */
  async function remove(tenantId: string): Promise<void> {
    if (!(await repo.deleteConfig(pool, tenantId))) throw notFound('export configuration');
  }

  /** Where files go, with the secret opened: for a run only, never for an answer. */
  function destinationOf(tenantId: string, row: ExportConfigRow): DestinationSettings {
    if (row.destination_type === 'FOLDER') return { type: 'FOLDER', path: row.folder_path! };
    return {
      type: 'S3', bucket: row.s3_bucket!, prefix: row.s3_prefix, region: row.s3_region!, endpoint: row.s3_endpoint, forcePathStyle: row.s3_force_path_style,
      accessKeyId: row.s3_access_key_id!, secretAccessKey: box.open(row.s3_secret_access_key_sealed!, secretContext(tenantId)),
    };
  }

  return { get, put, remove, destinationOf };
}

export type ExportConfigService = ReturnType<typeof createExportConfigService>;

/** What a run records of its destination: where, never the secret. */
export function describeDestination(row: ExportConfigRow): Record<string, unknown> {
  if (row.destination_type === 'FOLDER') return { type: 'FOLDER', path: row.folder_path };
  return { type: 'S3', bucket: row.s3_bucket, prefix: row.s3_prefix, region: row.s3_region, endpoint: row.s3_endpoint };
}

