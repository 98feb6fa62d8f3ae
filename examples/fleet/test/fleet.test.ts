import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from '@jest/globals';
import { chromium, type Browser } from 'playwright-core';
import { FleetApp } from '../src/fleet-app.js';
import { NAVIGATION_MAIN, type Robot, startRobot } from '../src/robot-fleet.js';

// Needs Mosquitto on 127.0.0.1:1883, the build (`npm run build`: the robots are the built
// navigation example) and Debian's chromium (/usr/bin/chromium; .ci/run installs it).
const CHROMIUM = '/usr/bin/chromium';
const SECRET = 'fleet-test-secret-0123456789abcdef';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
});

function requireTools(): void {
  if (!existsSync(NAVIGATION_MAIN))
    throw new Error(`${NAVIGATION_MAIN} is missing: run "npm run build" first`);
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium (see .ci/run)`);
}

async function launch(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  cleanups.push(() => browser.close());
  return browser;
}

describe('the fleet demo', () => {
  it('shows each robot’s tasks live on the web page, in headless Chromium', async () => {
    requireTools();
    const robots = ['robot-1', 'robot-2', 'robot-3'];
    const app = await FleetApp.start({
      brokerUrl: 'mqtt://127.0.0.1:1883',
      prefix: `fleettest${Date.now().toString(36)}`,
      robots,
      secret: SECRET,
    });
    cleanups.push(() => app.close());
    const browser = await launch();
    const page = await browser.newPage();
    await page.goto(app.url);
    // The robots are listed before they move.
    await page.locator('section.robot').nth(2).waitFor({ timeout: 30_000 });
    expect(
      await page.locator('section.robot').evaluateAll((s) => s.map((e) => e.getAttribute('data-robot'))),
    ).toEqual(robots);

    const started: Robot[] = [];
    for (const name of robots) {
      const robot = await startRobot(name, {
        callbackUrl: app.callbackUrl(name),
        secret: SECRET,
        speedMps: 8,
        tickMs: 200,
      });
      cleanups.push(() => robot.close());
      started.push(robot);
    }
    const goals = ['kitchen', 'lab', 'corridor'];
    const taskIds = await Promise.all(started.map((robot, i) => robot.navigate(goals[i]!)));

    // A running task shows up while it drives, then every task turns succeeded, live (no reload).
    await page.locator(`tr[data-task="${taskIds[1]}"]`).waitFor({ timeout: 30_000 });
    for (const [i, taskId] of taskIds.entries()) {
      const row = page.locator(
        `section[data-robot="${robots[i]}"] tr[data-task="${taskId}"][data-state="succeeded"]`,
      );
      await row.waitFor({ timeout: 60_000 });
      await expect(row.locator('td').nth(3).textContent()).resolves.toBe(goals[i]);
      await expect(
        row
          .locator('progress')
          .evaluate((p) => Number(p.getAttribute('value') ?? (p as unknown as { value: number }).value)),
      ).resolves.toBe(100);
    }
    const status = await page.locator('#status').textContent();
    const stats = app.stats();
    expect(status).toBe(`${app.board.snapshot().events} events verified`);
    expect(stats).toMatchObject({ rejected: 0, gaps: 0 });
    expect(stats.delivered).toBeGreaterThanOrEqual(robots.length * 2);
  }, 150_000);

  it('runs with one command and exits 0 when every robot arrived (--ci)', async () => {
    requireTools();
    const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
      (resolve) => {
        execFile(process.execPath, [main, '--ci'], { timeout: 120_000 }, (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
        );
      },
    );
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/^fleet page: http:\/\/127\.0\.0\.1:\d+\//m);
    expect(stdout).toMatch(/robot-3 +navi-[0-9a-f]{6} # +\d+ ✅ task_done .*✔ verified/);
    expect(stdout).toMatch(/✔ fleet demo: 3 robots, \d+ events verified, 0 rejected, 0 gaps/);
  }, 150_000);
});
