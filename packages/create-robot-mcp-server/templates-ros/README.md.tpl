# {{name}}

{{description}}

A ROS 2 robot behind the Model Context Protocol (MCP) on robot-mcp-kit {{kitVersion}} and
`@robot-mcp-kit/ros`: Nav2's NavigateToPose runs as a long-running tool with progress and triggers,
the battery topic feeds `battery_below`, and an e-stop stays offered under `--read-only`.

## Quickstart

```sh
npm install
npm test                 # typecheck + tests against a simulated robot (the kit's rosbridge double)
npm run build
npm start                                       # no ROSBRIDGE_URL: a simulated robot
ROSBRIDGE_URL=ws://robot.local:9090 npm start   # a real robot running rosbridge_server
```

## What is in here

| path | what |
| --- | --- |
| `src/{{name}}.server.ts` | the `{{className}}` class: `navigate_to_pose` (Nav2 action), `get_battery` (topic), `emergency_stop` |
| `src/main.ts` | connects to rosbridge (`ROSBRIDGE_URL`, or starts the double) and starts the server |
| `src/plugins.ts` | trigger plugins: `battery_below` |
| `test/` | tests against the rosbridge double with the official MCP client (`test/support/harness.ts`) |
| `.env.example` | the kit's settings, commented; add `ROSBRIDGE_URL` |
| `deploy/{{name}}.service` | a hardened systemd unit |

Faults (rosbridge gone mid-goal → `ROS_DISCONNECTED`), safety and the ROS → kit mapping: docs/ros.md
of robot-mcp-kit.
