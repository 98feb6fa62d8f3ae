import { RobotMcpKitError } from '@robot-mcp-kit/server';

/** `set_door` was given a door the map does not have. */
export class UnknownDoorError extends RobotMcpKitError {
  readonly door: string;

  constructor(door: string, known: readonly string[]) {
    super(
      'UNKNOWN_DOOR',
      `door: "${door}" is not a door of this map; use one of ${known.join(', ')} (see get_map)`,
    );
    this.door = door;
  }
}
