import { IsNumber, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { JSONSchema } from '@robot-mcp-kit/server';

/** Arguments of `navigate_to_pose`: a pose on the map. */
export class NavigateToPoseArgs {
  @JSONSchema({ description: 'Goal x in metres, in the map frame' })
  @IsNumber()
  @Min(-1000)
  @Max(1000)
  x!: number;

  @JSONSchema({ description: 'Goal y in metres, in the map frame' })
  @IsNumber()
  @Min(-1000)
  @Max(1000)
  y!: number;

  @JSONSchema({ description: 'Goal heading in radians (default 0)' })
  @IsOptional()
  @IsNumber()
  @Min(-Math.PI)
  @Max(Math.PI)
  yaw?: number;

  @JSONSchema({ description: 'Frame of the goal (default "map")' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z_][A-Za-z0-9_/]{0,63}$/)
  frame_id?: string;
}
