import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { type Logger } from '@robot-mcp-kit/core';
import { requiredScopesOf, type ScopedTool, type ToolScopeNames } from './tool-scopes.js';

/**
 * The per-tool scope check, at the HTTP level: a POST whose JSON-RPC body (or any message of a
 * batch) is a `tools/call` of a tool the token lacks a scope for is answered 403 before it reaches
 * MCP, with `WWW-Authenticate: Bearer error="insufficient_scope", scope="<every scope the tool
 * needs>", resource_metadata="..."` (the MCP authorization spec's step-up), so the client can ask
 * the authorization server for those scopes and retry. Every other method (initialize, tools/list,
 * resources, the kit's reading tools with `robot:read`) passes on a valid token; tools/list still
 * lists every tool.
 */
export interface ScopeGate {
  /** Answers 403 and returns true when the body calls a tool the request's token may not call. */
  refused(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, body: unknown): boolean;
}

/** A tools/call message's tool name and id, if the message is one. */
function toolCallOf(message: unknown): { name: string; id: unknown } | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, params, id } = message as { method?: unknown; params?: { name?: unknown }; id?: unknown };
  if (method !== 'tools/call' || typeof params?.name !== 'string') return undefined;
  return { name: params.name, id };
}

export function scopeGate(
  names: ToolScopeNames,
  toolOf: (name: string) => ScopedTool | undefined,
  logger: Logger,
  resourceMetadataUrl?: string,
): ScopeGate {
  return {
    refused(req, res, body) {
      for (const message of Array.isArray(body) ? body : [body]) {
        const call = toolCallOf(message);
        const tool = call && toolOf(call.name);
        if (!call || !tool) continue; // an unknown tool is MCP's to answer
        const required = requiredScopesOf(tool, names);
        const held = new Set(req.auth?.scopes ?? []);
        const missing = required.filter((scope) => !held.has(scope));
        if (missing.length === 0) continue;
        const description = `calling ${call.name} needs the scope ${required.join(' ')}; the token lacks ${missing.join(' ')}`;
        logger.info('tool call refused: insufficient scope', {
          tool: call.name,
          principal: req.auth?.clientId,
          missing,
        });
        let challenge = `Bearer error="insufficient_scope", scope="${required.join(' ')}"`;
        if (resourceMetadataUrl) challenge += `, resource_metadata="${resourceMetadataUrl}"`;
        challenge += `, error_description="${description}"`;
        res.writeHead(403, { 'Content-Type': 'application/json', 'WWW-Authenticate': challenge });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: call.id ?? null,
            error: { code: -32000, message: `Forbidden: ${description} (insufficient_scope)` },
          }),
        );
        return true;
      }
      return false;
    },
  };
}
