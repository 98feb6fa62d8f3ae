import { ConfigError } from '@robot-mcp-kit/core';
import {
  DiscardPolicy,
  type JetStreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import {
  fromCodeOrUrl,
  natsSubjectPrefix,
  natsUrlOptions,
  type NatsUrlOptions,
} from '../shared/broker-url.js';

/** The JetStream stream the events are stored in; created (file-backed) when missing. */
export interface JetStreamStreamOptions {
  /** Default `RMK_EVENTS`. */
  name?: string;
  /** Default `[<subjectPrefix>.>]`. */
  subjects?: readonly string[];
  /** `limits` (default: kept until `maxAgeS`), `interest` or `workqueue` (removed once acknowledged). */
  retention?: 'limits' | 'interest' | 'workqueue';
  /** How long events are kept, in seconds (default 86 400 = one day). */
  maxAgeS?: number;
  /** The `Nats-Msg-Id` deduplication window in seconds (default 600 = the poster's retry cap). */
  duplicateWindowS?: number;
  /** Replicas in a cluster (default 1). */
  replicas?: number;
}

export interface ResolvedStream {
  readonly name: string;
  readonly subjects: string[];
  readonly retention: RetentionPolicy;
  readonly maxAgeS: number;
  readonly duplicateWindowS: number;
  readonly replicas: number;
}

const RETENTION: Record<string, RetentionPolicy> = {
  limits: RetentionPolicy.Limits,
  interest: RetentionPolicy.Interest,
  workqueue: RetentionPolicy.Workqueue,
};

/**
 * The stream options given in code merged with those of the URL (`stream`, `retention`,
 * `max_age_s`). @throws ConfigError when both set one differently.
 */
export function streamWithUrl(
  code: JetStreamStreamOptions = {},
  url: NatsUrlOptions,
): JetStreamStreamOptions {
  const name = fromCodeOrUrl(code.name, url.stream, 'stream.name', 'stream');
  const retention = fromCodeOrUrl(code.retention, url.retention, 'stream.retention', 'retention');
  const maxAgeS = fromCodeOrUrl(code.maxAgeS, url.maxAgeS, 'stream.maxAgeS', 'max_age_s');
  return {
    ...code,
    ...(name !== undefined ? { name } : {}),
    ...(retention !== undefined ? { retention } : {}),
    ...(maxAgeS !== undefined ? { maxAgeS } : {}),
  };
}

/** Applies the defaults. @throws ConfigError naming the bad option. */
export function resolveStream(options: JetStreamStreamOptions = {}, subjectPrefix: string): ResolvedStream {
  const name = options.name ?? 'RMK_EVENTS';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    throw new ConfigError(
      'stream.name',
      `must be 1-64 letters, digits, "-" or "_" (e.g. RMK_EVENTS); got ${JSON.stringify(name)}`,
    );
  }
  const retention = RETENTION[options.retention ?? 'limits'];
  if (retention === undefined) {
    throw new ConfigError(
      'stream.retention',
      `must be limits, interest or workqueue; got ${JSON.stringify(options.retention)}`,
    );
  }
  const seconds = (value: number | undefined, fallback: number, field: string): number => {
    const s = value ?? fallback;
    if (!Number.isInteger(s) || s <= 0)
      throw new ConfigError(field, `must be a positive whole number of seconds; got ${s}`);
    return s;
  };
  const maxAgeS = seconds(options.maxAgeS, 86_400, 'stream.maxAgeS');
  const duplicateWindowS = Math.min(
    seconds(options.duplicateWindowS, 600, 'stream.duplicateWindowS'),
    maxAgeS,
  );
  const replicas = seconds(options.replicas, 1, 'stream.replicas');
  return {
    name,
    subjects: [...(options.subjects ?? [`${subjectPrefix}.>`])],
    retention,
    maxAgeS,
    duplicateWindowS,
    replicas,
  };
}

/** Creates the stream when it does not exist; an existing stream is used as it is. */
export async function ensureStream(
  jsm: JetStreamManager,
  stream: ResolvedStream,
): Promise<'created' | 'exists'> {
  try {
    await jsm.streams.info(stream.name);
    return 'exists';
  } catch (err) {
    if (!isStreamNotFound(err)) throw err;
  }
  const config: Partial<StreamConfig> & { name: string } = {
    name: stream.name,
    subjects: stream.subjects,
    storage: StorageType.File,
    retention: stream.retention,
    discard: DiscardPolicy.Old,
    max_age: nanos(stream.maxAgeS * 1000),
    duplicate_window: nanos(stream.duplicateWindowS * 1000),
    num_replicas: stream.replicas,
  };
  await jsm.streams.add(config);
  return 'created';
}

/**
 * Checks that `sampleSubject` (a subject the transport publishes to) lands in `stream`.
 * @throws Error naming the stream that stores it instead, or saying none does.
 */
export async function checkStreamCovers(
  jsm: JetStreamManager,
  stream: ResolvedStream,
  sampleSubject: string,
): Promise<void> {
  const owner = await jsm.streams.find(sampleSubject).catch(() => undefined);
  if (owner === stream.name) return;
  throw new Error(
    owner === undefined
      ? `stream ${stream.name} does not store ${sampleSubject}; its subjects must include the prefix's ".>"`
      : `${sampleSubject} is stored by stream ${owner}, not ${stream.name}; use stream=${owner}`,
  );
}

/** Why a memory stream is a risk, and the fix. */
export const MEMORY_STREAM_WARNING =
  'the stream keeps events in memory: a NATS restart loses every stored event, acknowledged or not; ' +
  'recreate it with file storage (nats stream add --storage file), see docs/transports.md, Durability';

/** {@link MEMORY_STREAM_WARNING} when `name` is kept in memory, else undefined (also when unknown). */
export async function streamStorageWarning(jsm: JetStreamManager, name: string): Promise<string | undefined> {
  const info = await jsm.streams.info(name).catch(() => undefined);
  return info?.config.storage === StorageType.Memory ? MEMORY_STREAM_WARNING : undefined;
}

function isStreamNotFound(err: unknown): boolean {
  const e = err as { name?: string; message?: string; code?: number; api_error?: { err_code?: number } };
  return e?.name === 'StreamNotFoundError' || /stream not found/i.test(e?.message ?? '');
}

/**
 * The subject prefix and the stream of a JetStream transport or source, from the options given in
 * code and the URL's query. @throws ConfigError naming `url` or the option that is bad or set twice.
 */
export function resolveNatsTarget(
  url: URL,
  subjectPrefix: string | undefined,
  stream: JetStreamStreamOptions | undefined,
): { prefix: string; stream: ResolvedStream } {
  const fromUrl = natsUrlOptions(url, 'url');
  const prefix = natsSubjectPrefix(subjectPrefix, fromUrl);
  return { prefix, stream: resolveStream(streamWithUrl(stream, fromUrl), prefix) };
}
