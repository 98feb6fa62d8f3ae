import { type TriggerPlugin } from '@robot-mcp-kit/server';

/**
 * This server's trigger plugins, added to the built-in ones (progress_above, eta_below,
 * zone_entered). `npm run kit -- add trigger <type>` writes one under src/triggers/ and lists it
 * here; src/main.ts and the tests both use this list.
 */
export const plugins: TriggerPlugin[] = [];
