/** What a POST to the callback URL got back. */
export type ProbeOutcome = { reachable: true; status: number } | { reachable: false; reason: string };

/**
 * POSTs an empty JSON object to `url` and reports whether anything answered. Any HTTP status
 * counts as reachable: the app will refuse an unsigned probe (401/400), which still proves that
 * the URL, the network path and the app are up.
 */
export async function probeCallback(url: string, timeoutMs: number): Promise<ProbeOutcome> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'robot-mcp-kit-doctor' },
      body: '{}',
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    return { reachable: true, status: response.status };
  } catch (err) {
    return { reachable: false, reason: describeFailure(err, timeoutMs) };
  }
}

interface FetchFailure {
  name?: string;
  message?: string;
  cause?: { code?: string; message?: string };
}

function describeFailure(err: unknown, timeoutMs: number): string {
  // fetch errors may come from another realm (instanceof Error is not reliable): read them by shape
  const failure: FetchFailure =
    typeof err === 'object' && err !== null ? (err as FetchFailure) : { message: String(err) };
  if (failure.name === 'TimeoutError' || failure.name === 'AbortError') {
    return `no answer within ${timeoutMs} ms`;
  }
  const cause = failure.cause;
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return 'connection refused (nothing listens there)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name does not resolve';
    case 'ECONNRESET':
      return 'the connection was reset';
    default:
      return cause?.message ?? failure.message ?? String(err);
  }
}
