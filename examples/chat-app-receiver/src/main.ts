#!/usr/bin/env node
// The app side of the contract in a dozen lines: receive, verify, dedupe, print, reconcile.
// Environment: RECEIVER_SECRETS / RVC_SECRET_<NAME>, RECEIVER_SERVERS, RECEIVER_PORT (see README.md).
import express from 'express';
import { createLogger } from '@robot-mcp-kit/core';
import { expressEventReceiver, Reconciler, type TrackedTask } from '@robot-mcp-kit/receiver';
import { closeOnSignals, configOrExit, listen } from './app.lifecycle.js';
import { EVENTS_PATH } from './receiver.config.js';
import { ServerConnections } from './server-connections.js';
import { TaskBoard } from './task-board.js';

const config = configOrExit(process.env);
const logger = createLogger(); // JSON on stderr; the events go to stdout
const servers = new ServerConnections(config, { logger }); // an official SDK Client per server
const reconciler = new Reconciler({ servers: servers.callers, logger });
const board = new TaskBoard(); // the open tasks; prints a line per event, gap and reconciled task
const reconcile = async (tracked: Iterable<TrackedTask>): Promise<void> =>
  board.reconciled(await reconciler.reconcile({ tracked }));

const events = expressEventReceiver({
  secrets: config.secrets,
  logger,
  onEvent: (event, { late }) => board.record(event, late),
  onGap: (gap) => {
    board.gap(gap); // events were missed: ask the server
    return reconcile([gap]);
  },
});
const server = await listen(express().post(EVENTS_PATH, events), config);
closeOnSignals({ server, receiver: events.receiver, servers }, logger);
await reconcile(board.open()); // at start: adopt what the servers are running
