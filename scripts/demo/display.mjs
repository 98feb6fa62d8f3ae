// Terminal output of the demo: lines, and a progress bar that redraws in place on a terminal
// (or prints a line per zone / quarter of the way when animation is off: --ci, DEMO_QUIET=1, pipes).

const BAR_WIDTH = 24;

export function progressBar(percent) {
  const filled = Math.max(0, Math.min(BAR_WIDTH, Math.round((percent / 100) * BAR_WIDTH)));
  return `[${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}]`;
}

const fmt = (value, digits = 1) => (typeof value === 'number' ? value.toFixed(digits) : '?');

export function describeProgress(p) {
  return (
    `${progressBar(p.percent)} ${fmt(p.percent, 0).padStart(3)}%  eta ${fmt(p.eta_s)} s  ` +
    `${String(p.zone).padEnd(8)} (${fmt(p.x)}, ${fmt(p.y)})`
  );
}

export function createDisplay({ animate, out = process.stdout }) {
  let barOpen = false;
  const lastShown = new Map();

  const endBar = () => {
    if (barOpen) out.write('\n');
    barOpen = false;
  };

  return {
    line(text = '') {
      endBar();
      out.write(`${text}\n`);
    },
    /** Shows one progress payload of a task. */
    progress(taskId, payload, mark) {
      const text = `   ${describeProgress(payload)}  ${mark}`;
      if (animate) {
        out.write(`\r${text}\u001b[K`);
        barOpen = true;
        return;
      }
      const quarter = Math.floor(payload.percent / 25);
      const last = lastShown.get(taskId);
      if (last && last.zone === payload.zone && last.quarter === quarter) return;
      lastShown.set(taskId, { zone: payload.zone, quarter });
      out.write(`${text}\n`);
    },
    end: endBar,
  };
}
