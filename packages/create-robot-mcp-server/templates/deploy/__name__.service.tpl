# systemd unit of {{name}}. Install (as root):
#   useradd --system --no-create-home --shell /usr/sbin/nologin {{name}}
#   mkdir -p /opt/{{name}} && cp -r dist node_modules package.json /opt/{{name}}/
#   install -d -m 0750 /etc/{{name}} && install -m 0600 /dev/null /etc/{{name}}/env   # then edit it
#   cp deploy/{{name}}.service /etc/systemd/system/ && systemctl daemon-reload
#   systemctl enable --now {{name}} && journalctl -u {{name}} -f
# Devices the robot needs (serial ports, cameras): add the user to their group (SupplementaryGroups=).

[Unit]
Description={{unitDescription}} (MCP capability server {{name}})
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User={{name}}
Group={{name}}
WorkingDirectory=/opt/{{name}}
ExecStart=/usr/bin/env node /opt/{{name}}/dist/main.js
Environment=NODE_ENV=production
# Cap the long-lived heap: V8 otherwise lets garbage grow the RSS to ~4x the live heap under load
# (see robot-mcp-kit docs/benchmarks.md: 10,000 running tasks peak at ~200 MB with this cap).
Environment=NODE_OPTIONS=--max-old-space-size=512
Environment=MCP_TRANSPORT={{serviceTransport}}
# Loopback only: put an authenticating proxy in front before exposing the tools.
Environment=MCP_HOST=127.0.0.1
Environment=MCP_PORT=9100
# RVC_CALLBACK_URL, RVC_EVENT_SECRET (and overrides of the above) go here, mode 0600.
EnvironmentFile=-/etc/{{name}}/env
Restart=on-failure
RestartSec=2
# runServer() cancels running tasks and flushes events on SIGTERM (10 s deadline).
TimeoutStopSec=20
StandardOutput=journal
StandardError=journal
SyslogIdentifier={{name}}

# Hardening
NoNewPrivileges=yes
PrivateTmp=yes
ProtectSystem=strict
ProtectHome=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
RestrictSUIDSGID=yes
RestrictNamespaces=yes
LockPersonality=yes
CapabilityBoundingSet=
AmbientCapabilities=
UMask=0077

[Install]
WantedBy=multi-user.target
