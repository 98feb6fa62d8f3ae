import { type Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type TaskResourceCatalog } from '../../task-views/task-resources.catalog.js';

/**
 * Installs resources/list, resources/templates/list and resources/read of the `tasks://` resources
 * on one 2025 session's low-level SDK server (the 2026-07-28 leg installs the same catalog with its
 * SDK: `runtime/modern-task.resources.ts`). `scope` is the session's principal, read per request.
 */
export function installLegacyTaskResources(
  server: Server,
  catalog: TaskResourceCatalog,
  scope: () => string | undefined,
): void {
  server.registerCapabilities({ resources: { listChanged: true } });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: await catalog.list(scope()),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: catalog.templates(),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    const read = await catalog.read(uri, scope());
    if (!read) throw legacyNotFound(catalog, uri);
    return read;
  });
}

/** The 2025 leg's error for an unknown or foreign URI (invalid params, as the SDK's McpServer sent). */
export function legacyNotFound(catalog: TaskResourceCatalog, uri: string): McpError {
  return new McpError(ErrorCode.InvalidParams, catalog.notFoundMessage(uri));
}
