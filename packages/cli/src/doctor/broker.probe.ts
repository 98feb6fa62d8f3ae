import { BROKERS_PACKAGE } from '@robot-mcp-kit/core/transport';

/** What the brokers package's `probeBroker` answers (see `@robot-mcp-kit/brokers`). */
export type BrokerProbeOutcome =
  | { readonly ok: true; readonly message: string; readonly warning?: string }
  | { readonly ok: false; readonly reason: string; readonly fix?: string };

interface BrokersModule {
  probeBroker(url: string, timeoutMs: number): Promise<BrokerProbeOutcome>;
}

/** Loads the brokers package (a seam for tests). */
export type BrokersImport = () => Promise<unknown>;

const importBrokers: BrokersImport = () => import(BROKERS_PACKAGE);

/**
 * Connects to the broker of an `mqtt://`, `mqtts://` or `nats://` callback URL with the kit's own
 * broker package (the one the server loads for that URL), so the URL, its options and the
 * credentials are read exactly as at start-up. The package missing is a failure with the fix.
 */
export async function probeBrokerUrl(
  url: string,
  timeoutMs: number,
  load: BrokersImport = importBrokers,
): Promise<BrokerProbeOutcome> {
  let module: Partial<BrokersModule>;
  try {
    module = (await load()) as Partial<BrokersModule>;
  } catch {
    return {
      ok: false,
      reason: `${BROKERS_PACKAGE} is not installed; the server needs it for this URL`,
      fix: `run npm install ${BROKERS_PACKAGE}`,
    };
  }
  if (typeof module.probeBroker !== 'function') {
    return {
      ok: false,
      reason: `${BROKERS_PACKAGE} is too old to be probed`,
      fix: `run npm install ${BROKERS_PACKAGE}@latest`,
    };
  }
  return module.probeBroker(url, timeoutMs);
}
