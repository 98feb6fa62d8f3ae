/*
 * The "browser" mcp-remote opens for its sign-in (through `open` / xdg-open, which run $BROWSER):
 * follows the authorization URL's redirects, keeping cookies, through the test authorization
 * server's automatic sign-in and consent, to mcp-remote's callback with the code. Writes each URL
 * it visits to $RMK_BROWSER_LOG (one per line) so the test can show the flow went through here,
 * and the status and start of the last page (a line starting with `#`).
 *
 *   node test/clients/auto-consent.browser.mjs <authorization url>
 */
/* global fetch, setTimeout */
import { appendFileSync } from 'node:fs';

/**
 * One page load. A page that refuses the connection is loaded again until it answers (as a person
 * reloads it), within 30 s: mcp-remote may open the browser for a step-up sign-in before its
 * callback server listens, and a person at a real browser never outruns that.
 */
async function visit(target, headers) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await fetch(target, { redirect: 'manual', headers });
    } catch (error) {
      if (error?.cause?.code !== 'ECONNREFUSED' || Date.now() > deadline) throw error;
      await new Promise((retry) => setTimeout(retry, 100));
    }
  }
}

let url = process.argv[2];
const jar = new Map();
for (let hop = 0; hop < 20 && url; hop += 1) {
  if (process.env.RMK_BROWSER_LOG) appendFileSync(process.env.RMK_BROWSER_LOG, `${url}\n`);
  const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  const response = await visit(url, cookie ? { cookie } : {});
  for (const header of response.headers.getSetCookie()) {
    const [pair = ''] = header.split(';');
    const eq = pair.indexOf('=');
    if (eq > 0) jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
  const location = response.headers.get('location');
  const body = await response.text();
  url = response.status >= 300 && response.status < 400 && location ? new URL(location, url).href : '';
  if (!url && process.env.RMK_BROWSER_LOG) {
    appendFileSync(
      process.env.RMK_BROWSER_LOG,
      `# ${response.status} ${body.slice(0, 500).replace(/\s+/g, ' ')}\n`,
    );
  }
}
