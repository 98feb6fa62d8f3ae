# {{name}}

{{description}}

A robot capability server on robot-mcp-kit {{kitVersion}}: it serves its tools over the Model
Context Protocol (MCP), runs long tasks in the background with progress, and pushes signed task
events to the chat app.

## Quickstart

```sh
npm install
npm test                 # typecheck + tests (the official MCP client, in memory)
npm run build
npm start                # serves the tools (default transport: {{transport}})
```

## What is in here

| path | what |
| --- | --- |
| `src/{{name}}.server.ts` | the `{{className}}` class: `@LongRunningTool` `{{lrTool}}`, `@Tool` `{{plainTool}}`, `@Trigger` `step_reached` |
| `src/main.ts` | starts the server (`runServer`) on the configured transport |
| `src/plugins.ts` | this server's trigger plugins (`src/triggers/`) |
| `test/` | tests that drive the server with the official MCP client (`test/support/harness.ts`) |
| `.env.example` | the settings, commented |
| `deploy/{{name}}.service` | a hardened systemd unit |

## Grow it

```sh
npm run kit -- add tool scan_room --long-running    # DTO + method in the server class + test
npm run kit -- add tool grasp --actuates            # a plain tool that acts on the world
npm run kit -- add tool get_battery                 # a plain tool that only reads
npm run kit -- add trigger battery_below            # src/triggers/battery-below.trigger.ts, registered
npm run doctor                                      # checks Node, the settings and the callback URL
```

`npm run kit` runs the `robot-mcp-kit` CLI installed in `node_modules` (never a download). A tool
that moves, grips or switches something is marked `actuates: true`: it is annotated destructive and
hidden when the server runs with `--read-only` (the tests check both). Every tool also gets
`ctx.tasks` to list and cancel this server's tasks — write an `emergency_stop` with
`await ctx.tasks.cancelAll()`.

A long-running tool's method gets `(args, ctx)`: report progress with `await ctx.progress({...})`,
wait with `await ctx.sleep(ms)` (cancellable), and return the result object. Throw
`new TaskError('CODE', 'message')` (from `@robot-mcp-kit/server`) to fail the task with a code the
LLM can act on. Callers attach triggers (`{"type": "eta_below", "seconds": 10}`) and get a
`trigger_fired` event when one matches.

## Connect a client

Build first (`npm run build`). Over stdio the client starts the server itself.

**Claude Code**

```sh
claude mcp add {{name}} -e MCP_TRANSPORT=stdio -- node {{mainPathShell}}
```

**Claude Desktop** (`claude_desktop_config.json`)

```json
{
  "mcpServers": {
    "{{name}}": {
      "command": "node",
      "args": [{{mainPathJson}}],
      "env": { "MCP_TRANSPORT": "stdio" }
    }
  }
}
```

**MCP Inspector** (try the tools by hand)

```sh
MCP_TRANSPORT=stdio npx @modelcontextprotocol/inspector node dist/main.js
```

**Over HTTP** (the server runs on its own, e.g. under systemd)

```sh
MCP_TRANSPORT=streamable-http MCP_PORT=9100 npm start
claude mcp add --transport http {{name}} http://127.0.0.1:9100/mcp
```

## Configuration

Set in the environment, in `.env` (copy `.env.example`; loaded by `dist/main.js`, the environment
wins) or, deployed, in `/etc/{{name}}/env`.

| variable | meaning | default |
| --- | --- | --- |
| `RVC_CALLBACK_URL` | the chat app's events endpoint; unset: events are only logged | unset |
| `RVC_EVENT_SECRET` | HMAC secret shared with the receiving app (its entry for this server, e.g. in the reference chat app's `mcp.yaml`); required with the URL | unset |
| `MCP_TRANSPORT` | `stdio`, `streamable-http` or `sse` | `{{transport}}` |
| `MCP_HOST` / `MCP_PORT` | where the HTTP transports listen | `127.0.0.1` / `9100` |
| `LOG_LEVEL` | `error`, `warn`, `info`, `debug` (logs go to stderr) | `info` |

`npm run doctor` checks them and says what to fix.

## Deploy

`deploy/{{name}}.service` runs the server as its own system user on 127.0.0.1:9100 with systemd's
sandboxing (NoNewPrivileges, PrivateTmp, ProtectSystem=strict, ProtectHome), restarts it on
failure and logs to the journal. The install steps are at the top of the file.
