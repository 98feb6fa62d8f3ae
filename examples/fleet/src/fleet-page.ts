/** The fleet page: a table per robot, updated live from `/api/stream` (server-sent events). */
export const FLEET_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>robot-mcp-kit fleet</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 1.5rem; background: #fafafa; color: #222; }
  h1 { font-size: 1.3rem; }
  .robot { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: .6rem 1rem; margin: .8rem 0; }
  .robot h2 { font-size: 1.05rem; margin: .2rem 0 .5rem; }
  table { border-collapse: collapse; width: 100%; }
  td, th { text-align: left; padding: .2rem .5rem; border-bottom: 1px solid #eee; }
  .succeeded { color: #1a7f37; } .failed { color: #cf222e; } .running { color: #0969da; }
  progress { width: 8rem; }
  #status { color: #666; }
</style>
</head>
<body>
<h1>Fleet <span id="status">connecting…</span></h1>
<div id="fleet"></div>
<script>
  const fleet = document.getElementById('fleet');
  const status = document.getElementById('status');
  function text(value) { return value === undefined || value === null ? '' : String(value); }
  function render(snapshot) {
    status.textContent = snapshot.events + ' events verified';
    fleet.replaceChildren(...snapshot.robots.map((r) => {
      const box = document.createElement('section');
      box.className = 'robot';
      box.dataset.robot = r.robot;
      const title = document.createElement('h2');
      title.textContent = r.robot + ' — ' + r.tasks.length + ' task(s), ' + r.events + ' events';
      const table = document.createElement('table');
      table.innerHTML = '<tr><th>task</th><th>state</th><th>progress</th><th>zone</th><th>last event</th></tr>';
      for (const t of r.tasks) {
        const row = table.insertRow();
        row.dataset.task = t.task_id;
        row.dataset.state = t.state;
        row.insertCell().textContent = t.task_id;
        const state = row.insertCell();
        state.textContent = t.state;
        state.className = t.state;
        const progress = document.createElement('progress');
        progress.max = 100;
        progress.value = t.percent || 0;
        const cell = row.insertCell();
        cell.append(progress, ' ' + Math.round(t.percent || 0) + '%');
        row.insertCell().textContent = text(t.zone);
        row.insertCell().textContent = t.last + ' #' + t.seq;
      }
      box.append(title, table);
      return box;
    }));
  }
  const stream = new EventSource('/api/stream');
  stream.onmessage = (message) => render(JSON.parse(message.data));
  stream.onerror = () => { status.textContent = 'reconnecting…'; };
</script>
</body>
</html>
`;
