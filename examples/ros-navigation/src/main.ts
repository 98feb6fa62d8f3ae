#!/usr/bin/env node
import { runServer } from '@robot-mcp-kit/server';
import { batteryBelowTrigger, RoslibRosConnection } from '@robot-mcp-kit/ros';
import { RosNavigationServer } from './ros-navigation.server.js';

// ROSBRIDGE_URL=ws://robot:9090 drives a real robot. Unset, the server starts the rosbridge double
// of @robot-mcp-kit/ros/testing (a simulated Nav2 robot) on a free port: one command, no ROS needed.
// Also: ROS_NAV_ACTION, ROS_BATTERY_TOPIC, ROS_DOCK_SERVICE, ROS_CMD_VEL_TOPIC, and the kit's
// MCP_TRANSPORT, RVC_CALLBACK_URL, RVC_EVENT_SECRET, RMK_READ_ONLY (--read-only).
let url = process.env.ROSBRIDGE_URL?.trim();
if (!url) {
  const { startRosbridgeDouble } = await import('@robot-mcp-kit/ros/testing');
  const double = await startRosbridgeDouble({ speedMps: Number(process.env.ROS_SIM_SPEED_MPS) || 0.5 });
  url = double.url;
  process.stderr.write(`ROSBRIDGE_URL is not set: simulated robot (rosbridge double) at ${url}\n`);
}
const connection = new RoslibRosConnection({ url, server: RosNavigationServer });
// Serve once rosbridge answers, or after 10 s without it: tools then fail with ROS_DISCONNECTED
// until the connection (retried with backoff) comes up.
await connection.whenConnected(10_000).catch(() => {
  process.stderr.write(
    `rosbridge at ${url} is not reachable yet; serving anyway, reconnecting with backoff\n`,
  );
});
await runServer(RosNavigationServer, {
  instance: new RosNavigationServer(connection),
  plugins: [batteryBelowTrigger],
});
