# Settings of {{name}}. Copy this file to .env (git-ignored) for local runs: dist/main.js loads it,
# and variables already set in the environment win. `npm run doctor` checks them.
# Under systemd put them in /etc/{{name}}/env instead (see deploy/{{name}}.service).

# The chat app's events endpoint: task events (progress, trigger_fired, task_done, ...) are POSTed
# there, signed. Unset: events are only logged at debug level, so the server runs standalone.
# RVC_CALLBACK_URL=http://127.0.0.1:8000/api/agent/events

# HMAC secret shared with the receiving app (its entry for this server, e.g. in mcp.yaml). Required when
# RVC_CALLBACK_URL is set. Generate one with: openssl rand -hex 32
# RVC_EVENT_SECRET=

# MCP transport: stdio (the client starts the server), streamable-http (/mcp) or sse (/sse).
# MCP_TRANSPORT={{transport}}

# Where the HTTP transports listen. Keep the loopback address unless a proxy in front
# authenticates callers: the tools move the robot.
# MCP_HOST=127.0.0.1
# MCP_PORT=9100

# error | warn | info | debug
# LOG_LEVEL=info

# --- Safety on the network (HTTP transports) ---
# Bearer token every HTTP request must carry (16+ characters; openssl rand -hex 32). Required when
# MCP_HOST is not a loopback address, unless RMK_ALLOW_UNAUTHENTICATED=1 (trusted networks only).
# RMK_AUTH_TOKEN=
# RMK_ALLOW_UNAUTHENTICATED=0
# Extra Host / Origin values accepted besides loopback (DNS-rebinding protection), comma-separated.
# RMK_ALLOWED_HOSTS=robot.local,robot.local:9100
# RMK_ALLOWED_ORIGINS=https://app.example.org
# Concurrent HTTP sessions (more get 503) and idle seconds before a session is closed (0 = never).
# RMK_MAX_SESSIONS=100
# RMK_SESSION_IDLE_S=1800

# --- Which tools are offered ---
# Offer only the tools that do not act, and/or only these tool globs ("!" excludes).
# RMK_READ_ONLY=0
# RMK_ALLOW_TOOLS=get_*,list_tasks,!reset_*
# Keep cancelOnDisconnect tasks running when their session ends: 1, or tool globs.
# RMK_KEEP_TASKS=0

# --- The agent event feed and tasks:// resources ---
# get_events / wait_for_event on (1) or off (0), and how many feed entries are kept.
# RMK_EVENT_FEED=1
# RMK_EVENT_BUFFER=500
# Minimum milliseconds between two updates of one tasks:// resource.
# RMK_RESOURCE_UPDATE_MS=250
