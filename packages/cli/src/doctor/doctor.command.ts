import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactUrl } from '@robot-mcp-kit/core/rules';
import { BROKER_SCHEMES } from '@robot-mcp-kit/core/transport';
import { probeBrokerUrl } from './broker.probe.js';
import { probeCallback } from './callback.probe.js';
import {
  checkEvents,
  checkLogLevel,
  checkNode,
  checkProject,
  type CheckResult,
  type CheckStatus,
  checkTransport,
  defaultTransport,
} from './doctor.checks.js';
import { parseEnvFile } from './env-file.parser.js';

export interface DoctorOptions {
  /** Project root. */
  readonly root: string;
  /** The process environment; it wins over `.env`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly nodeVersion: string;
  /** Deadline of the callback probe. */
  readonly timeoutMs: number;
}

export interface DoctorReport {
  readonly root: string;
  /** The .env file read, if there was one. */
  readonly envFile?: string;
  readonly results: readonly CheckResult[];
  /** How many checks failed; `doctor` exits 1 when this is not 0. */
  readonly failed: number;
}

/**
 * Runs every check: Node.js, the project, the settings (process environment over the project's
 * `.env`, as dist/main.js loads them) and, when RVC_CALLBACK_URL is usable, a POST to it.
 */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const results: CheckResult[] = [checkNode(options.nodeVersion), ...checkProject(options.root)];
  const envPath = join(options.root, '.env');
  let fileValues: Readonly<Record<string, string>> = {};
  let envFile: string | undefined;
  if (existsSync(envPath)) {
    envFile = envPath;
    const parsed = parseEnvFile(readFileSync(envPath, 'utf8'));
    fileValues = parsed.values;
    results.push(
      parsed.errors.length === 0
        ? { name: '.env', status: 'ok', message: `${Object.keys(parsed.values).length} variables read` }
        : {
            name: '.env',
            status: 'fail',
            message: parsed.errors.map((e) => `line ${e.line}: ${e.message}`).join('; '),
            fix: 'fix those lines (KEY=value, one per line)',
          },
    );
  }
  const env: Record<string, string | undefined> = { ...fileValues };
  for (const [key, value] of Object.entries(options.env)) if (value !== undefined) env[key] = value;

  results.push(...checkTransport(env, defaultTransport(options.root)));
  const events = checkEvents(env);
  results.push(...events.results, checkLogLevel(env));
  if (events.url !== undefined) results.push(...(await probeUrl(events.url, options.timeoutMs)));
  return { root: options.root, envFile, results, failed: results.filter((r) => r.status === 'fail').length };
}

/** The `callback` lines: a POST to an http(s) URL, a connection to a broker. */
async function probeUrl(url: string, timeoutMs: number): Promise<CheckResult[]> {
  const shown = redactUrl(url);
  if (BROKER_SCHEMES.includes(new URL(url).protocol)) {
    const outcome = await probeBrokerUrl(url, timeoutMs);
    if (!outcome.ok) {
      const fix =
        outcome.fix ?? 'start the broker, or fix RVC_CALLBACK_URL (host, port, credentials, options)';
      return [{ name: 'callback', status: 'fail', message: outcome.reason, fix }];
    }
    const line: CheckResult = { name: 'callback', status: 'ok', message: outcome.message };
    if (outcome.warning === undefined) return [line];
    return [
      line,
      { name: 'broker', status: 'warn', message: outcome.warning, fix: 'see docs/transports.md, Durability' },
    ];
  }
  const outcome = await probeCallback(url, timeoutMs);
  return [
    outcome.reachable
      ? { name: 'callback', status: 'ok', message: `${shown} answered HTTP ${outcome.status}` }
      : {
          name: 'callback',
          status: 'fail',
          message: `${shown}: ${outcome.reason}`,
          fix: 'start the app, or fix RVC_CALLBACK_URL (host, port, path); events are retried but lost after the queue fills',
        },
  ];
}

const LABELS: Record<CheckStatus, string> = { ok: 'ok  ', info: '-   ', warn: 'warn', fail: 'FAIL' };

/** The report as printed: one line per check, the fix under each warning and failure. */
export function formatReport(report: DoctorReport): string {
  const width = Math.max(...report.results.map((r) => r.name.length));
  const lines = [`robot-mcp-kit doctor: ${report.root}${report.envFile ? ' (with .env)' : ''}`];
  for (const result of report.results) {
    lines.push(`  ${LABELS[result.status]}  ${result.name.padEnd(width)}  ${result.message}`);
    if (result.fix) lines.push(`  ${' '.repeat(4)}  ${' '.repeat(width)}  fix: ${result.fix}`);
  }
  const warnings = report.results.filter((r) => r.status === 'warn').length;
  lines.push(
    report.failed === 0
      ? `No problems${warnings ? ` (${warnings} warning${warnings > 1 ? 's' : ''})` : ''}.`
      : `${report.failed} problem${report.failed > 1 ? 's' : ''} to fix.`,
  );
  return `${lines.join('\n')}\n`;
}
