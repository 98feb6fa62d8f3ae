import { batteryBelowTrigger } from '@robot-mcp-kit/ros';
import { type TriggerPlugin } from '@robot-mcp-kit/server';

/**
 * This server's trigger plugins, added to the built-in ones (progress_above, eta_below,
 * zone_entered): battery_below reads battery_pct from the progress. `npm run kit -- add trigger
 * <type>` writes more under src/triggers/ and lists them here.
 */
export const plugins: TriggerPlugin[] = [batteryBelowTrigger];
